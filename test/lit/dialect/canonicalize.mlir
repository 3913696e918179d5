// RUN: autoglm-opt %s --split-input-file --canonicalize | FileCheck %s

// Unsqueeze, Squeeze and Flatten become plain reshapes.
// CHECK-LABEL: func.func @reshape_like_to_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>, %[[Y:.*]]: tensor<1x8x1xf32>, %[[Z:.*]]: tensor<2x3x4xf32>)
// CHECK-DAG: %[[U:.*]] = autoglm.reshape %[[X]] : (tensor<8xf32>) -> tensor<1x8xf32>
// CHECK-DAG: %[[S:.*]] = autoglm.reshape %[[Y]] : (tensor<1x8x1xf32>) -> tensor<8xf32>
// CHECK-DAG: %[[F:.*]] = autoglm.reshape %[[Z]] : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
// CHECK-NOT: autoglm.{{unsqueeze|squeeze|flatten}}
// CHECK: return %[[U]], %[[S]], %[[F]]
func.func @reshape_like_to_reshape(%x: tensor<8xf32>, %y: tensor<1x8x1xf32>, %z: tensor<2x3x4xf32>)
    -> (tensor<1x8xf32>, tensor<8xf32>, tensor<2x12xf32>) {
  %0 = autoglm.unsqueeze %x {axes = array<i64: 0>} : (tensor<8xf32>) -> tensor<1x8xf32>
  %1 = autoglm.squeeze %y {axes = array<i64: 0, 2>} : (tensor<1x8x1xf32>) -> tensor<8xf32>
  %2 = autoglm.flatten %z {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %0, %1, %2 : tensor<1x8xf32>, tensor<8xf32>, tensor<2x12xf32>
}

// -----

// Ops that do not change the type fold away.
// CHECK-LABEL: func.func @identities
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32>, %[[V:.*]]: tensor<8xf32>)
// CHECK-NOT: autoglm.
// CHECK: return %[[X]], %[[V]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]], %[[X]]
func.func @identities(%x: tensor<2x3xf32>, %v: tensor<8xf32>)
    -> (tensor<2x3xf32>, tensor<8xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
        tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) {
  %0 = autoglm.reshape %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %1 = autoglm.unsqueeze %v {axes = array<i64>} : (tensor<8xf32>) -> tensor<8xf32>
  %2 = autoglm.transpose %x {perm = array<i64: 0, 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %3 = autoglm.cast %x {to = f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %4 = autoglm.slice %x {starts = array<i64: 0, 0>, ends = array<i64: 2, 3>, steps = array<i64: 1, 1>}
      : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %5 = autoglm.concat %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %6 = autoglm.expand %x {shape = array<i64: 1, 3>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %7 = autoglm.squeeze %x {axes = array<i64>} : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<2x3xf32>, tensor<8xf32>, tensor<2x3xf32>, tensor<2x3xf32>,
      tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>
}

// -----

// A full-extent slice that reverses is not the identity.
// CHECK-LABEL: func.func @reversing_slice_stays
// CHECK: autoglm.slice
func.func @reversing_slice_stays(%x: tensor<3xf32>) -> tensor<3xf32> {
  %0 = autoglm.slice %x {starts = array<i64: 2>, ends = array<i64: -1>, steps = array<i64: -1>}
      : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

// A real permutation stays.
// CHECK-LABEL: func.func @transpose_stays
// CHECK: autoglm.transpose %{{.*}} {perm = array<i64: 1, 0>}
func.func @transpose_stays(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  %0 = autoglm.transpose %x {perm = array<i64: 1, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Only the last shape of a reshape chain matters; a chain back to the
// original shape disappears. The intermediate reshape stays while it has
// another user.
// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-DAG: %[[FLAT:.*]] = autoglm.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<24xf32>
// CHECK-DAG: %[[A:.*]] = autoglm.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
// CHECK-DAG: %[[B:.*]] = autoglm.reshape %[[X]] : (tensor<2x3x4xf32>) -> tensor<4x6xf32>
// CHECK-DAG: %[[E:.*]] = autoglm.exp %[[FLAT]] : tensor<24xf32>
// CHECK: return %[[A]], %[[X]], %[[B]], %[[E]]
func.func @reshape_of_reshape(%x: tensor<2x3x4xf32>)
    -> (tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<4x6xf32>, tensor<24xf32>) {
  %0 = autoglm.reshape %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %1 = autoglm.reshape %0 : (tensor<24xf32>) -> tensor<6x4xf32>
  %2 = autoglm.reshape %1 : (tensor<6x4xf32>) -> tensor<2x3x4xf32>
  %3 = autoglm.reshape %0 : (tensor<24xf32>) -> tensor<4x6xf32>
  %4 = autoglm.exp %0 : tensor<24xf32>
  return %1, %2, %3, %4 : tensor<6x4xf32>, tensor<2x3x4xf32>, tensor<4x6xf32>, tensor<24xf32>
}

// -----

// Unsqueeze then squeeze: both become reshapes, which then cancel.
// CHECK-LABEL: func.func @unsqueeze_squeeze
// CHECK-SAME: (%[[X:.*]]: tensor<8xf32>)
// CHECK-NEXT: return %[[X]] : tensor<8xf32>
func.func @unsqueeze_squeeze(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = autoglm.unsqueeze %x {axes = array<i64: 0, 2>} : (tensor<8xf32>) -> tensor<1x8x1xf32>
  %1 = autoglm.squeeze %0 {axes = array<i64: 0, 2>} : (tensor<1x8x1xf32>) -> tensor<8xf32>
  return %1 : tensor<8xf32>
}

// -----

// Dead pure ops go away; equal constants are merged.
// CHECK-LABEL: func.func @dce_and_constant_dedup
// CHECK-NEXT: %[[C:.*]] = autoglm.constant dense<[1, 2]> : tensor<2xi64>
// CHECK-NEXT: return %[[C]], %[[C]]
func.func @dce_and_constant_dedup(%x: tensor<4xf32>) -> (tensor<2xi64>, tensor<2xi64>) {
  %dead = autoglm.exp %x : tensor<4xf32>
  %a = autoglm.constant dense<[1, 2]> : tensor<2xi64>
  %b = autoglm.constant dense<[1, 2]> : tensor<2xi64>
  return %a, %b : tensor<2xi64>, tensor<2xi64>
}

// -----

// BatchNorm after a convolution with constant weights folds into them:
// s = gamma / sqrt(var + eps) = [2, 2], filter' = filter * s = [2, 4],
// bias' = (bias - mean) * s + beta = [1, -3]. The new weights are resource
// blobs (little-endian f32 after the 4-byte alignment word).
// CHECK-LABEL: func.func @batch_norm_into_conv
// CHECK-DAG: %[[B:.*]] = autoglm.constant dense_resource<batch_norm_folded_bias> : tensor<2xf32>
// CHECK-DAG: %[[W:.*]] = autoglm.constant dense_resource<batch_norm_folded_filter> : tensor<2x1x1x1xf32>
// CHECK: %[[Y:.*]] = autoglm.conv %{{.*}}, %[[W]], %[[B]]
// CHECK-NOT: autoglm.batch_norm
// CHECK: return %[[Y]]
// CHECK: batch_norm_folded_filter: "0x040000000000004000008040"
// CHECK: batch_norm_folded_bias: "0x040000000000803F000040C0"
func.func @batch_norm_into_conv(%x: tensor<1x1x4x4xf32>) -> tensor<1x2x4x4xf32> {
  %w = autoglm.constant dense<[[[[1.0]]], [[[2.0]]]]> : tensor<2x1x1x1xf32>
  %b = autoglm.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %gamma = autoglm.constant dense<[4.0, 6.0]> : tensor<2xf32>
  %beta = autoglm.constant dense<[1.0, 1.0]> : tensor<2xf32>
  %mean = autoglm.constant dense<[0.5, 1.0]> : tensor<2xf32>
  %var = autoglm.constant dense<[3.0, 8.0]> : tensor<2xf32>
  %0 = autoglm.conv %x, %w, %b {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>, tensor<2x1x1x1xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  %1 = autoglm.batch_norm %0, %gamma, %beta, %mean, %var {epsilon = 1.0 : f32}
      : (tensor<1x2x4x4xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x2x4x4xf32>
  return %1 : tensor<1x2x4x4xf32>
}

// -----

// Not folded: the convolution's output is used elsewhere too, or the
// BatchNorm's statistics are not constants.
// CHECK-LABEL: func.func @batch_norm_kept
// CHECK-COUNT-2: autoglm.batch_norm
func.func @batch_norm_kept(%x: tensor<1x1x4x4xf32>, %mean: tensor<1xf32>) -> (tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>) {
  %w = autoglm.constant dense<[[[[1.0]]]]> : tensor<1x1x1x1xf32>
  %c = autoglm.constant dense<[1.0]> : tensor<1xf32>
  %0 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  %1 = autoglm.batch_norm %0, %c, %c, %c, %c : (tensor<1x1x4x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  %2 = autoglm.conv %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>, tensor<1x1x1x1xf32>) -> tensor<1x1x4x4xf32>
  %3 = autoglm.batch_norm %2, %c, %c, %mean, %c : (tensor<1x1x4x4xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x1x4x4xf32>
  return %0, %1, %3 : tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>, tensor<1x1x4x4xf32>
}
