// RUN: autoglm-opt %s --split-input-file --autoglm-attention-to-kernels --canonicalize --cse | FileCheck %s

// Arguments: batch, heads, kv heads, q_len, kv_len, head_dim, value_dim;
// Q, K, V each with batch/head/row strides; the mask with batch/head/row/
// column strides (0 where it broadcasts: here [Sq, Sk] on [B, H, Sq, Sk]);
// out with batch/head/row strides; scale; causal.
// CHECK-LABEL: func.func @masked
// CHECK-NOT: autoglm.attention_buffers
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : i64
// CHECK-DAG: %[[C24:.*]] = arith.constant 24 : i64
// CHECK-DAG: %[[C40:.*]] = arith.constant 40 : i64
// CHECK-DAG: %[[C48:.*]] = arith.constant 48 : i64
// CHECK-DAG: %[[C80:.*]] = arith.constant 80 : i64
// CHECK-DAG: %[[C96:.*]] = arith.constant 96 : i64
// CHECK-DAG: %[[C160:.*]] = arith.constant 160 : i64
// CHECK-DAG: %[[C192:.*]] = arith.constant 192 : i64
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 2.500000e-01 : f32
// CHECK-DAG: %[[CAUSAL:.*]] = arith.constant 1 : i32
// CHECK: %[[Q:.*]] = llvm.inttoptr
// CHECK: %[[K:.*]] = llvm.inttoptr
// CHECK: %[[V:.*]] = llvm.inttoptr
// CHECK: %[[M:.*]] = llvm.inttoptr
// CHECK: %[[O:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_attention(%[[C1]], %[[C4]], %[[C2]], %[[C3]], %[[C5]], %[[C8]], %[[C16]], %[[Q]], %[[C96]], %[[C24]], %[[C8]], %[[K]], %[[C80]], %[[C40]], %[[C8]], %[[V]], %[[C160]], %[[C80]], %[[C16]], %[[M]], %[[C0]], %[[C0]], %[[C5]], %[[C1]], %[[O]], %[[C192]], %[[C48]], %[[C16]], %[[SCALE]], %[[CAUSAL]])
// CHECK: func.func private @agl_kernel_attention(i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, f32, i32)
func.func @masked(%q: memref<1x4x3x8xf32>, %k: memref<1x2x5x8xf32>, %v: memref<1x2x5x16xf32>, %mask: memref<3x5xf32>, %out: memref<1x4x3x16xf32>) {
  autoglm.attention_buffers %q, %k, %v, %mask into %out {scale = 0.25 : f32, causal = true} : memref<1x4x3x8xf32>, memref<1x2x5x8xf32>, memref<1x2x5x16xf32>, memref<3x5xf32>, memref<1x4x3x16xf32>
  return
}

// -----

// No mask: a null pointer and zero strides; causal 0.
// CHECK-LABEL: func.func @unmasked
// CHECK: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @agl_kernel_attention({{.*}}, %[[NULL]], %[[C0:.*]], %[[C0]], %[[C0]], %[[C0]], {{.*}}, %{{.*}}, %[[C0_I32:.*]]) :
func.func @unmasked(%q: memref<1x1x1x4xf32>, %k: memref<1x1x7x4xf32>, %v: memref<1x1x7x4xf32>, %out: memref<1x1x1x4xf32>) {
  autoglm.attention_buffers %q, %k, %v into %out {scale = 0.5 : f32} : memref<1x1x1x4xf32>, memref<1x1x7x4xf32>, memref<1x1x7x4xf32>, memref<1x1x1x4xf32>
  return
}


// -----

// Symbolic lengths: the extents come from the buffers; K and V are views of
// a cache (rows 8 floats apart, heads 64 apart) read in place; the mask's
// symbolic extents broadcast only when they are 1 at run time.
// CHECK-LABEL: func.func @symbolic_views
// CHECK-DAG: %[[SQ:.*]] = memref.dim %arg0, %c2
// CHECK-DAG: %[[SK:.*]] = memref.dim %arg1, %c2
// CHECK-DAG: %[[MROWS:.*]] = memref.dim %arg3, %c2
// CHECK-DAG: %[[ONE:.*]] = arith.cmpi eq, %{{.*}}, %c1_i64
// CHECK-DAG: arith.select %[[ONE]], %c0_i64, %{{.*}} : i64
// CHECK: call @agl_kernel_attention(%c1_i64, %c4_i64, %c2_i64, %{{.*}}, %{{.*}}, %c8_i64, %c8_i64, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %c128_i64, %c64_i64, %c8_i64,
func.func @symbolic_views(%q: memref<1x4x?x8xf32>, %k: memref<1x2x?x8xf32, strided<[128, 64, 8, 1]>>, %v: memref<1x2x?x8xf32, strided<[128, 64, 8, 1]>>, %mask: memref<1x1x?x?xf32>, %out: memref<1x4x?x8xf32>) {
  autoglm.attention_buffers %q, %k, %v, %mask into %out {scale = 0.125 : f32} : memref<1x4x?x8xf32>, memref<1x2x?x8xf32, strided<[128, 64, 8, 1]>>, memref<1x2x?x8xf32, strided<[128, 64, 8, 1]>>, memref<1x1x?x?xf32>, memref<1x4x?x8xf32>
  return
}

// -----

// The transposes between [B, S, H, D] and [B, H, S, D] around the op become
// strides: Q, K and V are read from the transposes' inputs (heads 8 floats
// apart, rows 16), the output is written into the last transpose's
// destination; the copies and their buffers are gone.
// CHECK-LABEL: func.func @transposes_folded
// CHECK-SAME: (%[[X:.*]]: memref<1x3x2x8xf32>, %[[KX:.*]]: memref<1x5x2x8xf32>, %[[VX:.*]]: memref<1x5x2x8xf32>, %[[Y:.*]]: memref<1x3x2x8xf32>)
// CHECK-NOT: linalg.transpose
// CHECK-NOT: memref.alloc
// CHECK-DAG: memref.extract_strided_metadata %[[X]]
// CHECK-DAG: memref.extract_strided_metadata %[[KX]]
// CHECK-DAG: memref.extract_strided_metadata %[[VX]]
// CHECK-DAG: memref.extract_strided_metadata %[[Y]]
// CHECK: call @agl_kernel_attention(%c1_i64, %c2_i64, %c2_i64, %c3_i64, %c5_i64, %c8_i64, %c8_i64, %{{.*}}, %c48_i64, %c8_i64, %c16_i64, %{{.*}}, %c80_i64, %c8_i64, %c16_i64, %{{.*}}, %c80_i64, %c8_i64, %c16_i64, %{{.*}}, %c0_i64, %c0_i64, %c0_i64, %c0_i64, %{{.*}}, %c48_i64, %c8_i64, %c16_i64,
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
// CHECK: %[[OUT:.*]] = memref.alloc() {{.*}} : memref<1x2x3x8xf32>
// CHECK: call @agl_kernel_attention(%c1_i64, %c2_i64, %c2_i64, %c3_i64, %c3_i64, %c8_i64, %c8_i64, %{{.*}}, %c48_i64, %c24_i64, %c8_i64, %{{.*}}, %c48_i64, %c8_i64, %c16_i64, %{{.*}}, %c48_i64, %c24_i64, %c8_i64, %{{.*}}, %c0_i64, %c0_i64, %c0_i64, %c0_i64, %{{.*}}, %c48_i64, %c24_i64, %c8_i64,
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

// -----

// A decode step's `present = Concat(past, new)`, bufferized: the past keys
// and values copied into the first 3 rows of the present buffers, the new
// position into row 3. The kernel takes the past copies over: past length
// 3 and the past buffers (heads 12 floats apart, rows 4) after the causal
// flag; the copies of the new rows stay.
// CHECK-LABEL: func.func @past_copies_fused
// CHECK-SAME: (%[[PK:.*]]: memref<1x2x3x4xf32>, %[[PV:.*]]: memref<1x2x3x4xf32>,
// CHECK-NOT: linalg.copy ins(%[[PK]]
// CHECK-NOT: linalg.copy ins(%[[PV]]
// CHECK: linalg.copy ins(%{{.*}} : memref<1x2x1x4xf32>)
// CHECK: linalg.copy ins(%{{.*}} : memref<1x2x1x4xf32>)
// CHECK-DAG: memref.extract_strided_metadata %[[PK]]
// CHECK-DAG: memref.extract_strided_metadata %[[PV]]
// CHECK: call @agl_kernel_attention_with_past(%c1_i64, %c2_i64, %c2_i64, %c1_i64, %c4_i64, %c4_i64, %c4_i64, {{.*}}, %c0_i32, %c3_i64, %{{.*}}, %c24_i64, %c12_i64, %c4_i64, %{{.*}}, %c24_i64, %c12_i64, %c4_i64)
// CHECK-NOT: linalg.copy
// CHECK: func.func private @agl_kernel_attention_with_past(i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, f32, i32, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64)
func.func @past_copies_fused(%pk: memref<1x2x3x4xf32>, %pv: memref<1x2x3x4xf32>, %q: memref<1x2x1x4xf32>, %kn: memref<1x2x1x4xf32>, %vn: memref<1x2x1x4xf32>, %k: memref<1x2x4x4xf32>, %v: memref<1x2x4x4xf32>, %out: memref<1x2x1x4xf32>) {
  %kpast = memref.subview %k[0, 0, 0, 0] [1, 2, 3, 4] [1, 1, 1, 1] : memref<1x2x4x4xf32> to memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>
  linalg.copy ins(%pk : memref<1x2x3x4xf32>) outs(%kpast : memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>)
  %knew = memref.subview %k[0, 0, 3, 0] [1, 2, 1, 4] [1, 1, 1, 1] : memref<1x2x4x4xf32> to memref<1x2x1x4xf32, strided<[32, 16, 4, 1], offset: 12>>
  linalg.copy ins(%kn : memref<1x2x1x4xf32>) outs(%knew : memref<1x2x1x4xf32, strided<[32, 16, 4, 1], offset: 12>>)
  %vpast = memref.subview %v[0, 0, 0, 0] [1, 2, 3, 4] [1, 1, 1, 1] : memref<1x2x4x4xf32> to memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>
  linalg.copy ins(%pv : memref<1x2x3x4xf32>) outs(%vpast : memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>)
  %vnew = memref.subview %v[0, 0, 3, 0] [1, 2, 1, 4] [1, 1, 1, 1] : memref<1x2x4x4xf32> to memref<1x2x1x4xf32, strided<[32, 16, 4, 1], offset: 12>>
  linalg.copy ins(%vn : memref<1x2x1x4xf32>) outs(%vnew : memref<1x2x1x4xf32, strided<[32, 16, 4, 1], offset: 12>>)
  %kc = memref.cast %k : memref<1x2x4x4xf32> to memref<1x2x4x4xf32, strided<[?, ?, ?, 1], offset: ?>>
  %vc = memref.cast %v : memref<1x2x4x4xf32> to memref<1x2x4x4xf32, strided<[?, ?, ?, 1], offset: ?>>
  autoglm.attention_buffers %q, %kc, %vc into %out {scale = 0.5 : f32} : memref<1x2x1x4xf32>, memref<1x2x4x4xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<1x2x4x4xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<1x2x1x4xf32>
  return
}

// -----

// A symbolic past length: the past rows end where the new ones start (the
// same value), which the kernel gets as its past length.
// CHECK-LABEL: func.func @past_copies_fused_symbolic
// CHECK: %[[P:.*]] = memref.dim %arg0, %c2
// CHECK: %[[P64:.*]] = arith.index_cast %[[P]] : index to i64
// CHECK: call @agl_kernel_attention_with_past({{.*}}, %c0_i32, %[[P64]],
func.func @past_copies_fused_symbolic(%pk: memref<1x2x?x4xf32>, %pv: memref<1x2x?x4xf32>, %q: memref<1x2x1x4xf32>, %kn: memref<1x2x1x4xf32>, %vn: memref<1x2x1x4xf32>, %k: memref<1x2x?x4xf32>, %v: memref<1x2x?x4xf32>, %out: memref<1x2x1x4xf32>) {
  %c2 = arith.constant 2 : index
  %p = memref.dim %pk, %c2 : memref<1x2x?x4xf32>
  %kpast = memref.subview %k[0, 0, 0, 0] [1, 2, %p, 4] [1, 1, 1, 1] : memref<1x2x?x4xf32> to memref<1x2x?x4xf32, strided<[?, ?, 4, 1]>>
  linalg.copy ins(%pk : memref<1x2x?x4xf32>) outs(%kpast : memref<1x2x?x4xf32, strided<[?, ?, 4, 1]>>)
  %knew = memref.subview %k[0, 0, %p, 0] [1, 2, 1, 4] [1, 1, 1, 1] : memref<1x2x?x4xf32> to memref<1x2x1x4xf32, strided<[?, ?, 4, 1], offset: ?>>
  linalg.copy ins(%kn : memref<1x2x1x4xf32>) outs(%knew : memref<1x2x1x4xf32, strided<[?, ?, 4, 1], offset: ?>>)
  %vpast = memref.subview %v[0, 0, 0, 0] [1, 2, %p, 4] [1, 1, 1, 1] : memref<1x2x?x4xf32> to memref<1x2x?x4xf32, strided<[?, ?, 4, 1]>>
  linalg.copy ins(%pv : memref<1x2x?x4xf32>) outs(%vpast : memref<1x2x?x4xf32, strided<[?, ?, 4, 1]>>)
  %vnew = memref.subview %v[0, 0, %p, 0] [1, 2, 1, 4] [1, 1, 1, 1] : memref<1x2x?x4xf32> to memref<1x2x1x4xf32, strided<[?, ?, 4, 1], offset: ?>>
  linalg.copy ins(%vn : memref<1x2x1x4xf32>) outs(%vnew : memref<1x2x1x4xf32, strided<[?, ?, 4, 1], offset: ?>>)
  %kc = memref.cast %k : memref<1x2x?x4xf32> to memref<1x2x?x4xf32, strided<[?, ?, ?, 1], offset: ?>>
  %vc = memref.cast %v : memref<1x2x?x4xf32> to memref<1x2x?x4xf32, strided<[?, ?, ?, 1], offset: ?>>
  autoglm.attention_buffers %q, %kc, %vc into %out {scale = 0.5 : f32} : memref<1x2x1x4xf32>, memref<1x2x?x4xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<1x2x?x4xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<1x2x1x4xf32>
  return
}

// -----

// Not fused: between the copies and the op, the present keys' past rows
// are read (into %seen). The plain kernel runs after the copies, which
// stay.
// CHECK-LABEL: func.func @past_rows_read
// CHECK-SAME: (%[[PK:.*]]: memref<1x2x3x4xf32>, %[[PV:.*]]: memref<1x2x3x4xf32>,
// CHECK: linalg.copy ins(%[[PK]]
// CHECK: linalg.copy ins(%[[PV]]
// CHECK: call @agl_kernel_attention(
// CHECK-NOT: agl_kernel_attention_with_past
func.func @past_rows_read(%pk: memref<1x2x3x4xf32>, %pv: memref<1x2x3x4xf32>, %q: memref<1x2x1x4xf32>, %k: memref<1x2x4x4xf32>, %v: memref<1x2x4x4xf32>, %out: memref<1x2x1x4xf32>, %seen: memref<1x2x4x4xf32>) {
  %kpast = memref.subview %k[0, 0, 0, 0] [1, 2, 3, 4] [1, 1, 1, 1] : memref<1x2x4x4xf32> to memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>
  linalg.copy ins(%pk : memref<1x2x3x4xf32>) outs(%kpast : memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>)
  linalg.copy ins(%k : memref<1x2x4x4xf32>) outs(%seen : memref<1x2x4x4xf32>)
  %vpast = memref.subview %v[0, 0, 0, 0] [1, 2, 3, 4] [1, 1, 1, 1] : memref<1x2x4x4xf32> to memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>
  linalg.copy ins(%pv : memref<1x2x3x4xf32>) outs(%vpast : memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>)
  autoglm.attention_buffers %q, %k, %v into %out {scale = 0.5 : f32} : memref<1x2x1x4xf32>, memref<1x2x4x4xf32>, memref<1x2x4x4xf32>, memref<1x2x1x4xf32>
  return
}

// -----

// Not fused: the past values are overwritten between their copy and the
// op, so the copy holds what the kernel could no longer read.
// CHECK-LABEL: func.func @past_overwritten
// CHECK-SAME: (%[[PK:.*]]: memref<1x2x3x4xf32>, %[[PV:.*]]: memref<1x2x3x4xf32>,
// CHECK: linalg.copy ins(%[[PK]]
// CHECK: linalg.copy ins(%[[PV]]
// CHECK: linalg.fill {{.*}} outs(%[[PV]] :
// CHECK: call @agl_kernel_attention(
// CHECK-NOT: agl_kernel_attention_with_past
func.func @past_overwritten(%pk: memref<1x2x3x4xf32>, %pv: memref<1x2x3x4xf32>, %q: memref<1x2x1x4xf32>, %k: memref<1x2x4x4xf32>, %v: memref<1x2x4x4xf32>, %out: memref<1x2x1x4xf32>) {
  %zero = arith.constant 0.0 : f32
  %kpast = memref.subview %k[0, 0, 0, 0] [1, 2, 3, 4] [1, 1, 1, 1] : memref<1x2x4x4xf32> to memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>
  linalg.copy ins(%pk : memref<1x2x3x4xf32>) outs(%kpast : memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>)
  %vpast = memref.subview %v[0, 0, 0, 0] [1, 2, 3, 4] [1, 1, 1, 1] : memref<1x2x4x4xf32> to memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>
  linalg.copy ins(%pv : memref<1x2x3x4xf32>) outs(%vpast : memref<1x2x3x4xf32, strided<[32, 16, 4, 1]>>)
  linalg.fill ins(%zero : f32) outs(%pv : memref<1x2x3x4xf32>)
  autoglm.attention_buffers %q, %k, %v into %out {scale = 0.5 : f32} : memref<1x2x1x4xf32>, memref<1x2x4x4xf32>, memref<1x2x4x4xf32>, memref<1x2x1x4xf32>
  return
}

// -----

// Symbolic past and batch extents read from each input: the past keys'
// and values' lengths are extents of one symbol (`autoglm.dim_symbols`),
// equal whenever the model runs, and the present buffers were allocated
// with the batch extent their past views span.
// CHECK-LABEL: func.func @past_lengths_of_one_symbol
// CHECK-NOT: linalg.copy ins(%arg0
// CHECK-NOT: linalg.copy ins(%arg1
// CHECK: call @agl_kernel_attention_with_past(
func.func @past_lengths_of_one_symbol(%pk: memref<?x2x?x4xf32> {autoglm.dim_symbols = array<i32: 0, -1, 1, -1>}, %pv: memref<?x2x?x4xf32> {autoglm.dim_symbols = array<i32: 0, -1, 1, -1>}, %q: memref<?x2x1x4xf32>, %kn: memref<?x2x1x4xf32>, %vn: memref<?x2x1x4xf32>, %total: index, %out: memref<?x2x1x4xf32>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %bk = memref.dim %pk, %c0 : memref<?x2x?x4xf32>
  %pastk = memref.dim %pk, %c2 : memref<?x2x?x4xf32>
  %k = memref.alloc(%bk, %total) : memref<?x2x?x4xf32>
  %kpast = memref.subview %k[0, 0, 0, 0] [%bk, 2, %pastk, 4] [1, 1, 1, 1] : memref<?x2x?x4xf32> to memref<?x2x?x4xf32, strided<[?, ?, 4, 1]>>
  linalg.copy ins(%pk : memref<?x2x?x4xf32>) outs(%kpast : memref<?x2x?x4xf32, strided<[?, ?, 4, 1]>>)
  %bn = memref.dim %kn, %c0 : memref<?x2x1x4xf32>
  %knew = memref.subview %k[0, 0, %pastk, 0] [%bn, 2, 1, 4] [1, 1, 1, 1] : memref<?x2x?x4xf32> to memref<?x2x1x4xf32, strided<[?, ?, 4, 1], offset: ?>>
  linalg.copy ins(%kn : memref<?x2x1x4xf32>) outs(%knew : memref<?x2x1x4xf32, strided<[?, ?, 4, 1], offset: ?>>)
  %bv = memref.dim %pv, %c0 : memref<?x2x?x4xf32>
  %pastv = memref.dim %pv, %c2 : memref<?x2x?x4xf32>
  %v = memref.alloc(%bv, %total) : memref<?x2x?x4xf32>
  %vpast = memref.subview %v[0, 0, 0, 0] [%bv, 2, %pastv, 4] [1, 1, 1, 1] : memref<?x2x?x4xf32> to memref<?x2x?x4xf32, strided<[?, ?, 4, 1]>>
  linalg.copy ins(%pv : memref<?x2x?x4xf32>) outs(%vpast : memref<?x2x?x4xf32, strided<[?, ?, 4, 1]>>)
  %vnew = memref.subview %v[0, 0, %pastv, 0] [%bn, 2, 1, 4] [1, 1, 1, 1] : memref<?x2x?x4xf32> to memref<?x2x1x4xf32, strided<[?, ?, 4, 1], offset: ?>>
  linalg.copy ins(%vn : memref<?x2x1x4xf32>) outs(%vnew : memref<?x2x1x4xf32, strided<[?, ?, 4, 1], offset: ?>>)
  %kc = memref.cast %k : memref<?x2x?x4xf32> to memref<?x2x?x4xf32, strided<[?, ?, ?, 1], offset: ?>>
  %vc = memref.cast %v : memref<?x2x?x4xf32> to memref<?x2x?x4xf32, strided<[?, ?, ?, 1], offset: ?>>
  autoglm.attention_buffers %q, %kc, %vc into %out {scale = 0.5 : f32} : memref<?x2x1x4xf32>, memref<?x2x?x4xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x2x?x4xf32, strided<[?, ?, ?, 1], offset: ?>>, memref<?x2x1x4xf32>
  return
}

// -----

// Not fused: the past values' length is another symbol's extent, which
// nothing shows equal to the keys'.
// CHECK-LABEL: func.func @past_lengths_of_two_symbols
// CHECK: linalg.copy ins(%arg0
// CHECK: call @agl_kernel_attention(
func.func @past_lengths_of_two_symbols(%pk: memref<1x2x?x4xf32> {autoglm.dim_symbols = array<i32: -1, -1, 1, -1>}, %pv: memref<1x2x?x4xf32> {autoglm.dim_symbols = array<i32: -1, -1, 2, -1>}, %q: memref<1x2x1x4xf32>, %total: index, %out: memref<1x2x1x4xf32>) {
  %c2 = arith.constant 2 : index
  %pastk = memref.dim %pk, %c2 : memref<1x2x?x4xf32>
  %k = memref.alloc(%total) : memref<1x2x?x4xf32>
  %kpast = memref.subview %k[0, 0, 0, 0] [1, 2, %pastk, 4] [1, 1, 1, 1] : memref<1x2x?x4xf32> to memref<1x2x?x4xf32, strided<[?, ?, 4, 1]>>
  linalg.copy ins(%pk : memref<1x2x?x4xf32>) outs(%kpast : memref<1x2x?x4xf32, strided<[?, ?, 4, 1]>>)
  %pastv = memref.dim %pv, %c2 : memref<1x2x?x4xf32>
  %v = memref.alloc(%total) : memref<1x2x?x4xf32>
  %vpast = memref.subview %v[0, 0, 0, 0] [1, 2, %pastv, 4] [1, 1, 1, 1] : memref<1x2x?x4xf32> to memref<1x2x?x4xf32, strided<[?, ?, 4, 1]>>
  linalg.copy ins(%pv : memref<1x2x?x4xf32>) outs(%vpast : memref<1x2x?x4xf32, strided<[?, ?, 4, 1]>>)
  autoglm.attention_buffers %q, %k, %v into %out {scale = 0.5 : f32} : memref<1x2x1x4xf32>, memref<1x2x?x4xf32>, memref<1x2x?x4xf32>, memref<1x2x1x4xf32>
  return
}
