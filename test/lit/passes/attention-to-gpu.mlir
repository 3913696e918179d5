// RUN: autoglm-opt %s --split-input-file --autoglm-attention-to-gpu --canonicalize --verify-diagnostics | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-attention-to-gpu=operand-type=bf16 --canonicalize --verify-diagnostics | FileCheck %s --check-prefix=BF16
// RUN: not autoglm-opt %s --split-input-file --autoglm-attention-to-gpu=operand-type=f32 2>&1 | FileCheck %s --check-prefix=TYPE

// TYPE: operand-type must be f16 or bf16, not 'f32'

// bf16 builds: the same kernel with bf16 operands.
// BF16-LABEL: func.func @causal
// BF16: workgroup(%{{.*}} : memref<1280xbf16, #gpu.address_space<workgroup>>, %{{.*}} : memref<768xbf16, #gpu.address_space<workgroup>>)
// BF16: arith.truncf %{{.*}} : f32 to bf16
// BF16: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
// BF16: autoglm.operand_type = "bf16"

// Causal grouped-query attention (2 query heads on 1 K/V head), 20 query
// rows against 40 keys: one block of 128 threads per 64 query rows and
// head (grid 1 x 2 x 1), its shared memory the step's 32 keys (rows of
// 32 + 8 halves) and values (rows of 16 + 8 halves). Each
// lane reads its share of the warp's two 16x16 Q tiles from device memory,
// pairs of floats narrowed into A fragments; the key loop runs over the steps of 32 keys up
// to the causal limit of the block's last row (here past the 40 keys: 2
// steps), carrying the two 8-column output fragments and the lane's two
// rows' maxima and sums.
// CHECK-LABEL: func.func @causal
// CHECK: gpu.launch blocks(%{{[^,]*}}, %[[BY:[^,]*]], %{{[^)]*}}) in (%{{[^ ]*}} = %c1, %{{[^ ]*}} = %c2, %{{[^ ]*}} = %c1) threads(%[[T:[^,]*]], %{{[^,]*}}, %{{[^)]*}}) in (%{{[^ ]*}} = %c128, %{{[^ ]*}} = %c1, %{{[^ ]*}} = %c1)
// CHECK-SAME: workgroup(%[[KEYS:.*]] : memref<1280xf16, #gpu.address_space<workgroup>>, %[[VALUES:.*]] : memref<768xf16, #gpu.address_space<workgroup>>)
// The K/V head of query head BY is BY / 2.
// CHECK: %[[KV:.*]] = arith.divui %[[BY]], %c2
// CHECK-COUNT-4: vector.load %arg0[%c0, %[[BY]], {{.*}} : memref<1x2x20x32xf32>, vector<2xf32>
// CHECK: %[[Q0:.*]] = vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK-COUNT-4: vector.load %arg0[%c0, %[[BY]],
// CHECK: %[[Q1:.*]] = vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK: %[[OUT:.*]]:6 = scf.for %{{.*}} = %c0 to %c2 step %c1 iter_args(%[[O0:[^ ]*]] = %{{[^,]*}}, %[[O1:[^ ]*]] = %{{.*}}) -> (vector<2x2xf32>, vector<2x2xf32>, f32, f32, f32, f32)
// The step's keys and values, from K/V head KV: 2 and 1 vectors of 4 per
// thread, all loaded before any is stored, stored 4 halves at once.
// CHECK-COUNT-2: vector.load %arg1[%c0, %[[KV]], {{.*}} : memref<1x1x40x32xf32>, vector<4xf32>
// CHECK-NOT: store
// CHECK: vector.load %arg2[%c0, %[[KV]], {{.*}} : memref<1x1x40x16xf32>, vector<4xf32>
// CHECK: vector.store %{{.*}}, %[[KEYS]][%{{.*}}] {alignment = 8 : i64} : memref<1280xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK: vector.store
// CHECK: vector.store %{{.*}}, %[[VALUES]][%{{.*}}] {alignment = 8 : i64} : memref<768xf16, #gpu.address_space<workgroup>>, vector<4xf16>
// CHECK: gpu.barrier
// Scores: 4 fragments of 8 keys, each the two Q tiles times K's, whose
// two B fragments one ldmatrix of four 8x8 matrices reads (keys by dims,
// as staged).
// CHECK: %[[K:.*]] = nvgpu.ldmatrix %[[KEYS]][%{{.*}}] {numTiles = 4 : i32, transpose = false} : memref<1280xf16, #gpu.address_space<workgroup>> -> vector<4x2xf16>
// CHECK: vector.extract %[[K]][0]
// CHECK: vector.extract %[[K]][1]
// CHECK: vector.extract %[[K]][2]
// CHECK: vector.extract %[[K]][3]
// CHECK: %[[S0:.*]] = nvgpu.mma.sync(%[[Q0]], %{{.*}}, %{{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
// CHECK: nvgpu.mma.sync(%[[Q1]], %{{.*}}, %[[S0]])
// CHECK-COUNT-6: nvgpu.mma.sync
// Each row's maximum over the group of 4 lanes, then exp.
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c1_i32, %c32_i32 : f32
// CHECK: gpu.shuffle  xor %{{.*}}, %c2_i32, %c32_i32 : f32
// The probabilities as two A fragments, the output scaled by its rows'
// factors, then probabilities times values, 16 keys a tile, both of
// whose B fragments one ldmatrix reads transposed (staged keys by dims,
// needed dims by keys).
// CHECK: %[[P0:.*]] = vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK: %[[P1:.*]] = vector.from_elements {{.*}} : vector<4x2xf16>
// CHECK: %[[F:.*]] = vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK: %[[SCALED:.*]] = arith.mulf %[[O0]], %[[F]] : vector<2x2xf32>
// CHECK: nvgpu.ldmatrix %[[VALUES]][%{{.*}}] {numTiles = 4 : i32, transpose = true}
// CHECK: %[[PV:.*]] = nvgpu.mma.sync(%[[P0]], %{{.*}}, %[[SCALED]])
// CHECK: nvgpu.mma.sync(%[[P1]], %{{.*}}, %[[PV]])
// CHECK: arith.mulf %[[O1]], %[[F]]
// CHECK-COUNT-2: nvgpu.mma.sync
// CHECK: gpu.barrier
// CHECK: scf.yield
// What --explain reads: 2 x 2 heads x 20 x 40 x (32 + 16), halved (causal).
// CHECK: } {autoglm.flops = 7.680000e+04 : f64, autoglm.operand_type = "f16"}
// Each row's sum over its group of lanes; rows past the 20th left out.
// CHECK: gpu.shuffle  xor %[[OUT]]#4, %c1_i32, %c32_i32 : f32
// CHECK: arith.divf
// CHECK: gpu.shuffle  xor %[[OUT]]#5, %c1_i32, %c32_i32 : f32
// CHECK: arith.cmpi ult, %{{.*}}, %c20
// CHECK-NEXT: scf.if
// CHECK-COUNT-4: memref.store %{{.*}}, %arg3[%c0, %[[BY]],
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
