// RUN: autoglm-opt %s --split-input-file --autoglm-fold-attention-transposes | FileCheck %s

// For the GPU's attention kernel: the transposes between [B, S, H, D] and
// [B, H, S, D] around the op become memref.transpose views. Q, K and V are
// read from the transposes' inputs, the output is written into the last
// transpose's destination; the copies and their buffers are gone.
// CHECK-LABEL: func.func @transposes_folded
// CHECK-SAME: (%[[X:.*]]: memref<1x3x2x8xf32>, %[[KX:.*]]: memref<1x5x2x8xf32>, %[[VX:.*]]: memref<1x5x2x8xf32>, %[[Y:.*]]: memref<1x3x2x8xf32>)
// CHECK-NOT: memref.alloc
// CHECK-DAG: %[[Q:.*]] = memref.transpose %[[X]] (d0, d1, d2, d3) -> (d0, d2, d1, d3) : memref<1x3x2x8xf32> to memref<1x2x3x8xf32, strided<[48, 8, 16, 1]>>
// CHECK-DAG: %[[K:.*]] = memref.transpose %[[KX]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK-DAG: %[[V:.*]] = memref.transpose %[[VX]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK-DAG: %[[OUT:.*]] = memref.transpose %[[Y]] (d0, d1, d2, d3) -> (d0, d2, d1, d3)
// CHECK: autoglm.attention_buffers %[[Q]], %[[K]], %[[V]] into %[[OUT]]
// CHECK-NOT: linalg.transpose
func.func @transposes_folded(%x: memref<1x3x2x8xf32>, %kx: memref<1x5x2x8xf32>, %vx: memref<1x5x2x8xf32>, %y: memref<1x3x2x8xf32>) {
  %q = memref.alloc() {alignment = 64 : i64} : memref<1x2x3x8xf32>
  linalg.transpose ins(%x : memref<1x3x2x8xf32>) outs(%q : memref<1x2x3x8xf32>) permutation = [0, 2, 1, 3]
  %k = memref.alloc() {alignment = 64 : i64} : memref<1x2x5x8xf32>
  linalg.transpose ins(%kx : memref<1x5x2x8xf32>) outs(%k : memref<1x2x5x8xf32>) permutation = [0, 2, 1, 3]
  %v = memref.alloc() {alignment = 64 : i64} : memref<1x2x5x8xf32>
  linalg.transpose ins(%vx : memref<1x5x2x8xf32>) outs(%v : memref<1x2x5x8xf32>) permutation = [0, 2, 1, 3]
  %qc = memref.cast %q : memref<1x2x3x8xf32> to memref<1x2x3x8xf32, strided<[?, ?, ?, 1], offset: ?>>
  %kc = memref.cast %k : memref<1x2x5x8xf32> to memref<1x2x5x8xf32, strided<[?, ?, ?, 1], offset: ?>>
  %vc = memref.cast %v : memref<1x2x5x8xf32> to memref<1x2x5x8xf32, strided<[?, ?, ?, 1], offset: ?>>
  %out = memref.alloc() {alignment = 64 : i64} : memref<1x2x3x8xf32>
  autoglm.attention_buffers %qc, %kc, %vc into %out {scale = 0.5 : f32} : memref<1x2x3x8xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<1x2x5x8xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<1x2x5x8xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<1x2x3x8xf32>
  linalg.transpose ins(%out : memref<1x2x3x8xf32>) outs(%y : memref<1x3x2x8xf32>) permutation = [0, 2, 1, 3]
  return
}

// -----

// Not folded: the queries' source is written between the transpose and the
// op (the copy holds the old values), and the output is read again besides
// its transpose. The keys' transpose still folds.
// CHECK-LABEL: func.func @transposes_kept
// CHECK-SAME: (%[[X:.*]]: memref<1x3x2x8xf32>, %[[KX:.*]]: memref<1x3x2x8xf32>, %[[V:.*]]: memref<1x2x3x8xf32>, %[[Y:.*]]: memref<1x3x2x8xf32>, %[[Z:.*]]: memref<1x2x3x8xf32>)
// CHECK: %[[Q:.*]] = memref.alloc() {{.*}} : memref<1x2x3x8xf32>
// CHECK: linalg.transpose ins(%[[X]] : {{.*}}) outs(%[[Q]] :
// CHECK-NOT: linalg.transpose ins(%[[KX]]
// CHECK: linalg.fill {{.*}} outs(%[[X]] :
// CHECK: %[[QC:.*]] = memref.cast %[[Q]]
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<1x2x3x8xf32>
// CHECK: %[[K:.*]] = memref.transpose %[[KX]]
// CHECK: autoglm.attention_buffers %[[QC]], %[[K]], %[[V]] into %[[OUT]]
// CHECK: linalg.transpose ins(%[[OUT]] : {{.*}}) outs(%[[Y]] :
// CHECK: linalg.copy ins(%[[OUT]] : {{.*}}) outs(%[[Z]] :
func.func @transposes_kept(%x: memref<1x3x2x8xf32>, %kx: memref<1x3x2x8xf32>, %v: memref<1x2x3x8xf32>, %y: memref<1x3x2x8xf32>, %z: memref<1x2x3x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %q = memref.alloc() {alignment = 64 : i64} : memref<1x2x3x8xf32>
  linalg.transpose ins(%x : memref<1x3x2x8xf32>) outs(%q : memref<1x2x3x8xf32>) permutation = [0, 2, 1, 3]
  %k = memref.alloc() {alignment = 64 : i64} : memref<1x2x3x8xf32>
  linalg.transpose ins(%kx : memref<1x3x2x8xf32>) outs(%k : memref<1x2x3x8xf32>) permutation = [0, 2, 1, 3]
  linalg.fill ins(%zero : f32) outs(%x : memref<1x3x2x8xf32>)
  %qc = memref.cast %q : memref<1x2x3x8xf32> to memref<1x2x3x8xf32, strided<[?, ?, ?, 1], offset: ?>>
  %kc = memref.cast %k : memref<1x2x3x8xf32> to memref<1x2x3x8xf32, strided<[?, ?, ?, 1], offset: ?>>
  %out = memref.alloc() {alignment = 64 : i64} : memref<1x2x3x8xf32>
  autoglm.attention_buffers %qc, %kc, %v into %out {scale = 0.5 : f32} : memref<1x2x3x8xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<1x2x3x8xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<1x2x3x8xf32>, memref<1x2x3x8xf32>
  linalg.transpose ins(%out : memref<1x2x3x8xf32>) outs(%y : memref<1x3x2x8xf32>) permutation = [0, 2, 1, 3]
  linalg.copy ins(%out : memref<1x2x3x8xf32>) outs(%z : memref<1x2x3x8xf32>)
  return
}
