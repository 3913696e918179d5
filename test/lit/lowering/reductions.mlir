// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// Reductions are a linalg.generic with "reduction" iterators into a filled
// accumulator of the kept axes; keepdims re-inserts extent-1 axes with
// collapse/expand reshapes.

// CHECK-LABEL: func.func @reduce_sum_keepdims
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32> {{.*}}) -> tensor<2x3x1xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<2x3xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<2x3xf32>)
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-SAME: ins(%[[X]] : tensor<2x3x4xf32>) outs(%[[ACC]] : tensor<2x3xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[OUT]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[SUM]] {{\[\[}}0, 1]] : tensor<2x3xf32> into tensor<6xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1, 2]] output_shape [2, 3, 1] : tensor<6xf32> into tensor<2x3x1xf32>
// CHECK: return %[[R]]
func.func @reduce_sum_keepdims(%x: tensor<2x3x4xf32>) -> tensor<2x3x1xf32> {
  %0 = autoglm.reduce_sum %x {axes = array<i64: 2>} : (tensor<2x3x4xf32>) -> tensor<2x3x1xf32>
  return %0 : tensor<2x3x1xf32>
}

// -----

// Several axes reduce in one generic. Without keepdims the [1, 3, 1] view
// is reshaped back to [3] (a pair that canonicalization removes later).
// CHECK-LABEL: func.func @reduce_sum_int_no_keepdims
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : i32)
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1)>]
// CHECK-SAME: iterator_types = ["reduction", "parallel", "reduction"]
// CHECK-SAME: outs(%[[ACC]] : tensor<3xi32>)
// CHECK: arith.addi
// CHECK: %[[K:.*]] = tensor.expand_shape %[[SUM]] {{\[\[}}0, 1, 2]] output_shape [1, 3, 1]
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[K]] {{\[\[}}0, 1, 2]] : tensor<1x3x1xi32> into tensor<3xi32>
// CHECK: return %[[R]] : tensor<3xi32>
func.func @reduce_sum_int_no_keepdims(%x: tensor<2x3x4xi32>) -> tensor<3xi32> {
  %0 = autoglm.reduce_sum %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xi32>) -> tensor<3xi32>
  return %0 : tensor<3xi32>
}

// -----

// The mean divides the sum by the number of reduced elements (2 * 4), on
// the sums before the reduced axes are re-inserted.
// CHECK-LABEL: func.func @reduce_mean
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel", "reduction"]
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK-SAME: ins(%{{.*}} : tensor<3xf32>)
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: %[[M:.*]] = arith.divf %[[S]], %[[N]] : f32
// CHECK-NEXT: linalg.yield %[[M]]
func.func @reduce_mean(%x: tensor<2x3x4xf32>) -> tensor<3xf32> {
  %0 = autoglm.reduce_mean %x {axes = array<i64: 0, 2>, keepdims = false} : (tensor<2x3x4xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// Empty axes reduce everything into a rank-0 accumulator; an integer mean
// divides with divsi.
// CHECK-LABEL: func.func @reduce_mean_all_int
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : i64) outs(%{{.*}} : tensor<i64>)
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>]
// CHECK-SAME: iterator_types = ["reduction", "reduction"]
// CHECK: %[[N:.*]] = arith.constant 6 : i64
// CHECK-NEXT: arith.divsi %{{.*}}, %[[N]] : i64
// CHECK: return %{{.*}} : tensor<i64>
func.func @reduce_mean_all_int(%x: tensor<2x3xi64>) -> tensor<i64> {
  %0 = autoglm.reduce_mean %x {axes = array<i64>, keepdims = false} : (tensor<2x3xi64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

// The max starts from the lowest value of the type: -inf, the smallest
// signed value, or 0 for unsigned types (compared as unsigned).
// CHECK-LABEL: func.func @reduce_max
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NINF]] : f32)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: arith.maximumf %[[OUT]], %[[IN]] : f32
// CHECK: %[[SMIN:.*]] = arith.constant -128 : i8
// CHECK: linalg.fill ins(%[[SMIN]] : i8)
// CHECK: arith.maxsi
// CHECK: %[[UMIN:.*]] = arith.constant 0 : i8
// CHECK: linalg.fill ins(%[[UMIN]] : i8)
// CHECK: arith.maxui
func.func @reduce_max(%x: tensor<2x3xf32>, %i: tensor<2x3xi8>, %u: tensor<2x3xui8>)
    -> (tensor<2x1xf32>, tensor<2x1xi8>, tensor<2x1xui8>) {
  %0 = autoglm.reduce_max %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %1 = autoglm.reduce_max %i {axes = array<i64: 1>} : (tensor<2x3xi8>) -> tensor<2x1xi8>
  %2 = autoglm.reduce_max %u {axes = array<i64: 1>} : (tensor<2x3xui8>) -> tensor<2x1xui8>
  return %0, %1, %2 : tensor<2x1xf32>, tensor<2x1xi8>, tensor<2x1xui8>
}

// -----

// The min starts from the highest value: +inf, the largest signed value, or
// all ones for unsigned types (compared as unsigned).
// CHECK-LABEL: func.func @reduce_min
// CHECK: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: linalg.fill ins(%[[INF]] : f32)
// CHECK: ^bb0(%[[IN:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: arith.minimumf %[[OUT]], %[[IN]] : f32
// CHECK: %[[UMAX:.*]] = arith.constant -1 : i8
// CHECK: linalg.fill ins(%[[UMAX]] : i8)
// CHECK: arith.minui
// CHECK: %[[SMAX:.*]] = arith.constant 32767 : i16
// CHECK: linalg.fill ins(%[[SMAX]] : i16)
// CHECK: arith.minsi
func.func @reduce_min(%x: tensor<2x3xf32>, %u: tensor<2x3xui8>, %i: tensor<2x3xi16>)
    -> (tensor<2xf32>, tensor<2xui8>, tensor<2xi16>) {
  %0 = autoglm.reduce_min %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  %1 = autoglm.reduce_min %u {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xui8>) -> tensor<2xui8>
  %2 = autoglm.reduce_min %i {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi16>) -> tensor<2xi16>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xui8>, tensor<2xi16>
}

// -----

// softmax = exp(x - max) / sum(exp(x - max)) along the axis: a max pass,
// a sum pass reading the max, and the output pass reading both.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32> {{.*}})
// CHECK: %[[MAX:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[X]] : tensor<2x5xf32>)
// CHECK: arith.maximumf
// CHECK: %[[MAXK:.*]] = tensor.expand_shape %[[MAX]] {{\[\[}}0, 1]] output_shape [2, 1]
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0)>]
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[X]], %[[MAXK]] : tensor<2x5xf32>, tensor<2x1xf32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: f32, %[[M:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[A]], %[[M]]
// CHECK-NEXT: %[[EXP:.*]] = math.exp %[[D]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[ACC]], %[[EXP]]
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: %[[SUMK:.*]] = tensor.expand_shape %[[SUM]]
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[MAXK]], %[[SUMK]] : tensor<2x5xf32>, tensor<2x1xf32>, tensor<2x1xf32>)
// CHECK: arith.subf
// CHECK-NEXT: math.exp
// CHECK-NEXT: arith.divf
// CHECK: return %[[R]]
func.func @softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = autoglm.softmax %x {axis = 1 : i64} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Softmax over a leading axis reduces that axis only.
// CHECK-LABEL: func.func @softmax_axis0
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>]
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
func.func @softmax_axis0(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = autoglm.softmax %x {axis = 0 : i64} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// layer_norm: a mean pass, a variance pass reading the mean that ends in
// 1 / sqrt(var + eps) per row (both summed in f64), then
// (x - mean) * that * scale + bias.
// CHECK-LABEL: func.func @layer_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf32> {{.*}}, %[[G:.*]]: tensor<8xf32> {{.*}}, %[[B:.*]]: tensor<8xf32> {{.*}})
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: outs(%{{.*}} : tensor<2xf64>)
// CHECK: arith.extf
// CHECK: %[[MEAN:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: arith.constant 8.000000e+00 : f64
// CHECK-NEXT: arith.divf
// CHECK-NEXT: arith.truncf
// CHECK: %[[MEANK:.*]] = tensor.expand_shape %[[MEAN]]
// CHECK: %[[VAR:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
// CHECK-SAME: ins(%[[X]], %[[MEANK]] : tensor<2x8xf32>, tensor<2x1xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[M:.*]]: f32, %[[ACC:.*]]: f64):
// CHECK-NEXT: %[[MW:.*]] = arith.extf %[[M]]
// CHECK-NEXT: %[[VW:.*]] = arith.extf %[[V]]
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[VW]], %[[MW]]
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[D]], %[[D]]
// CHECK-NEXT: arith.addf %[[ACC]], %[[SQ]]
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK-SAME: ins(%[[VAR]] : tensor<2xf64>)
// CHECK: arith.divf
// CHECK: %[[EPS:.*]] = arith.constant 9.9999997473787516E-6 : f64
// CHECK-NEXT: arith.addf %{{.*}}, %[[EPS]]
// CHECK-NEXT: math.sqrt
// CHECK: arith.truncf
// CHECK: %[[INVK:.*]] = tensor.expand_shape %[[INV]]
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[X]], %[[MEANK]], %[[INVK]], %[[G]], %[[B]] :
// CHECK-NEXT: ^bb0(%[[XX:.*]]: f32, %[[XM:.*]]: f32, %[[XI:.*]]: f32, %[[XG:.*]]: f32, %[[XB:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[C:.*]] = arith.subf %[[XX]], %[[XM]]
// CHECK-NEXT: %[[N:.*]] = arith.mulf %[[C]], %[[XI]]
// CHECK-NEXT: %[[SC:.*]] = arith.mulf %[[N]], %[[XG]]
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[SC]], %[[XB]]
// CHECK-NEXT: linalg.yield %[[Y]]
// CHECK: return %[[R]]
func.func @layer_norm(%x: tensor<2x8xf32>, %g: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = autoglm.layer_norm %x, %g, %b {axis = 1 : i64, epsilon = 1.0e-5 : f32}
      : (tensor<2x8xf32>, tensor<8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Without a bias the last step is the scale.
// CHECK-LABEL: func.func @layer_norm_no_bias
// CHECK: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %[[XG:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[SC:.*]] = arith.mulf %{{.*}}, %[[XG]]
// CHECK-NEXT: linalg.yield %[[SC]]
func.func @layer_norm_no_bias(%x: tensor<2x8xf32>, %g: tensor<8xf32>) -> tensor<2x8xf32> {
  %0 = autoglm.layer_norm %x, %g {axis = 1 : i64} : (tensor<2x8xf32>, tensor<8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// scale / sqrt(var + eps) is computed once per channel; per-channel values
// are viewed as [C, 1, 1] and broadcast along the spatial axes.
// CHECK-LABEL: func.func @batch_norm
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x2x2xf32> {{.*}}, %[[S:.*]]: tensor<4xf32> {{.*}}, %[[B:.*]]: tensor<4xf32> {{.*}}, %[[M:.*]]: tensor<4xf32> {{.*}}, %[[V:.*]]: tensor<4xf32> {{.*}})
// CHECK: %[[F:.*]] = linalg.generic
// CHECK-SAME: ins(%[[S]], %[[V]] : tensor<4xf32>, tensor<4xf32>)
// CHECK-NEXT: ^bb0(%[[XS:.*]]: f32, %[[XV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[EPS:.*]] = arith.constant 1.000000e-03 : f32
// CHECK-NEXT: %[[VE:.*]] = arith.addf %[[XV]], %[[EPS]]
// CHECK-NEXT: %[[SD:.*]] = math.sqrt %[[VE]]
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00
// CHECK-NEXT: %[[INV:.*]] = arith.divf %[[ONE]], %[[SD]]
// CHECK-NEXT: %[[FS:.*]] = arith.mulf %[[XS]], %[[INV]]
// CHECK-NEXT: linalg.yield %[[FS]]
// CHECK-DAG: %[[M3:.*]] = tensor.expand_shape %[[M]] {{\[\[}}0, 1, 2]] output_shape [4, 1, 1] : tensor<4xf32> into tensor<4x1x1xf32>
// CHECK-DAG: %[[F3:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1, 2]] output_shape [4, 1, 1]
// CHECK-DAG: %[[B3:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1, 2]] output_shape [4, 1, 1]
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME: ins(%[[X]], %[[M3]], %[[F3]], %[[B3]] :
// CHECK-NEXT: ^bb0(%[[XX:.*]]: f32, %[[XM:.*]]: f32, %[[XF:.*]]: f32, %[[XB:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[XX]], %[[XM]]
// CHECK-NEXT: %[[N:.*]] = arith.mulf %[[D]], %[[XF]]
// CHECK-NEXT: %[[Y:.*]] = arith.addf %[[N]], %[[XB]]
// CHECK-NEXT: linalg.yield %[[Y]]
// CHECK: return %[[R]]
func.func @batch_norm(%x: tensor<1x4x2x2xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>, %m: tensor<4xf32>, %v: tensor<4xf32>) -> tensor<1x4x2x2xf32> {
  %0 = autoglm.batch_norm %x, %s, %b, %m, %v {epsilon = 1.0e-3 : f32}
      : (tensor<1x4x2x2xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}

// -----

// Global average pooling is a mean over the spatial axes (3 * 5 = 15).
// CHECK-LABEL: func.func @global_average_pool
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK: arith.addf
// CHECK: arith.constant 1.500000e+01 : f32
// CHECK-NEXT: arith.divf
// CHECK: tensor.expand_shape {{.*}} output_shape [1, 4, 1, 1]
// CHECK: return %{{.*}} : tensor<1x4x1x1xf32>
func.func @global_average_pool(%x: tensor<1x4x3x5xf32>) -> tensor<1x4x1x1xf32> {
  %0 = autoglm.global_average_pool %x : (tensor<1x4x3x5xf32>) -> tensor<1x4x1x1xf32>
  return %0 : tensor<1x4x1x1xf32>
}
