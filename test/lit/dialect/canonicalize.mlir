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
