// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// Convolution: zero padding with tensor.pad, a view with an explicit group
// axis ([N, G, C/G, spatial...] and [G, F/G, C/G, kernel...]). An f32
// convolution with several filters per group is a matrix product: a gather
// of every window (im2col, loops n, g, c | kernel... | out spatial...),
// then out[n, g, f, o] = sum_r filter[g, f, r] * col[n, g, r, o].

// CHECK-LABEL: func.func @conv_padded_with_bias
// CHECK-SAME: (%[[X:.*]]: tensor<1x3x8x8xf32> {{.*}}, %[[W:.*]]: tensor<16x3x3x3xf32> {{.*}}, %[[B:.*]]: tensor<16xf32> {{.*}})
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[ZERO]] : f32
// CHECK: } : tensor<1x3x8x8xf32> to tensor<1x3x10x10xf32>
// CHECK: %[[PFLAT:.*]] = tensor.collapse_shape %[[PAD]]
// CHECK: %[[IN5:.*]] = tensor.expand_shape %[[PFLAT]] {{\[\[}}0, 1, 2, 3, 4]] output_shape [1, 1, 3, 10, 10]
// CHECK: %[[WFLAT:.*]] = tensor.collapse_shape %[[W]]
// CHECK: %[[W5:.*]] = tensor.expand_shape %[[WFLAT]] {{\[\[}}0, 1, 2, 3, 4]] output_shape [1, 16, 3, 3, 3]
// The accumulator starts as the bias, broadcast over the output.
// CHECK: %[[B5:.*]] = tensor.expand_shape %[[B]] {{\[\[}}0, 1, 2, 3, 4]] output_shape [1, 1, 16, 1, 1]
// CHECK: %[[ACC:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, 0)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>]
// CHECK-SAME: ins(%[[B5]] : tensor<1x1x16x1x1xf32>)
// CHECK-NEXT: ^bb0(%[[BV:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[BV]]
// CHECK: %[[COL:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3 + d5, d4 + d6)>, affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>]
// CHECK-SAME: ins(%[[IN5]] : tensor<1x1x3x10x10xf32>) outs(%{{.*}} : tensor<1x1x3x3x3x8x8xf32>)
// CHECK: %[[COL4:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 1, 27, 64]
// CHECK: %[[W3:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 16, 27]
// CHECK: %[[ACC4:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 1, 16, 64]
// CHECK: %[[CONV:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]
// CHECK-SAME: ins(%[[W3]], %[[COL4]] : tensor<1x16x27xf32>, tensor<1x1x27x64xf32>) outs(%[[ACC4]] : tensor<1x1x16x64xf32>)
// CHECK-NEXT: ^bb0(%[[F:.*]]: f32, %[[I:.*]]: f32, %[[O:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[F]], %[[I]]
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[O]], %[[P]]
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: tensor.collapse_shape %[[CONV]]
// CHECK: %[[R:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] output_shape [1, 16, 8, 8]
// CHECK: return %[[R]] : tensor<1x16x8x8xf32>
func.func @conv_padded_with_bias(%x: tensor<1x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %0 = autoglm.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>, dilations = array<i64: 1, 1>}
      : (tensor<1x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<1x16x8x8xf32>
  return %0 : tensor<1x16x8x8xf32>
}

// -----

// A 1x1 convolution with unit strides reads its input as the matrix
// [C, H * W]: no gather.
// CHECK-LABEL: func.func @conv_pointwise
// CHECK-NOT: tensor.pad
// CHECK: %[[IN:.*]] = tensor.expand_shape %{{.*}} output_shape [2, 1, 8, 6]
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[IN]] : tensor<1x4x8xf32>, tensor<2x1x8x6xf32>) outs(%{{.*}} : tensor<2x1x4x6xf32>)
// CHECK: tensor.expand_shape {{.*}} output_shape [2, 4, 2, 3]
func.func @conv_pointwise(%x: tensor<2x8x2x3xf32>, %w: tensor<4x8x1x1xf32>) -> tensor<2x4x2x3xf32> {
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<2x8x2x3xf32>, tensor<4x8x1x1xf32>) -> tensor<2x4x2x3xf32>
  return %0 : tensor<2x4x2x3xf32>
}

// -----

// Asymmetric padding pads each side by its own amount.
// CHECK-LABEL: func.func @conv_asymmetric_padding
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 1] high[0, 0, 1, 2]
// CHECK: } : tensor<1x1x4x4xf32> to tensor<1x1x5x7xf32>
func.func @conv_asymmetric_padding(%x: tensor<1x1x4x4xf32>, %w: tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32> {
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 1, 1, 2>, dilations = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>, tensor<1x1x2x2xf32>) -> tensor<1x1x4x6xf32>
  return %0 : tensor<1x1x4x6xf32>
}

// -----

// Depthwise 1-D convolution with stride and dilation: 8 groups of one
// channel, no padding, a zero-filled accumulator. With one filter per group
// there is no matrix product to speak of: one generic over loops
// (n, g, f | c, kernel... | out spatial...).
// CHECK-LABEL: func.func @conv_depthwise_strided_dilated
// CHECK-NOT: tensor.pad
// CHECK: tensor.expand_shape {{.*}} output_shape [1, 8, 1, 10]
// CHECK: tensor.expand_shape {{.*}} output_shape [8, 1, 1, 3]
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%{{.*}} : tensor<1x8x1x3xf32>)
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d3, d5 * 2 + d4 * 2)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d1, d2, d3, d4)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]
// CHECK-SAME: outs(%[[ACC]] : tensor<1x8x1x3xf32>)
// CHECK: tensor.expand_shape {{.*}} output_shape [1, 8, 3]
func.func @conv_depthwise_strided_dilated(%x: tensor<1x8x10xf32>, %w: tensor<8x1x3xf32>) -> tensor<1x8x3xf32> {
  %0 = autoglm.conv %x, %w {strides = array<i64: 2>, pads = array<i64: 0, 0>, dilations = array<i64: 2>, group = 8 : i64}
      : (tensor<1x8x10xf32>, tensor<8x1x3xf32>) -> tensor<1x8x3xf32>
  return %0 : tensor<1x8x3xf32>
}

// -----

// Grouped convolution: 4 input channels in 2 groups, 6 filters (3 per group).
// CHECK-LABEL: func.func @conv_grouped
// CHECK: tensor.expand_shape {{.*}} output_shape [1, 2, 2, 5, 5]
// CHECK: tensor.expand_shape {{.*}} output_shape [2, 3, 2, 1, 1]
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<1x2x3x5x5xf32>)
// CHECK: tensor.expand_shape {{.*}} output_shape [1, 6, 5, 5]
func.func @conv_grouped(%x: tensor<1x4x5x5xf32>, %w: tensor<6x2x1x1xf32>) -> tensor<1x6x5x5xf32> {
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, group = 2 : i64}
      : (tensor<1x4x5x5xf32>, tensor<6x2x1x1xf32>) -> tensor<1x6x5x5xf32>
  return %0 : tensor<1x6x5x5xf32>
}

// -----

// Max pooling pads with -inf and starts from -inf. The window is a
// shape-only operand; loops are (n, c | kernel... | out spatial...). With
// ceil_mode the last window reaches one past the input, so the end is padded
// by one more.
// CHECK-LABEL: func.func @max_pool_ceil
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x5x5xf32> {{.*}})
// CHECK: %[[NINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: %[[PAD:.*]] = tensor.pad %[[X]] low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[NINF]]
// CHECK: } : tensor<1x2x5x5xf32> to tensor<1x2x6x6xf32>
// CHECK-DAG: %[[WIN:.*]] = tensor.empty() : tensor<2x2xf32>
// CHECK-DAG: %[[INIT:.*]] = arith.constant 0xFF800000 : f32
// CHECK-DAG: %[[ACC:.*]] = linalg.fill ins(%[[INIT]] : f32) outs(%{{.*}} : tensor<1x2x3x3xf32>)
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]
// CHECK-SAME: ins(%[[PAD]], %[[WIN]] : tensor<1x2x6x6xf32>, tensor<2x2xf32>) outs(%[[ACC]] : tensor<1x2x3x3xf32>)
// CHECK-NEXT: ^bb0(%[[I:.*]]: f32, %{{.*}}: f32, %[[O:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[O]], %[[I]]
// CHECK-NEXT: linalg.yield %[[M]]
// CHECK: return %[[R]]
func.func @max_pool_ceil(%x: tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32> {
  %0 = autoglm.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                            dilations = array<i64: 1, 1>, ceil_mode = true} : (tensor<1x2x5x5xf32>) -> tensor<1x2x3x3xf32>
  return %0 : tensor<1x2x3x3xf32>
}

// -----

// Dilation spreads the window: input index = out * stride + k * dilation.
// CHECK-LABEL: func.func @max_pool_dilated
// CHECK-NOT: tensor.pad
// CHECK: linalg.generic
// CHECK-SAME: affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2 * 2, d5 + d3 * 3)>
func.func @max_pool_dilated(%x: tensor<1x1x6x7xf32>) -> tensor<1x1x4x4xf32> {
  %0 = autoglm.max_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>,
                            dilations = array<i64: 2, 3>} : (tensor<1x1x6x7xf32>) -> tensor<1x1x4x4xf32>
  return %0 : tensor<1x1x4x4xf32>
}

// -----

// Average pooling sums over zero padding, then divides by a constant table
// of how many input positions each window covered (corners 4, edges 6,
// centre 9 for a 3x3 window over a 3x3 input padded by 1).
// CHECK-LABEL: func.func @average_pool_excludes_padding
// CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]
// CHECK-NEXT: ^bb0(%[[I:.*]]: f32, %{{.*}}: f32, %[[O:.*]]: f32):
// CHECK-NEXT: arith.addf %[[O]], %[[I]]
// CHECK: %[[COUNTS:.*]] = arith.constant dense<{{\[\[\[\[}}4.000000e+00, 6.000000e+00, 4.000000e+00], [6.000000e+00, 9.000000e+00, 6.000000e+00], [4.000000e+00, 6.000000e+00, 4.000000e+00]]]]> : tensor<1x1x3x3xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: ins(%[[SUM]], %[[COUNTS]] : tensor<1x1x3x3xf32>, tensor<1x1x3x3xf32>)
// CHECK-NEXT: ^bb0(%[[S:.*]]: f32, %[[N:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[D:.*]] = arith.divf %[[S]], %[[N]]
// CHECK-NEXT: linalg.yield %[[D]]
// CHECK: return %[[R]]
func.func @average_pool_excludes_padding(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %0 = autoglm.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                                dilations = array<i64: 1, 1>} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// count_include_pad counts the padding too.
// CHECK-LABEL: func.func @average_pool_includes_padding
// CHECK: arith.constant dense<9.000000e+00> : tensor<1x1x3x3xf32>
// CHECK: arith.divf
func.func @average_pool_includes_padding(%x: tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32> {
  %0 = autoglm.average_pool %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 1, 1, 1, 1>,
                                dilations = array<i64: 1, 1>, count_include_pad = true} : (tensor<1x1x3x3xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}

// -----

// The extra end padding of ceil_mode is never counted, even with
// count_include_pad: the last window of 5 positions covers one.
// CHECK-LABEL: func.func @average_pool_ceil
// CHECK: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 1, 1]
// CHECK: arith.constant dense<{{\[\[\[\[}}4.000000e+00, 4.000000e+00, 2.000000e+00], [4.000000e+00, 4.000000e+00, 2.000000e+00], [2.000000e+00, 2.000000e+00, 1.000000e+00]]]]> : tensor<1x1x3x3xf32>
func.func @average_pool_ceil(%x: tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32> {
  %0 = autoglm.average_pool %x {kernel_shape = array<i64: 2, 2>, strides = array<i64: 2, 2>, pads = array<i64: 0, 0, 0, 0>,
                                dilations = array<i64: 1, 1>, ceil_mode = true, count_include_pad = true}
      : (tensor<1x1x5x5xf32>) -> tensor<1x1x3x3xf32>
  return %0 : tensor<1x1x3x3xf32>
}
