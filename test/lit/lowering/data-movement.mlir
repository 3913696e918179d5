// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// Constants become arith.constant on signless types: unsigned values keep
// their bits, resource blobs keep their handle (no copy of the weights).
// CHECK-LABEL: func.func @constants
// CHECK-SAME: () -> (tensor<2xi8>, tensor<2xf32>, tensor<3xi64>)
// CHECK-DAG: %[[U:.*]] = arith.constant dense<[-56, 7]> : tensor<2xi8>
// CHECK-DAG: %[[W:.*]] = arith.constant dense_resource<w1> : tensor<2xf32>
// CHECK-DAG: %[[I:.*]] = arith.constant dense<[1, 2, 3]> : tensor<3xi64>
// CHECK-NOT: autoglm.
// CHECK: return %[[U]], %[[W]], %[[I]]
func.func @constants() -> (tensor<2xui8>, tensor<2xf32>, tensor<3xi64>) {
  %0 = autoglm.constant dense<[200, 7]> : tensor<2xui8>
  %1 = autoglm.constant dense_resource<w1> : tensor<2xf32>
  %2 = autoglm.constant dense<[1, 2, 3]> : tensor<3xi64>
  return %0, %1, %2 : tensor<2xui8>, tensor<2xf32>, tensor<3xi64>
}

{-#
  dialect_resources: {
    builtin: {
      w1: "0x040000000000803F00000040"
    }
  }
#-}

// -----

// CHECK-LABEL: func.func @shape
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<[3, 4]> : tensor<2xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape(%x: tensor<2x3x4xf32>) -> tensor<2xi64> {
  %0 = autoglm.shape %x {start = 1 : i64, end = 3 : i64} : (tensor<2x3x4xf32>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// Reshapes go through the 1-D view: collapse everything, expand to the
// target. Rank 0 uses empty reassociations.
// CHECK-LABEL: func.func @reshapes
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32> {{.*}}, %[[S:.*]]: tensor<f32> {{.*}}, %[[V:.*]]: tensor<6xf32> {{.*}})
// CHECK: %[[F0:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[R0:.*]] = tensor.expand_shape %[[F0]] {{\[\[}}0, 1]] output_shape [6, 4] : tensor<24xf32> into tensor<6x4xf32>
// CHECK: %[[F1:.*]] = tensor.expand_shape %[[S]] [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: %[[R1:.*]] = tensor.expand_shape %[[F1]] {{\[\[}}0, 1]] output_shape [1, 1] : tensor<1xf32> into tensor<1x1xf32>
// CHECK: %[[R2:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2]] : tensor<2x3x4xf32> into tensor<24xf32>
// CHECK: %[[R3:.*]] = tensor.expand_shape %[[V]] {{\[\[}}0, 1, 2]] output_shape [1, 6, 1] : tensor<6xf32> into tensor<1x6x1xf32>
// CHECK: %[[F4:.*]] = tensor.collapse_shape %[[X]]
// CHECK: %[[R4:.*]] = tensor.expand_shape %[[F4]] {{\[\[}}0, 1]] output_shape [2, 12]
// CHECK: return %[[R0]], %[[R1]], %[[R2]], %[[R3]], %[[R4]]
func.func @reshapes(%x: tensor<2x3x4xf32>, %s: tensor<f32>, %v: tensor<6xf32>)
    -> (tensor<6x4xf32>, tensor<1x1xf32>, tensor<24xf32>, tensor<1x6x1xf32>, tensor<2x12xf32>) {
  %0 = autoglm.reshape %x : (tensor<2x3x4xf32>) -> tensor<6x4xf32>
  %1 = autoglm.reshape %s : (tensor<f32>) -> tensor<1x1xf32>
  %2 = autoglm.reshape %x : (tensor<2x3x4xf32>) -> tensor<24xf32>
  %3 = autoglm.unsqueeze %v {axes = array<i64: 0, 2>} : (tensor<6xf32>) -> tensor<1x6x1xf32>
  %4 = autoglm.flatten %x {axis = 1 : i64} : (tensor<2x3x4xf32>) -> tensor<2x12xf32>
  return %0, %1, %2, %3, %4 : tensor<6x4xf32>, tensor<1x1xf32>, tensor<24xf32>, tensor<1x6x1xf32>, tensor<2x12xf32>
}

// -----

// To rank 0: collapse with an empty reassociation.
// CHECK-LABEL: func.func @squeeze_to_scalar
// CHECK-SAME: (%[[X:.*]]: tensor<1x1xf32> {{.*}})
// CHECK: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<1x1xf32> into tensor<1xf32>
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[F]] [] : tensor<1xf32> into tensor<f32>
// CHECK: return %[[R]]
func.func @squeeze_to_scalar(%x: tensor<1x1xf32>) -> tensor<f32> {
  %0 = autoglm.squeeze %x {axes = array<i64: 0, 1>} : (tensor<1x1xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xi8> {{.*}}) -> tensor<4x2x3xi8>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x2x3xi8>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X]] : tensor<2x3x4xi8>) outs(%[[INIT]] : tensor<4x2x3xi8>) permutation = [2, 0, 1]
// CHECK: return %[[T]]
func.func @transpose(%x: tensor<2x3x4xui8>) -> tensor<4x2x3xui8> {
  %0 = autoglm.transpose %x {perm = array<i64: 2, 0, 1>} : (tensor<2x3x4xui8>) -> tensor<4x2x3xui8>
  return %0 : tensor<4x2x3xui8>
}

// -----

// Concat inserts each input at its offset; empty inputs are skipped.
// CHECK-LABEL: func.func @concat
// CHECK-SAME: (%[[A:.*]]: tensor<2x3xf32> {{.*}}, %[[B:.*]]: tensor<2x0xf32> {{.*}}, %[[C:.*]]: tensor<2x2xf32> {{.*}})
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<2x5xf32>
// CHECK: %[[S0:.*]] = tensor.insert_slice %[[A]] into %[[INIT]][0, 0] [2, 3] [1, 1] : tensor<2x3xf32> into tensor<2x5xf32>
// CHECK-NOT: %[[B]]
// CHECK: %[[S1:.*]] = tensor.insert_slice %[[C]] into %[[S0]][0, 3] [2, 2] [1, 1] : tensor<2x2xf32> into tensor<2x5xf32>
// CHECK: return %[[S1]]
func.func @concat(%a: tensor<2x3xf32>, %b: tensor<2x0xf32>, %c: tensor<2x2xf32>) -> tensor<2x5xf32> {
  %0 = autoglm.concat %a, %b, %c {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x0xf32>, tensor<2x2xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

// Positive steps: a strided view.
// CHECK-LABEL: func.func @slice_forward
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32> {{.*}})
// CHECK: %[[S:.*]] = tensor.extract_slice %[[X]][1, 2] [2, 3] [1, 2] : tensor<4x8xf32> to tensor<2x3xf32>
// CHECK: return %[[S]]
func.func @slice_forward(%x: tensor<4x8xf32>) -> tensor<2x3xf32> {
  %0 = autoglm.slice %x {starts = array<i64: 1, 2>, ends = array<i64: 3, 8>, steps = array<i64: 1, 2>} : (tensor<4x8xf32>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// A negative step reads backwards: source index = start + i * step, computed
// from linalg.index in a generic.
// CHECK-LABEL: func.func @slice_backward
// CHECK-SAME: (%[[X:.*]]: tensor<4x8xf32> {{.*}})
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: outs(%{{.*}} : tensor<2x8xf32>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: %[[J:.*]] = linalg.index 1 : index
// CHECK-DAG: %[[STEP:.*]] = arith.constant -2 : index
// CHECK-DAG: %[[START:.*]] = arith.constant 3 : index
// CHECK: %[[OFF:.*]] = arith.muli %[[I]], %[[STEP]] : index
// CHECK: %[[ROW:.*]] = arith.addi %[[START]], %[[OFF]] : index
// CHECK: %[[COL:.*]] = arith.addi
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<4x8xf32>
// CHECK: linalg.yield %[[V]]
func.func @slice_backward(%x: tensor<4x8xf32>) -> tensor<2x8xf32> {
  %0 = autoglm.slice %x {starts = array<i64: 3, 0>, ends = array<i64: -1, 8>, steps = array<i64: -2, 1>} : (tensor<4x8xf32>) -> tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Gather reads the index tensor through the generic and extracts from the
// data; negative indices wrap and out-of-range ones are clamped.
// CHECK-LABEL: func.func @gather_axis0
// CHECK-SAME: (%[[T:.*]]: tensor<10x4xf32> {{.*}}, %[[IDS:.*]]: tensor<2x3xi64> {{.*}})
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-SAME: ins(%[[IDS]] : tensor<2x3xi64>) outs(%{{.*}} : tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[ID:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[K:.*]] = linalg.index 2 : index
// CHECK: %[[IX:.*]] = arith.index_cast %[[ID]] : i64 to index
// CHECK-DAG: %[[N:.*]] = arith.constant 10 : index
// CHECK-DAG: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[LAST:.*]] = arith.constant 9 : index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[IX]], %[[ZERO]] : index
// CHECK: %[[WRAP:.*]] = arith.addi %[[IX]], %[[N]] : index
// CHECK: %[[SEL:.*]] = arith.select %[[NEG]], %[[WRAP]], %[[IX]] : index
// CHECK: %[[LO:.*]] = arith.minsi %[[SEL]], %[[LAST]] : index
// CHECK: %[[CL:.*]] = arith.maxsi %[[LO]], %[[ZERO]] : index
// CHECK: %[[V:.*]] = tensor.extract %[[T]][%[[CL]], %[[K]]] : tensor<10x4xf32>
// CHECK: linalg.yield %[[V]]
func.func @gather_axis0(%t: tensor<10x4xf32>, %i: tensor<2x3xi64>) -> tensor<2x3x4xf32> {
  %0 = autoglm.gather %t, %i {axis = 0 : i64} : (tensor<10x4xf32>, tensor<2x3xi64>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// Along axis 1 the index tensor maps to loop 1; loop 0 indexes the data.
// CHECK-LABEL: func.func @gather_axis1
// CHECK-SAME: (%[[T:.*]]: tensor<10x4xf32> {{.*}}, %[[IDS:.*]]: tensor<3xi32> {{.*}})
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: arith.index_cast %{{.*}} : i32 to index
// CHECK: arith.constant 4 : index
// CHECK: %[[CL:.*]] = arith.maxsi
// CHECK: tensor.extract %[[T]][%[[ROW]], %[[CL]]] : tensor<10x4xf32>
func.func @gather_axis1(%t: tensor<10x4xf32>, %i: tensor<3xi32>) -> tensor<10x3xf32> {
  %0 = autoglm.gather %t, %i {axis = 1 : i64} : (tensor<10x4xf32>, tensor<3xi32>) -> tensor<10x3xf32>
  return %0 : tensor<10x3xf32>
}

// -----

// Expand is a broadcasting copy.
// CHECK-LABEL: func.func @expand
// CHECK-SAME: (%[[X:.*]]: tensor<3x1xf32> {{.*}})
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d1, 0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK-SAME: ins(%[[X]] : tensor<3x1xf32>) outs(%{{.*}} : tensor<2x3x4xf32>)
// CHECK-NEXT: ^bb0(%[[V:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[V]] : f32
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %0 = autoglm.expand %x {shape = array<i64: 2, 1, 4>} : (tensor<3x1xf32>) -> tensor<2x3x4xf32>
  return %0 : tensor<2x3x4xf32>
}

// -----

// CHECK-LABEL: func.func @pad
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {{.*}}, %[[I:.*]]: tensor<4xi32> {{.*}})
// CHECK: %[[V:.*]] = arith.constant 1.500000e+00 : f32
// CHECK: %[[P0:.*]] = tensor.pad %[[X]] low[1, 2] high[0, 1]
// CHECK: tensor.yield %[[V]] : f32
// CHECK: } : tensor<2x3xf32> to tensor<3x6xf32>
// Integer padding values are integers.
// CHECK: %[[IV:.*]] = arith.constant -3 : i32
// CHECK: %[[P1:.*]] = tensor.pad %[[I]] low[1] high[1]
// CHECK: tensor.yield %[[IV]] : i32
// CHECK: } : tensor<4xi32> to tensor<6xi32>
// CHECK: return %[[P0]], %[[P1]]
func.func @pad(%x: tensor<2x3xf32>, %i: tensor<4xi32>) -> (tensor<3x6xf32>, tensor<6xi32>) {
  %0 = autoglm.pad %x {pads = array<i64: 1, 2, 0, 1>, value = 1.5 : f64} : (tensor<2x3xf32>) -> tensor<3x6xf32>
  %1 = autoglm.pad %i {pads = array<i64: 1, 1>, value = -3.0 : f64} : (tensor<4xi32>) -> tensor<6xi32>
  return %0, %1 : tensor<3x6xf32>, tensor<6xi32>
}

// -----

// Negative amounts crop with extract_slice first; the rest is padded.
// CHECK-LABEL: func.func @pad_crop
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {{.*}})
// CHECK: %[[C:.*]] = tensor.extract_slice %[[X]][1, 0] [1, 2] [1, 1] : tensor<2x3xf32> to tensor<1x2xf32>
// CHECK: %[[P:.*]] = tensor.pad %[[C]] low[0, 2] high[0, 0]
// CHECK: } : tensor<1x2xf32> to tensor<1x4xf32>
// CHECK: return %[[P]]
func.func @pad_crop(%x: tensor<2x3xf32>) -> tensor<1x4xf32> {
  %0 = autoglm.pad %x {pads = array<i64: -1, 2, 0, -1>} : (tensor<2x3xf32>) -> tensor<1x4xf32>
  return %0 : tensor<1x4xf32>
}
