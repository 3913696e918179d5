// RUN: autoglm-opt %s --split-input-file --autoglm-fold-transposes | FileCheck %s

// Attention's context: a product per head, [heads, seq, dim], transposed to
// [seq, heads, dim]. The fill and the product write the transposed buffer
// through a transposed view; the copy and the first buffer go.
// CHECK-LABEL: func.func @context
// CHECK: %[[DST:.*]] = memref.alloc() : memref<32x4x64xf32>
// CHECK-NEXT: %[[VIEW:.*]] = memref.reinterpret_cast %[[DST]] to offset: [0], sizes: [4, 32, 64], strides: [64, 256, 1] : memref<32x4x64xf32> to memref<4x32x64xf32, strided<[64, 256, 1]>>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[VIEW]] :
// CHECK-NEXT: linalg.batch_matmul {{.*}} outs(%[[VIEW]] :
// CHECK-NOT: linalg.transpose
// CHECK-NOT: memref.alloc
// CHECK: return %[[DST]]
func.func @context(%p: memref<4x32x32xf32>, %v: memref<4x32x64xf32>) -> memref<32x4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %src = memref.alloc() : memref<4x32x64xf32>
  linalg.fill ins(%zero : f32) outs(%src : memref<4x32x64xf32>)
  linalg.batch_matmul ins(%p, %v : memref<4x32x32xf32>, memref<4x32x64xf32>) outs(%src : memref<4x32x64xf32>)
  %dst = memref.alloc() : memref<32x4x64xf32>
  linalg.transpose ins(%src : memref<4x32x64xf32>) outs(%dst : memref<32x4x64xf32>) permutation = [1, 0, 2]
  return %dst : memref<32x4x64xf32>
}

// -----

// The product's result is read by something else too: it stays.
// CHECK-LABEL: func.func @result_read_elsewhere
// CHECK: linalg.transpose
func.func @result_read_elsewhere(%p: memref<4x32x32xf32>, %v: memref<4x32x64xf32>, %copy: memref<4x32x64xf32>) -> memref<32x4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %src = memref.alloc() : memref<4x32x64xf32>
  linalg.fill ins(%zero : f32) outs(%src : memref<4x32x64xf32>)
  linalg.batch_matmul ins(%p, %v : memref<4x32x32xf32>, memref<4x32x64xf32>) outs(%src : memref<4x32x64xf32>)
  memref.copy %src, %copy : memref<4x32x64xf32> to memref<4x32x64xf32>
  %dst = memref.alloc() : memref<32x4x64xf32>
  linalg.transpose ins(%src : memref<4x32x64xf32>) outs(%dst : memref<32x4x64xf32>) permutation = [1, 0, 2]
  return %dst : memref<32x4x64xf32>
}

// -----

// The transposed buffer is in use before the copy: it stays.
// CHECK-LABEL: func.func @destination_busy
// CHECK: linalg.transpose
func.func @destination_busy(%p: memref<4x32x32xf32>, %v: memref<4x32x64xf32>, %other: memref<32x4x64xf32>) -> memref<32x4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %dst = memref.alloc() : memref<32x4x64xf32>
  memref.copy %other, %dst : memref<32x4x64xf32> to memref<32x4x64xf32>
  %src = memref.alloc() : memref<4x32x64xf32>
  linalg.fill ins(%zero : f32) outs(%src : memref<4x32x64xf32>)
  linalg.batch_matmul ins(%p, %v : memref<4x32x32xf32>, memref<4x32x64xf32>) outs(%src : memref<4x32x64xf32>)
  linalg.transpose ins(%src : memref<4x32x64xf32>) outs(%dst : memref<32x4x64xf32>) permutation = [1, 0, 2]
  return %dst : memref<32x4x64xf32>
}

// -----

// Symbolic extents (seq): the transposed buffer, allocated with the same
// extent before the first write, is viewed with the strides its extents
// give (the token's stride is 4 * 64, the head's 64).
// CHECK-LABEL: func.func @symbolic_context
// CHECK: %[[DST:.*]] = memref.alloc(%arg2) : memref<?x4x64xf32>
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[DST]] to offset: [0], sizes: [4, %arg2, 64], strides: [64, 256, 1] : memref<?x4x64xf32> to memref<4x?x64xf32, strided<[64, 256, 1]>>
// CHECK-NEXT: linalg.fill {{.*}} outs(%[[VIEW]] :
// CHECK-NEXT: linalg.batch_matmul {{.*}} outs(%[[VIEW]] :
// CHECK-NOT: linalg.transpose
// CHECK: return %[[DST]]
func.func @symbolic_context(%p: memref<4x?x?xf32>, %v: memref<4x?x64xf32>, %seq: index) -> memref<?x4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %src = memref.alloc(%seq) : memref<4x?x64xf32>
  linalg.fill ins(%zero : f32) outs(%src : memref<4x?x64xf32>)
  linalg.batch_matmul ins(%p, %v : memref<4x?x?xf32>, memref<4x?x64xf32>) outs(%src : memref<4x?x64xf32>)
  %dst = memref.alloc(%seq) : memref<?x4x64xf32>
  linalg.transpose ins(%src : memref<4x?x64xf32>) outs(%dst : memref<?x4x64xf32>) permutation = [1, 0, 2]
  return %dst : memref<?x4x64xf32>
}

// -----

// The transposed buffer's extent is another value than the product's:
// nothing shows they are equal, so the copy stays.
// CHECK-LABEL: func.func @unrelated_extents
// CHECK: linalg.transpose
func.func @unrelated_extents(%p: memref<4x?x?xf32>, %v: memref<4x?x64xf32>, %seq: index, %other: index) -> memref<?x4x64xf32> {
  %zero = arith.constant 0.0 : f32
  %src = memref.alloc(%seq) : memref<4x?x64xf32>
  linalg.fill ins(%zero : f32) outs(%src : memref<4x?x64xf32>)
  linalg.batch_matmul ins(%p, %v : memref<4x?x?xf32>, memref<4x?x64xf32>) outs(%src : memref<4x?x64xf32>)
  %dst = memref.alloc(%other) : memref<?x4x64xf32>
  linalg.transpose ins(%src : memref<4x?x64xf32>) outs(%dst : memref<?x4x64xf32>) permutation = [1, 0, 2]
  return %dst : memref<?x4x64xf32>
}
