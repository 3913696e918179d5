// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// The product starts from 1 and multiplies; no finishing step is needed.
// CHECK-LABEL: func.func @reduce_prod
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ONE]] : f32)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[ACC]], %[[IN]] : f32
// CHECK-NEXT: linalg.yield %[[P]]
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @reduce_prod(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = autoglm.reduce_prod %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// L1 of signed integers sums math.absi; L2 sums squares and takes the
// square root of each sum before the reduced axis is re-inserted.
// CHECK-LABEL: func.func @reduce_l1_l2
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i32, %[[ACC:.*]]: i32):
// CHECK-NEXT: %[[A:.*]] = math.absi %[[IN]] : i32
// CHECK-NEXT: arith.addi %[[ACC]], %[[A]] : i32
// CHECK: %[[SS:.*]] = linalg.generic
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[ACC2:.*]]: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[V]], %[[V]] : f32
// CHECK-NEXT: arith.addf %[[ACC2]], %[[SQ]] : f32
// CHECK: %[[ROOT:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel"]
// CHECK-SAME: ins(%[[SS]] : tensor<2xf32>)
// CHECK: math.sqrt
// CHECK: tensor.expand_shape %[[ROOT]] {{\[\[}}0, 1]] output_shape [2, 1]
func.func @reduce_l1_l2(%i: tensor<2x3xi32>, %x: tensor<2x3xf32>) -> (tensor<2x1xi32>, tensor<2x1xf32>) {
  %0 = autoglm.reduce_l1 %i {axes = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  %1 = autoglm.reduce_l2 %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0, %1 : tensor<2x1xi32>, tensor<2x1xf32>
}

// -----

// Unsigned L1 is a plain sum; sum of squares multiplies in the step.
// CHECK-LABEL: func.func @reduce_l1_unsigned_sum_square
// CHECK: ^bb0(%[[IN:.*]]: i8, %[[ACC:.*]]: i8):
// CHECK-NEXT: arith.addi %[[ACC]], %[[IN]] : i8
// CHECK: ^bb0(%[[V:.*]]: f32, %[[ACC2:.*]]: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[V]], %[[V]]
// CHECK-NEXT: arith.addf %[[ACC2]], %[[SQ]]
func.func @reduce_l1_unsigned_sum_square(%u: tensor<2x3xui8>, %x: tensor<2x3xf32>) -> (tensor<2x1xui8>, tensor<1x1xf32>) {
  %0 = autoglm.reduce_l1 %u {axes = array<i64: 1>} : (tensor<2x3xui8>) -> tensor<2x1xui8>
  %1 = autoglm.reduce_sum_square %x {axes = array<i64>} : (tensor<2x3xf32>) -> tensor<1x1xf32>
  return %0, %1 : tensor<2x1xui8>, tensor<1x1xf32>
}

// -----

// log-sum-exp: a max pass, then sum(exp(x - m)) with an infinite maximum
// replaced by 0, then log(sum) + m.
// CHECK-LABEL: func.func @reduce_log_sum_exp
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {{.*}})
// CHECK: %[[MAX:.*]] = linalg.generic
// CHECK: arith.maximumf
// CHECK: %[[MAXK:.*]] = tensor.expand_shape %[[MAX]]
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: ins(%[[X]], %[[MAXK]] : tensor<2x3xf32>, tensor<2x1xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[M:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK-NEXT: %[[ABS:.*]] = math.absf %[[M]]
// CHECK-NEXT: %[[ISINF:.*]] = arith.cmpf oeq, %[[ABS]], %[[INF]]
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00
// CHECK-NEXT: %[[SHIFT:.*]] = arith.select %[[ISINF]], %[[ZERO]], %[[M]]
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[V]], %[[SHIFT]]
// CHECK-NEXT: %[[E:.*]] = math.exp %[[D]]
// CHECK-NEXT: arith.addf %[[ACC]], %[[E]]
// CHECK: linalg.generic
// CHECK: math.log
// CHECK-NEXT: arith.addf
// CHECK: return %{{.*}} : tensor<2xf32>
func.func @reduce_log_sum_exp(%x: tensor<2x3xf32>) -> tensor<2xf32> {
  %0 = autoglm.reduce_log_sum_exp %x {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// log-sum: the log of each sum.
// CHECK-LABEL: func.func @reduce_log_sum
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[L:.*]] = math.log %[[S]]
// CHECK-NEXT: linalg.yield %[[L]]
func.func @reduce_log_sum(%x: tensor<2x3xf32>) -> tensor<2x1xf32> {
  %0 = autoglm.reduce_log_sum %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

// f16 sums accumulate in f32 and are rounded once.
// CHECK-LABEL: func.func @reduce_sum_f16
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}} : tensor<2x3xf16>) outs(%[[ACC]] : tensor<2xf32>)
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %[[S:.*]]: f32):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]] : f16 to f32
// CHECK-NEXT: arith.addf %[[S]], %[[W]] : f32
// CHECK: linalg.generic
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: return %{{.*}} : tensor<2x1xf16>
func.func @reduce_sum_f16(%x: tensor<2x3xf16>) -> tensor<2x1xf16> {
  %0 = autoglm.reduce_sum %x {axes = array<i64: 1>} : (tensor<2x3xf16>) -> tensor<2x1xf16>
  return %0 : tensor<2x1xf16>
}

// -----

// Booleans compare as unsigned: max is "or", starting from false; an
// unsigned integer mean divides with divui.
// CHECK-LABEL: func.func @reduce_bool_and_unsigned_mean
// CHECK: %[[FALSE:.*]] = arith.constant false
// CHECK: linalg.fill ins(%[[FALSE]] : i1)
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i1
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK: linalg.fill ins(%[[TRUE]] : i1)
// CHECK: arith.minui %{{.*}}, %{{.*}} : i1
// CHECK: arith.divui
func.func @reduce_bool_and_unsigned_mean(%b: tensor<2x3xi1>, %u: tensor<2x3xui8>)
    -> (tensor<2x1xi1>, tensor<2x1xi1>, tensor<2x1xui8>) {
  %0 = autoglm.reduce_max %b {axes = array<i64: 1>} : (tensor<2x3xi1>) -> tensor<2x1xi1>
  %1 = autoglm.reduce_min %b {axes = array<i64: 1>} : (tensor<2x3xi1>) -> tensor<2x1xi1>
  %2 = autoglm.reduce_mean %u {axes = array<i64: 1>} : (tensor<2x3xui8>) -> tensor<2x1xui8>
  return %0, %1, %2 : tensor<2x1xi1>, tensor<2x1xi1>, tensor<2x1xui8>
}

// -----

// arg_max keeps (value, position) accumulators; position -1 means "none
// yet". An element wins on a larger value (NaN beats numbers) or on an equal
// value at a smaller position.
// CHECK-LABEL: func.func @arg_max
// CHECK: %[[NONE:.*]] = arith.constant -1 : i64
// CHECK: %[[IDX:.*]] = linalg.fill ins(%[[NONE]] : i64)
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK-SAME: outs(%{{.*}}, %[[IDX]] : tensor<2xf32>, tensor<2xi64>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[BEST:.*]]: f32, %[[BI:.*]]: i64):
// CHECK-NEXT: %[[I:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK: arith.cmpi slt, %[[BI]],
// CHECK: arith.cmpf ogt, %[[V]], %[[BEST]]
// CHECK: arith.cmpi slt, %[[I64]], %[[BI]]
// CHECK: arith.cmpf oeq, %[[V]], %[[BEST]]
// CHECK: %[[NV:.*]] = arith.select %[[TAKE:.*]], %[[V]], %[[BEST]] : f32
// CHECK-NEXT: %[[NI:.*]] = arith.select %[[TAKE]], %[[I64]], %[[BI]] : i64
// CHECK-NEXT: linalg.yield %[[NV]], %[[NI]]
// CHECK: tensor.expand_shape %[[R]]#1
func.func @arg_max(%x: tensor<2x5xf32>) -> tensor<2xi64> {
  %0 = autoglm.arg_max %x {axis = 1 : i64, keepdims = false} : (tensor<2x5xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// arg_min of unsigned bytes: starts from the largest value (255 = -1 as
// i8), compares unsigned; select_last_index prefers larger positions.
// CHECK-LABEL: func.func @arg_min_last
// CHECK: %[[MAXU8:.*]] = arith.constant -1 : i8
// CHECK: linalg.fill ins(%[[MAXU8]] : i8)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
// CHECK: %[[I:.*]] = arith.index_cast
// CHECK: arith.cmpi ult, %[[V:.*]], %[[BEST:.*]] : i8
// CHECK: arith.cmpi sgt, %[[I]], %{{.*}} : i64
// CHECK: arith.cmpi eq, %[[V]], %[[BEST]] : i8
// CHECK: return %{{.*}} : tensor<1x3xi64>
func.func @arg_min_last(%x: tensor<4x3xui8>) -> tensor<1x3xi64> {
  %0 = autoglm.arg_min %x {axis = 0 : i64, select_last_index = true} : (tensor<4x3xui8>) -> tensor<1x3xi64>
  return %0 : tensor<1x3xi64>
}

// -----

// top_k: one reduction per pick over the [outer, n, inner] view; pick 2
// reads pick 1 and only takes elements that come after it. The picks are
// inserted at positions 0 and 1 of the axis.
// CHECK-LABEL: func.func @top_k
// CHECK: %[[X:.*]] = tensor.expand_shape {{.*}} output_shape [3, 8, 1]
// CHECK: %[[VALS:.*]] = tensor.empty() : tensor<3x2x1xf32>
// CHECK: %[[IDXS:.*]] = tensor.empty() : tensor<3x2x1xi64>
// CHECK: %[[P1:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-SAME: ins(%[[X]] : tensor<3x8x1xf32>)
// CHECK: %[[V1:.*]] = tensor.expand_shape {{.*}} output_shape [3, 1, 1] : tensor<3xf32>
// CHECK: %[[I1:.*]] = tensor.expand_shape {{.*}} output_shape [3, 1, 1] : tensor<3xi64>
// CHECK: %[[VALS1:.*]] = tensor.insert_slice %[[V1]] into %[[VALS]][0, 0, 0] [3, 1, 1] [1, 1, 1]
// CHECK: %[[IDXS1:.*]] = tensor.insert_slice %[[I1]] into %[[IDXS]][0, 0, 0] [3, 1, 1] [1, 1, 1]
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
// CHECK-SAME: ins(%[[X]], %[[V1]], %[[I1]] :
// CHECK: tensor.insert_slice %{{.*}} into %[[VALS1]][0, 1, 0] [3, 1, 1] [1, 1, 1]
// CHECK: tensor.insert_slice %{{.*}} into %[[IDXS1]][0, 1, 0] [3, 1, 1] [1, 1, 1]
// CHECK-NOT: linalg.generic
// CHECK: return %{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<3x2xi64>
func.func @top_k(%x: tensor<3x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>) {
  %v, %i = autoglm.top_k %x {k = 2 : i64, axis = 1 : i64} : (tensor<3x8xf32>) -> (tensor<3x2xf32>, tensor<3x2xi64>)
  return %v, %i : tensor<3x2xf32>, tensor<3x2xi64>
}

// -----

// The smallest k: values compared with olt, NaN losing to every number.
// CHECK-LABEL: func.func @top_k_smallest
// CHECK: %[[INF:.*]] = arith.constant 0x7F800000 : f32
// CHECK: linalg.fill ins(%[[INF]] : f32)
// CHECK: linalg.generic
// CHECK: arith.cmpf olt
func.func @top_k_smallest(%x: tensor<8xf32>) -> (tensor<1xf32>, tensor<1xi64>) {
  %v, %i = autoglm.top_k %x {k = 1 : i64, axis = 0 : i64, largest = false} : (tensor<8xf32>) -> (tensor<1xf32>, tensor<1xi64>)
  return %v, %i : tensor<1xf32>, tensor<1xi64>
}

// -----

// cum_sum: the source position j is an extra reduction loop (d2); an
// exclusive sum adds x[j] for j < i.
// CHECK-LABEL: func.func @cum_sum_exclusive
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i64, %[[ACC:.*]]: i64):
// CHECK-NEXT: %[[I:.*]] = linalg.index 1 : index
// CHECK-NEXT: %[[J:.*]] = linalg.index 2 : index
// CHECK-NEXT: %[[IN_RANGE:.*]] = arith.cmpi slt, %[[J]], %[[I]] : index
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0 : i64
// CHECK-NEXT: %[[V:.*]] = arith.select %[[IN_RANGE]], %[[IN]], %[[ZERO]]
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[ACC]], %[[V]]
// CHECK-NEXT: linalg.yield %[[S]]
func.func @cum_sum_exclusive(%x: tensor<2x4xi64>) -> tensor<2x4xi64> {
  %0 = autoglm.cum_sum %x {axis = 1 : i64, exclusive = true} : tensor<2x4xi64>
  return %0 : tensor<2x4xi64>
}

// -----

// Reverse sums take j >= i; f16 data is summed in f32 and rounded after.
// CHECK-LABEL: func.func @cum_sum_reverse_f16
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0)>]
// CHECK-SAME: outs(%{{.*}} : tensor<5xf32>)
// CHECK: arith.cmpi sge
// CHECK: arith.extf
// CHECK: linalg.generic
// CHECK: arith.truncf
func.func @cum_sum_reverse_f16(%x: tensor<5xf16>) -> tensor<5xf16> {
  %0 = autoglm.cum_sum %x {axis = 0 : i64, reverse = true} : tensor<5xf16>
  return %0 : tensor<5xf16>
}

// -----

// log_softmax = (x - max) - log(sum(exp(x - max))), the log taken per row.
// CHECK-LABEL: func.func @log_softmax
// CHECK-SAME: (%[[X:.*]]: tensor<2x5xf32> {{.*}})
// CHECK: arith.maximumf
// CHECK: %[[MAXK:.*]] = tensor.expand_shape
// CHECK: math.exp
// CHECK: %[[LOG:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: math.log
// CHECK: %[[LOGK:.*]] = tensor.expand_shape %[[LOG]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[MAXK]], %[[LOGK]] :
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %[[M:.*]]: f32, %[[L:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[V]], %[[M]]
// CHECK-NEXT: %[[R:.*]] = arith.subf %[[D]], %[[L]]
// CHECK-NEXT: linalg.yield %[[R]]
func.func @log_softmax(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %0 = autoglm.log_softmax %x {axis = 1 : i64} : tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// f16 softmax: exp sums in f32, output rounded once.
// CHECK-LABEL: func.func @softmax_f16
// CHECK: arith.maximumf %{{.*}}, %{{.*}} : f16
// CHECK: outs(%{{.*}} : tensor<4xf32>)
// CHECK: arith.extf
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK-NEXT: arith.truncf
func.func @softmax_f16(%x: tensor<4x6xf16>) -> tensor<4x6xf16> {
  %0 = autoglm.softmax %x {axis = 1 : i64} : tensor<4x6xf16>
  return %0 : tensor<4x6xf16>
}

// -----

// hardmax: the first arg max, then 1 where the position matches.
// CHECK-LABEL: func.func @hardmax
// CHECK: %[[ARG:.*]]:2 = linalg.generic
// CHECK-SAME: iterator_types = ["reduction", "parallel"]
// CHECK: %[[ARGK:.*]] = tensor.expand_shape %[[ARG]]#1 {{.*}} output_shape [1, 5]
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[ARGK]] : tensor<1x5xi64>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[I64:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[HIT:.*]] = arith.cmpi eq, %[[I64]], %[[A]]
// CHECK: arith.select %[[HIT]]
func.func @hardmax(%x: tensor<3x5xf32>) -> tensor<3x5xf32> {
  %0 = autoglm.hardmax %x {axis = 0 : i64} : tensor<3x5xf32>
  return %0 : tensor<3x5xf32>
}

// -----

// rms_norm: sum of squares in f32, 1 / sqrt(sum / n + eps) per row, then
// x * that * scale rounded to f16.
// CHECK-LABEL: func.func @rms_norm
// CHECK-SAME: (%[[X:.*]]: tensor<2x8xf16> {{.*}}, %[[G:.*]]: tensor<8xf16> {{.*}})
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[IN:.*]]: f16, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[IN]]
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[W]], %[[W]]
// CHECK-NEXT: arith.addf %[[ACC]], %[[SQ]]
// CHECK: %[[INV:.*]] = linalg.generic {{.*}} iterator_types = ["parallel"]
// CHECK: %[[N:.*]] = arith.constant 8.000000e+00 : f32
// CHECK-NEXT: arith.divf %{{.*}}, %[[N]]
// CHECK-NEXT: %[[EPS:.*]] = arith.constant 9.99999997E-7 : f32
// CHECK-NEXT: arith.addf %{{.*}}, %[[EPS]]
// CHECK-NEXT: math.sqrt
// CHECK: %[[INVK:.*]] = tensor.expand_shape %[[INV]]
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[X]], %[[INVK]], %[[G]] : tensor<2x8xf16>, tensor<2x1xf32>, tensor<8xf16>)
// CHECK: arith.mulf
// CHECK-NEXT: arith.mulf
// CHECK-NEXT: arith.truncf %{{.*}} : f32 to f16
func.func @rms_norm(%x: tensor<2x8xf16>, %g: tensor<8xf16>) -> tensor<2x8xf16> {
  %0 = autoglm.rms_norm %x, %g {axis = 1 : i64, epsilon = 1.0e-6 : f32} : (tensor<2x8xf16>, tensor<8xf16>) -> tensor<2x8xf16>
  return %0 : tensor<2x8xf16>
}

// -----

// Batch norm parameters of another float type are converted in the body.
// CHECK-LABEL: func.func @batch_norm_mixed
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>)
// CHECK: linalg.generic
// CHECK-NEXT: ^bb0(%[[X:.*]]: f16, %[[M:.*]]: f32, %[[F:.*]]: f32, %[[B:.*]]: f32, %{{.*}}: f16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: arith.subf %[[W]], %[[M]]
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @batch_norm_mixed(%x: tensor<2x3x4xf16>, %s: tensor<3xf32>, %b: tensor<3xf32>, %m: tensor<3xf32>, %v: tensor<3xf32>) -> tensor<2x3x4xf16> {
  %0 = autoglm.batch_norm %x, %s, %b, %m, %v
      : (tensor<2x3x4xf16>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<2x3x4xf16>
  return %0 : tensor<2x3x4xf16>
}

// -----

// group_norm on the [N, G, C/G, rest] view: statistics (summed in f64) over
// the last two axes, then per-channel scale and bias viewed as [G, C/G, 1].
// CHECK-LABEL: func.func @group_norm
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x2x3xf32> {{.*}}, %[[S:.*]]: tensor<4xf32> {{.*}}, %[[B:.*]]: tensor<4xf32> {{.*}})
// CHECK: %[[XG:.*]] = tensor.expand_shape {{.*}} output_shape [1, 2, 2, 6] : tensor<24xf32> into tensor<1x2x2x6xf32>
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: ins(%[[XG]] : tensor<1x2x2x6xf32>)
// CHECK: arith.constant 1.200000e+01 : f64
// CHECK: %[[MEANK:.*]] = tensor.expand_shape {{.*}} output_shape [1, 2, 1, 1]
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: ins(%[[XG]], %[[MEANK]] :
// CHECK: math.sqrt
// CHECK: %[[INVK:.*]] = tensor.expand_shape {{.*}} output_shape [1, 2, 1, 1]
// CHECK-DAG: %[[S3:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1, 2]] output_shape [2, 2, 1]
// CHECK-DAG: %[[B3:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1, 2]] output_shape [2, 2, 1]
// CHECK: %[[Y:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, 0, 0)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d1, d2, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME: ins(%[[XG]], %[[MEANK]], %[[INVK]], %[[S3]], %[[B3]] :
// CHECK: tensor.expand_shape {{.*}} output_shape [1, 4, 2, 3]
func.func @group_norm(%x: tensor<1x4x2x3xf32>, %s: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<1x4x2x3xf32> {
  %0 = autoglm.group_norm %x, %s, %b {num_groups = 2 : i64}
      : (tensor<1x4x2x3xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x2x3xf32>
  return %0 : tensor<1x4x2x3xf32>
}
