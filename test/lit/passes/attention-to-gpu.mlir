// RUN: autoglm-opt %s --split-input-file --autoglm-attention-to-gpu --canonicalize --verify-diagnostics | FileCheck %s

// Causal grouped-query attention (2 query heads on 1 K/V head), 20 query
// rows against 40 keys: one block of 128 threads per 64 query rows and
// head (grid 1 x 2 x 1), its shared memory the staged rows (Q's 64 x 32
// halves, later 32 keys' K and V), the score tile (64 rows of 36 floats),
// the probability tile (64 rows of 40 halves), a 16x16 tile of factors
// per warp and each row's running maximum and sum. Q is staged as 16-bit
// floats, each warp loads its two 16x16 Q tiles; the key loop runs over
// the steps of 32 keys up to the causal limit of the block's last row
// (here past the 40 keys: 2 steps).
// CHECK-LABEL: func.func @causal
// CHECK: gpu.launch blocks(%{{[^,]*}}, %[[BY:[^,]*]], %{{[^)]*}}) in (%{{[^ ]*}} = %c1, %{{[^ ]*}} = %c2, %{{[^ ]*}} = %c1) threads(%[[T:[^,]*]], %{{[^,]*}}, %{{[^)]*}}) in (%{{[^ ]*}} = %c128, %{{[^ ]*}} = %c1, %{{[^ ]*}} = %c1)
// CHECK-SAME: workgroup(%[[STAGE:.*]] : memref<2048xf16, #gpu.address_space<workgroup>>, %[[SCORES:.*]] : memref<2304xf32, #gpu.address_space<workgroup>>, %[[PROBS:.*]] : memref<2560xf16, #gpu.address_space<workgroup>>, %[[FACTORS:.*]] : memref<1024xf32, #gpu.address_space<workgroup>>, %[[MAX:.*]] : memref<64xf32, #gpu.address_space<workgroup>>, %[[SUM:.*]] : memref<64xf32, #gpu.address_space<workgroup>>)
// The K/V head of query head BY is BY / 2.
// CHECK: %[[KV:.*]] = arith.divui %[[BY]], %c2
// Each thread's 16 elements of Q's 64 x 32 are all loaded, then stored.
// CHECK-COUNT-16: memref.load %arg0[%c0, %[[BY]],
// CHECK-NOT: memref.load
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: memref.store %{{.*}}, %[[STAGE]]
// CHECK: gpu.barrier
// CHECK-COUNT-2: gpu.subgroup_mma_load_matrix %[[STAGE]][%{{.*}}] {leadDimension = 32 : index} : {{.*}} -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.barrier
// CHECK: %[[ZERO:.*]] = gpu.subgroup_mma_constant_matrix %{{.*}} : !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: %[[OUT:.*]] = scf.for %{{.*}} = %c0 to %c2 step %c1{{.*}} iter_args(%[[ACC:.*]] = %[[ZERO]]) -> (!gpu.mma_matrix<16x16xf32, "COp">)
// The step's keys and values, from K/V head KV: 8 and 4 per thread.
// CHECK-COUNT-8: memref.load %arg1[%c0, %[[KV]],
// CHECK-NOT: memref.load
// CHECK: memref.store %{{.*}}, %[[STAGE]]
// CHECK-COUNT-4: memref.load %arg2[%c0, %[[KV]],
// CHECK: gpu.barrier
// Scores: Q tiles times transposed K tiles on the tensor cores, into the
// warp's rows of the score tile.
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGE]][%c0{{.*}}] {leadDimension = 32 : index, transpose} : {{.*}} -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute {{.*}} {b_transpose}
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[SCORES]][%{{.*}}] {leadDimension = 36 : index}
// CHECK: gpu.barrier
// Two lanes per row of the warp's 16, each 16 of the step's 32 keys (the
// scores kept in registers): the row's old maximum and sum, the lanes'
// maxima combined by a shuffle, the probabilities stored in 16 bits, the
// sums combined by a shuffle, the new statistics written by one lane, the
// row's factors by both.
// CHECK-COUNT-16: memref.load %[[SCORES]]
// CHECK: memref.load %[[MAX]]
// CHECK: memref.load %[[SUM]]
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: arith.maximumf
// CHECK-COUNT-16: memref.store %{{.*}}, %[[PROBS]]
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[SUM]]
// CHECK: memref.store %{{.*}}, %[[MAX]]
// CHECK: }
// CHECK-COUNT-8: memref.store %{{.*}}, %[[FACTORS]]
// CHECK: gpu.barrier
// The accumulator scaled by the factors, then probabilities times values.
// CHECK: %[[SCALE:.*]] = gpu.subgroup_mma_load_matrix %[[FACTORS]][%{{.*}}] {leadDimension = 16 : index} : {{.*}} -> !gpu.mma_matrix<16x16xf32, "COp">
// CHECK: gpu.subgroup_mma_elementwise  mulf %[[ACC]], %[[SCALE]]
// CHECK: gpu.subgroup_mma_load_matrix %[[PROBS]][%{{.*}}] {leadDimension = 40 : index} : {{.*}} -> !gpu.mma_matrix<16x16xf16, "AOp">
// CHECK: gpu.subgroup_mma_load_matrix %[[STAGE]][%c1024{{.*}}] {leadDimension = 16 : index} : {{.*}} -> !gpu.mma_matrix<16x16xf16, "BOp">
// CHECK: gpu.subgroup_mma_compute
// CHECK: gpu.barrier
// CHECK: scf.yield
// What --explain reads: 2 x 2 heads x 20 x 40 x (32 + 16), halved (causal).
// CHECK: } {autoglm.flops = 7.680000e+04 : f64, autoglm.operand_type = "f16"}
// The rows divided by their sums, written through the score tile, rows
// past the 20th left out.
// CHECK: gpu.subgroup_mma_elementwise  mulf %[[OUT]]
// CHECK: gpu.subgroup_mma_store_matrix %{{.*}}, %[[SCORES]]
// CHECK: gpu.barrier
// CHECK: arith.cmpi ult, %{{.*}}, %c20
// CHECK: memref.store %{{.*}}, %arg3[%c0, %[[BY]],
// CHECK: gpu.barrier
// CHECK: gpu.terminator
// CHECK-NOT: autoglm.attention_buffers
func.func @causal(%q: memref<1x2x20x32xf32>, %k: memref<1x1x40x32xf32>, %v: memref<1x1x40x16xf32>, %out: memref<1x2x20x16xf32>) {
  autoglm.attention_buffers %q, %k, %v into %out {scale = 0.125 : f32, causal = true}
      : memref<1x2x20x32xf32>, memref<1x1x40x32xf32>, memref<1x1x40x16xf32>, memref<1x2x20x16xf32>
  return
}

// -----

// Symbolic batch and key length: the grid's z and the number of key steps
// come from the operands' extents; the mask, broadcast over batch and
// heads, is read at index 0 there, and along its symbolic extent where it
// is 1 at run time; no FLOPs are stated (unknown at compile time).
// CHECK-LABEL: func.func @masked
// CHECK-DAG: %[[SK:.*]] = memref.dim %arg1, %c2
// CHECK-DAG: %[[B:.*]] = memref.dim %arg0, %c0
// CHECK: gpu.launch blocks({{.*}}) in (%{{.*}} = %c1, %{{.*}} = %c2{{.*}}, %{{.*}} = %[[B]])
// CHECK: arith.ceildivui %[[SK]], %c32
// CHECK: %[[MCOLS:.*]] = memref.dim %arg3, %c3
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[MCOLS]], %c1
// CHECK: %[[COL:.*]] = arith.select %[[ONE]], %c0, %{{.*}} : index
// CHECK: memref.load %arg3[%c0, %c0, %{{.*}}, %[[COL]]] : memref<1x1x20x?xf32>
// CHECK: } {autoglm.operand_type = "f16"}
func.func @masked(%q: memref<?x2x20x16xf32>, %k: memref<?x2x?x16xf32>, %v: memref<?x2x?x16xf32>, %mask: memref<1x1x20x?xf32>, %out: memref<?x2x20x16xf32>) {
  autoglm.attention_buffers %q, %k, %v, %mask into %out {scale = 0.25 : f32}
      : memref<?x2x20x16xf32>, memref<?x2x?x16xf32>, memref<?x2x?x16xf32>, memref<1x1x20x?xf32>, memref<?x2x20x16xf32>
  return
}

// -----

func.func @head_size_8(%q: memref<1x2x32x8xf32>, %k: memref<1x2x32x8xf32>, %v: memref<1x2x32x8xf32>, %out: memref<1x2x32x8xf32>) {
  // expected-error @+1 {{does not fit the GPU's attention kernel (head sizes multiples of 16 up to 128, at least 16 query rows known when compiling)}}
  autoglm.attention_buffers %q, %k, %v into %out {scale = 0.25 : f32}
      : memref<1x2x32x8xf32>, memref<1x2x32x8xf32>, memref<1x2x32x8xf32>, memref<1x2x32x8xf32>
  return
}

// -----

func.func @symbolic_queries(%q: memref<1x2x?x16xf32>, %k: memref<1x2x?x16xf32>, %v: memref<1x2x?x16xf32>, %out: memref<1x2x?x16xf32>) {
  // expected-error @+1 {{does not fit the GPU's attention kernel}}
  autoglm.attention_buffers %q, %k, %v into %out {scale = 0.25 : f32}
      : memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>, memref<1x2x?x16xf32>
  return
}
