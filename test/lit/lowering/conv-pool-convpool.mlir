// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// Transposed convolution: the input is spread out by the strides (with
// tensor.insert_slice into zeros) with room for the kernel span minus the
// begin padding on each side, then convolved with a reversed kernel index
// (dO + span - dK) over the group view [N, G, C/G, ...] x [G, C/G, F/G, ...].

// CHECK-LABEL: func.func @conv_transpose
// CHECK: %[[ZERO:.*]] = linalg.fill {{.*}} -> tensor<1x4x8x12xf32>
// CHECK: %[[PART:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [1, 4, 3, 3] [1, 1, 1, 1]
// CHECK: %[[SPREAD:.*]] = tensor.insert_slice %[[PART]] into %[[ZERO]][0, 0, 1, 2] [1, 4, 3, 3] [1, 1, 2, 3]
// CHECK: %[[IN5:.*]] = tensor.expand_shape {{.*}} output_shape [1, 2, 2, 8, 12]
// CHECK: %[[W5:.*]] = tensor.expand_shape {{.*}} output_shape [2, 2, 1, 3, 3]
// CHECK: %[[ACC:.*]] = linalg.generic {{.*}} ins(%{{.*}} : tensor<1x2x1x1x1xf32>) outs(%{{.*}} : tensor<1x2x1x6x10xf32>)
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d3, d6 - d4 + 2, d7 - d5 + 2)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d1, d3, d2, d4, d5)>, affine_map<(d0, d1, d2, d3, d4, d5, d6, d7) -> (d0, d1, d2, d6, d7)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction", "parallel", "parallel"]
// CHECK-SAME: ins(%[[IN5]], %[[W5]] : tensor<1x2x2x8x12xf32>, tensor<2x2x1x3x3xf32>) outs(%[[ACC]] : tensor<1x2x1x6x10xf32>)
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: return %{{.*}} : tensor<1x2x6x10xf32>
func.func @conv_transpose(%x: tensor<1x4x3x3xf32>, %w: tensor<4x1x3x3xf32>, %b: tensor<2xf32>) -> tensor<1x2x6x10xf32> {
  %0 = autoglm.conv_transpose %x, %w, %b {strides = array<i64: 2, 3>, pads = array<i64: 1, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 1>, group = 2 : i64}
      : (tensor<1x4x3x3xf32>, tensor<4x1x3x3xf32>, tensor<2xf32>) -> tensor<1x2x6x10xf32>
  return %0 : tensor<1x2x6x10xf32>
}

// -----

// A begin padding larger than the kernel span crops the first inputs: only
// x[2] lands in the 2-element buffer (at 2 * 2 + 1 - 4).
// CHECK-LABEL: func.func @conv_transpose_crop
// CHECK: tensor.extract_slice %arg0[0, 0, 2] [1, 1, 1] [1, 1, 1]
// CHECK: tensor.insert_slice {{.*}}[0, 0, 1] [1, 1, 1] [1, 1, 2] : tensor<1x1x1xf32> into tensor<1x1x2xf32>
func.func @conv_transpose_crop(%x: tensor<1x1x5xf32>, %w: tensor<1x1x2xf32>) -> tensor<1x1x1xf32> {
  %0 = autoglm.conv_transpose %x, %w {strides = array<i64: 2>, pads = array<i64: 4, 5>, dilations = array<i64: 1>, output_padding = array<i64: 0>}
      : (tensor<1x1x5xf32>, tensor<1x1x2xf32>) -> tensor<1x1x1xf32>
  return %0 : tensor<1x1x1xf32>
}

// -----

// Negative padding extends the output with positions no input reaches; a
// result that sees no input at all is just the (zero) accumulator.
// CHECK-LABEL: func.func @conv_transpose_no_input
// CHECK-NOT: tensor.insert_slice
// CHECK: linalg.generic
func.func @conv_transpose_no_input(%x: tensor<1x1x2xf32>, %w: tensor<1x1x1xf32>) -> tensor<1x1x2xf32> {
  %0 = autoglm.conv_transpose %x, %w {strides = array<i64: 1>, pads = array<i64: 2, -2>, dilations = array<i64: 1>, output_padding = array<i64: 0>}
      : (tensor<1x1x2xf32>, tensor<1x1x1xf32>) -> tensor<1x1x2xf32>
  return %0 : tensor<1x1x2xf32>
}

// -----

// Integer convolution (ConvInteger) multiplies and adds as integers.
// CHECK-LABEL: func.func @conv_integer
// CHECK: linalg.generic
// CHECK: ^bb0(%[[I:.*]]: i32, %[[F:.*]]: i32, %[[O:.*]]: i32):
// CHECK-NEXT: %[[P:.*]] = arith.muli %[[I]], %[[F]] : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[O]], %[[P]] : i32
// CHECK-NEXT: linalg.yield %[[S]]
func.func @conv_integer(%x: tensor<1x2x4x4xi32>, %w: tensor<3x2x2x2xi32>) -> tensor<1x3x3x3xi32> {
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<1x2x4x4xi32>, tensor<3x2x2x2xi32>) -> tensor<1x3x3x3xi32>
  return %0 : tensor<1x3x3x3xi32>
}

// -----

// Lp pooling sums |x|^p per window (products for small p), then takes the
// p-th root.
// CHECK-LABEL: func.func @lp_pool
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]
// CHECK: %[[A:.*]] = math.absf %{{.*}} : f32
// CHECK-NEXT: %[[A2:.*]] = arith.mulf %[[A]], %[[A]]
// CHECK-NEXT: %[[A3:.*]] = arith.mulf %[[A2]], %[[A]]
// CHECK-NEXT: arith.addf %{{.*}}, %[[A3]]
// CHECK: linalg.generic
// CHECK: %[[ROOT:.*]] = arith.constant 0.333333343 : f32
// CHECK-NEXT: math.powf %{{.*}}, %[[ROOT]]
func.func @lp_pool(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %0 = autoglm.lp_pool %x {p = 3 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32>
  return %0 : tensor<1x2x2x2xf32>
}

// -----

// Max pooling with indices: one generic with two accumulators; an element
// replaces the running maximum if it is inside the input and either the
// first one or strictly greater (unsigned compare for ui8).
// CHECK-LABEL: func.func @max_pool_with_indices
// CHECK: %[[NONE:.*]] = arith.constant -1 : i64
// CHECK: %[[IDX:.*]] = linalg.fill ins(%[[NONE]] : i64)
// CHECK: %[[R:.*]]:2 = linalg.generic
// CHECK-SAME: outs(%{{.*}}, %[[IDX]] : tensor<1x1x2x2xi8>, tensor<1x1x2x2xi64>)
// CHECK: ^bb0(%[[IN:.*]]: i8, %{{.*}}: i8, %[[MAX:.*]]: i8, %[[AT:.*]]: i64):
// CHECK: %[[GT:.*]] = arith.cmpi ugt, %[[IN]], %[[MAX]] : i8
// CHECK: %[[FIRST:.*]] = arith.cmpi slt, %[[AT]], %{{.*}} : i64
// CHECK: %[[EITHER:.*]] = arith.ori %[[FIRST]], %[[GT]]
// CHECK: %[[TAKE:.*]] = arith.andi %{{.*}}, %[[EITHER]]
// CHECK: arith.select %[[TAKE]], %[[IN]], %[[MAX]] : i8
// CHECK: arith.select %[[TAKE]], %{{.*}}, %[[AT]] : i64
// CHECK: return %[[R]]#0, %[[R]]#1
func.func @max_pool_with_indices(%x: tensor<1x1x4x5xui8>) -> (tensor<1x1x2x2xui8>, tensor<1x1x2x2xi64>) {
  %0, %1 = autoglm.max_pool_with_indices %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, column_major = true}
      : (tensor<1x1x4x5xui8>) -> (tensor<1x1x2x2xui8>, tensor<1x1x2x2xi64>)
  return %0, %1 : tensor<1x1x2x2xui8>, tensor<1x1x2x2xi64>
}

// -----

// Nearest resizing is a gather through a constant index table per resized
// axis; unchanged axes read their own position.
// CHECK-LABEL: func.func @resize_nearest
// CHECK: %[[TABLE:.*]] = arith.constant dense<[0, 0, 1, 1]> : tensor<4xi64>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%[[TABLE]] : tensor<4xi64>)
// CHECK: ^bb0(%[[ROW:.*]]: i64, %{{.*}}: i8):
// CHECK-DAG: %[[N:.*]] = linalg.index 0
// CHECK-DAG: %[[C:.*]] = linalg.index 1
// CHECK-DAG: %[[W:.*]] = linalg.index 3
// CHECK: %[[H:.*]] = arith.index_cast %[[ROW]] : i64 to index
// CHECK: %[[V:.*]] = tensor.extract %arg0[%[[N]], %[[C]], %[[H]], %[[W]]] : tensor<1x1x2x3xi8>
// CHECK: linalg.yield %[[V]] : i8
func.func @resize_nearest(%x: tensor<1x1x2x3xui8>) -> tensor<1x1x4x3xui8> {
  %0 = autoglm.resize %x {mode = "nearest", coordinate_transformation_mode = "asymmetric", nearest_mode = "floor", scales = array<f64: 1.0, 1.0, 2.0, 1.0>, sizes = array<i64: 1, 1, 4, 3>}
      : (tensor<1x1x2x3xui8>) -> tensor<1x1x4x3xui8>
  return %0 : tensor<1x1x4x3xui8>
}

// -----

// Linear resizing: per resized axis an index and a weight table [out, taps]
// (edge taps clamp and merge; unused taps weigh 0), one reduction loop per
// table, accumulated in f64.
// CHECK-LABEL: func.func @resize_linear
// CHECK-DAG: %[[HI:.*]] = arith.constant dense<{{\[\[}}0, 0], [0, 1], [0, 1], [1, 0]]> : tensor<4x2xi64>
// CHECK-DAG: %[[HW:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00], [7.500000e-01, 2.500000e-01], [2.500000e-01, 7.500000e-01], [1.000000e+00, 0.000000e+00]]> : tensor<4x2xf64>
// CHECK-DAG: %[[WI:.*]] = arith.constant dense<{{\[\[}}0, 0], [0, 1], [1, 0]]> : tensor<3x2xi64>
// CHECK-DAG: %[[WW:.*]] = arith.constant dense<{{\[\[}}1.000000e+00, 0.000000e+00], [5.000000e-01, 5.000000e-01], [1.000000e+00, 0.000000e+00]]> : tensor<3x2xf64>
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]
// CHECK-SAME: ins(%[[HI]], %[[HW]], %[[WI]], %[[WW]] : tensor<4x2xi64>, tensor<4x2xf64>, tensor<3x2xi64>, tensor<3x2xf64>) outs(%{{.*}} : tensor<1x1x4x3xf64>)
// CHECK: tensor.extract %arg0
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic {{.*}} ins(%[[SUM]] : tensor<1x1x4x3xf64>)
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @resize_linear(%x: tensor<1x1x2x2xf32>) -> tensor<1x1x4x3xf32> {
  %0 = autoglm.resize %x {mode = "linear", scales = array<f64: 1.0, 1.0, 2.0, 1.5>, sizes = array<i64: 1, 1, 4, 3>}
      : (tensor<1x1x2x2xf32>) -> tensor<1x1x4x3xf32>
  return %0 : tensor<1x1x4x3xf32>
}

// -----

// Integer results of weighted modes are rounded half to even and saturated.
// CHECK-LABEL: func.func @resize_linear_uint8
// CHECK: %[[R:.*]] = math.roundeven %{{.*}} : f64
// CHECK: %[[LO:.*]] = arith.maximumf %[[R]], %{{.*}} : f64
// CHECK: %[[HI:.*]] = arith.minimumf %[[LO]], %{{.*}} : f64
// CHECK: arith.fptoui %[[HI]] : f64 to i8
func.func @resize_linear_uint8(%x: tensor<1x4xui8>) -> tensor<1x6xui8> {
  %0 = autoglm.resize %x {mode = "linear", scales = array<f64: 1.0, 1.5>, sizes = array<i64: 1, 6>}
      : (tensor<1x4xui8>) -> tensor<1x6xui8>
  return %0 : tensor<1x6xui8>
}

// -----

// tf_crop_and_resize: positions outside the input get extrapolation_value
// through a constant mask per axis.
// CHECK-LABEL: func.func @resize_crop
// CHECK: %[[MASK:.*]] = arith.constant dense<{{\[\[}}false, false, true]]> : tensor<1x3xi1>
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[MASK]] : tensor<1x3xf32>, tensor<1x3xi1>)
// CHECK: %[[FILL:.*]] = arith.constant 5.000000e+00 : f32
// CHECK-NEXT: arith.select %{{.*}}, %[[FILL]], %{{.*}} : f32
func.func @resize_crop(%x: tensor<1x3xf32>) -> tensor<1x3xf32> {
  %0 = autoglm.resize %x {mode = "linear", coordinate_transformation_mode = "tf_crop_and_resize", extrapolation_value = 5.0, scales = array<f64: 1.0, 1.0>, sizes = array<i64: 1, 3>, roi = array<f64: 0.0, 0.5, 1.0, 1.5>}
      : (tensor<1x3xf32>) -> tensor<1x3xf32>
  return %0 : tensor<1x3xf32>
}
