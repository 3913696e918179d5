// RUN: autoglm-opt %s --split-input-file --autoglm-contiguous-reshapes | FileCheck %s --implicit-check-not=memref.expand_shape --implicit-check-not=memref.collapse_shape

// An expansion with symbolic extents of an identity-layout buffer is the
// same buffer with row-major strides: [4 * b, b, 1] for [a, 4, b].
// CHECK-LABEL: func.func @expand
// CHECK-SAME: (%[[M:.*]]: memref<?xf32>, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[S1:.*]] = arith.muli %[[ONE]], %[[B]] : index
// CHECK-NEXT: %[[C4:.*]] = arith.constant 4 : index
// CHECK-NEXT: %[[S0:.*]] = arith.muli %[[S1]], %[[C4]] : index
// CHECK: %[[R:.*]] = memref.reinterpret_cast %[[M]] to offset: [0], sizes: [%[[A]], 4, %[[B]]], strides: [%[[S0]], %[[S1]], 1] : memref<?xf32> to memref<?x4x?xf32>
// CHECK-NEXT: return %[[R]]
func.func @expand(%m: memref<?xf32>, %a: index, %b: index) -> memref<?x4x?xf32> {
  %0 = memref.expand_shape %m [[0, 1, 2]] output_shape [%a, 4, %b] : memref<?xf32> into memref<?x4x?xf32>
  return %0 : memref<?x4x?xf32>
}

// -----

// A collapse: each group's extent is the product of the source extents in
// it, read with memref.dim: sizes [d0 * 4, d2 * 2], strides [d2 * 2, 1].
// CHECK-LABEL: func.func @collapse
// CHECK-SAME: (%[[M:.*]]: memref<?x4x?x2xf32>)
// CHECK: %[[D0:.*]] = memref.dim %[[M]], %{{.*}} : memref<?x4x?x2xf32>
// CHECK: %[[G0A:.*]] = arith.muli %{{.*}}, %[[D0]] : index
// CHECK: %[[G0:.*]] = arith.muli %[[G0A]], %{{.*}} : index
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[D2:.*]] = memref.dim %[[M]], %[[C2]] : memref<?x4x?x2xf32>
// CHECK: %[[G1A:.*]] = arith.muli %{{.*}}, %[[D2]] : index
// CHECK: %[[G1:.*]] = arith.muli %[[G1A]], %{{.*}} : index
// CHECK: %[[S0:.*]] = arith.muli %{{.*}}, %[[G1]] : index
// CHECK: %[[R:.*]] = memref.reinterpret_cast %[[M]] to offset: [0], sizes: [%[[G0]], %[[G1]]], strides: [%[[S0]], 1] : memref<?x4x?x2xf32> to memref<?x?xf32>
// CHECK-NEXT: return %[[R]]
func.func @collapse(%m: memref<?x4x?x2xf32>) -> memref<?x?xf32> {
  %0 = memref.collapse_shape %m [[0, 1], [2, 3]] : memref<?x4x?x2xf32> into memref<?x?xf32>
  return %0 : memref<?x?xf32>
}

// -----

// Static extents in the strides fold to constants: [4, 4, 1].
// CHECK-LABEL: func.func @expand_unit
// CHECK-SAME: (%[[M:.*]]: memref<?x4xf32>, %[[N:.*]]: index)
// CHECK: memref.reinterpret_cast %[[M]] to offset: [0], sizes: [%[[N]], 1, 4], strides: [4, 4, 1] : memref<?x4xf32> to memref<?x1x4xf32>
func.func @expand_unit(%m: memref<?x4xf32>, %n: index) -> memref<?x1x4xf32> {
  %0 = memref.expand_shape %m [[0, 1], [2]] output_shape [%n, 1, 4] : memref<?x4xf32> into memref<?x1x4xf32>
  return %0 : memref<?x1x4xf32>
}

// -----

// The collapse then expand that the lowering makes of a symbolic reshape
// both become views of the same buffer.
// CHECK-LABEL: func.func @collapse_expand
// CHECK-SAME: (%[[M:.*]]: memref<?x?x256xf32>, %[[A:.*]]: index, %[[B:.*]]: index)
// CHECK: %[[D0:.*]] = memref.dim %[[M]], %{{.*}} : memref<?x?x256xf32>
// CHECK: %[[P0:.*]] = arith.muli %{{.*}}, %[[D0]] : index
// CHECK: %[[D1:.*]] = memref.dim %[[M]], %{{.*}} : memref<?x?x256xf32>
// CHECK-NEXT: %[[P1:.*]] = arith.muli %[[P0]], %[[D1]] : index
// CHECK-NEXT: %[[C256:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[N:.*]] = arith.muli %[[P1]], %[[C256]] : index
// CHECK: %[[FLAT:.*]] = memref.reinterpret_cast %[[M]] to offset: [0], sizes: [%[[N]]], strides: [1] : memref<?x?x256xf32> to memref<?xf32>
// CHECK: %[[S0:.*]] = arith.muli %{{.*}}, %[[B]] : index
// CHECK: %[[R:.*]] = memref.reinterpret_cast %[[FLAT]] to offset: [0], sizes: [%[[A]], %[[B]], 4, 64], strides: [%[[S0]], 256, 64, 1] : memref<?xf32> to memref<?x?x4x64xf32>
// CHECK-NEXT: return %[[R]]
func.func @collapse_expand(%m: memref<?x?x256xf32>, %a: index, %b: index) -> memref<?x?x4x64xf32> {
  %0 = memref.collapse_shape %m [[0, 1, 2]] : memref<?x?x256xf32> into memref<?xf32>
  %1 = memref.expand_shape %0 [[0, 1, 2, 3]] output_shape [%a, %b, 4, 64] : memref<?xf32> into memref<?x?x4x64xf32>
  return %1 : memref<?x?x4x64xf32>
}

// -----

// Static reshapes are left alone.
// CHECK-LABEL: func.func @static
// CHECK-NEXT: %[[E:.*]] = memref.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [4, 6] : memref<24xf32> into memref<4x6xf32>
// CHECK-NEXT: memref.collapse_shape %[[E]] {{\[\[}}0, 1]] : memref<4x6xf32> into memref<24xf32>
// CHECK-NOT: memref.reinterpret_cast
// CHECK: return
func.func @static(%m: memref<24xf32>) -> memref<24xf32> {
  %0 = memref.expand_shape %m [[0, 1]] output_shape [4, 6] : memref<24xf32> into memref<4x6xf32>
  %1 = memref.collapse_shape %0 [[0, 1]] : memref<4x6xf32> into memref<24xf32>
  return %1 : memref<24xf32>
}

// -----

// So are reshapes of strided buffers, which are not one contiguous block.
// CHECK-LABEL: func.func @strided
// CHECK-NEXT: memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<?x8xf32, strided<[8, 1], offset: ?>> into memref<?xf32, strided<[1], offset: ?>>
// CHECK-NOT: memref.reinterpret_cast
// CHECK: return
func.func @strided(%m: memref<?x8xf32, strided<[8, 1], offset: ?>>) -> memref<?xf32, strided<[1], offset: ?>> {
  %0 = memref.collapse_shape %m [[0, 1]] : memref<?x8xf32, strided<[8, 1], offset: ?>> into memref<?xf32, strided<[1], offset: ?>>
  return %0 : memref<?xf32, strided<[1], offset: ?>>
}
