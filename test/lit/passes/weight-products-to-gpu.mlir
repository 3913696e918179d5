// RUN: autoglm-opt %s --split-input-file --autoglm-weight-products-to-gpu="weights=int4 group-size=32 max-gemv-rows=32" --canonicalize | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-weight-products-to-gpu="weights=int8 group-size=32 max-gemv-rows=32" --canonicalize | FileCheck %s --check-prefix=INT8
// RUN: autoglm-opt %s --split-input-file --autoglm-weight-products-to-gpu="weights=int4 group-size=32 max-gemv-rows=32" --autoglm-contractions-to-kernels="cuda=true" --canonicalize | FileCheck %s --check-prefix=CUBLAS
// RUN: autoglm-opt %s --split-input-file --autoglm-weight-products-to-gpu="weights=int8 group-size=32" --canonicalize | FileCheck %s --check-prefix=ESTIMATE
// RUN: not autoglm-opt %s --split-input-file --autoglm-weight-products-to-gpu="weights=int5" 2>&1 | FileCheck %s --check-prefix=BITS
// BITS: autoglm-weight-products-to-gpu: weights must be int8, int4, f16, bf16 or f32 and group-size a positive multiple of 32, not int5 and 128

// A decode step of 2 rows against a 64 x 24 weight (all 0.5): the weight
// becomes 24 rows of 8 words (4 bits: 64 depths, two groups of 32, each
// with the scale 0.5 / 7 and every value 7, nibble 15), the float weight
// goes. One block of 8 warps per 8 columns (grid 3 x 1 x 1); each lane
// loads 16 bytes (4 words, 32 depths) of its column's row and the scale
// of their group, takes the words' nibbles apart (2^23 + v by setting the
// exponent's bits, less 2^23 + 8), and multiplies them with each row's 32
// floats; the lanes' sums meet through 5 shuffles per row, lane 0 of a
// warp of a real column stores them (the output held zeros: no read).
// CHECK: module attributes {autoglm.weight_only = {bits = 4 : i64, float_bytes = 6144 : i64, format = "int4", group_size = 32 : i64, products = 1 : i64, quantized_bytes = 960 : i64}}
// CHECK-LABEL: func.func @decode
// CHECK-DAG: %[[EXPONENT:.*]] = arith.constant dense<1258291200> : vector<4xi32>
// CHECK-DAG: %[[BIAS:.*]] = arith.constant dense<0x4B000008> : vector<4xf32>
// CHECK-NOT: linalg.fill
// CHECK: %[[ROWS:.*]] = memref.get_global @w_q4 : memref<24x8xi32>
// CHECK: %[[SCALES:.*]] = memref.get_global @w_q4_scales : memref<24x2xf32>
// CHECK: gpu.launch blocks(%[[BX:[^,]*]], %{{.*}}) in (%{{[^ ]*}} = %c3, %{{[^ ]*}} = %c1, %{{[^ ]*}} = %c1) threads(%[[T:[^,]*]], %{{.*}}) in (%{{[^ ]*}} = %c256, %{{[^ ]*}} = %c1, %{{[^ ]*}} = %c1)
// CHECK: %[[WARP:.*]] = arith.divui %[[T]], %c32
// CHECK: %[[LANE:.*]] = arith.remui %[[T]], %c32
// CHECK: %[[COLUMN:.*]] = arith.addi %{{.*}}, %[[WARP]]
// CHECK: %[[READ:.*]] = arith.minui %[[COLUMN]], %c23
// CHECK: %[[WORDS:.*]] = vector.load %[[ROWS]][%[[READ]], %{{.*}}] {alignment = 16 : i64} : memref<24x8xi32>, vector<4xi32>
// CHECK: %[[SCALE:.*]] = memref.load %[[SCALES]][%[[READ]], %{{.*}}]
// CHECK: %[[LOW:.*]] = arith.andi %[[WORDS]], %{{.*}} : vector<4xi32>
// CHECK: %[[ORED:.*]] = arith.ori %[[LOW]], %[[EXPONENT]]
// CHECK: %[[FLOAT:.*]] = arith.bitcast %[[ORED]] : vector<4xi32> to vector<4xf32>
// CHECK: %[[Q0:.*]] = arith.subf %[[FLOAT]], %[[BIAS]]
// CHECK-COUNT-7: arith.shrui %[[WORDS]]
// CHECK: %[[A:.*]] = vector.load %arg0[%c0, %{{.*}}] {alignment = 16 : i64} : memref<2x64xf32>, vector<32xf32>
// CHECK: %[[A0:.*]] = vector.shuffle %[[A]], %[[A]] [0, 8, 16, 24]
// CHECK: arith.mulf %[[Q0]], %[[A0]] : vector<4xf32>
// CHECK-COUNT-7: vector.fma
// CHECK: %[[DOT:.*]] = vector.reduction <add>
// CHECK: arith.mulf %[[DOT]], %[[SCALE]] : f32
// CHECK: vector.load %arg0[%c1,
// CHECK: gpu.shuffle  xor %{{.*}}, %c16_i32, %c32_i32 {autoglm.choice = "generated GEMV (max-gemv-rows=32)", autoglm.flops = 6.144000e+03 : f64, autoglm.operand_type = "q4"} : f32
// CHECK-COUNT-9: gpu.shuffle  xor
// CHECK: arith.cmpi eq, %[[LANE]], %c0
// CHECK: scf.if
// CHECK-NOT: memref.load
// CHECK: memref.store %{{.*}}, %arg1[%c0, %[[COLUMN]]]
// CHECK: memref.store %{{.*}}, %arg1[%c1, %[[COLUMN]]]
// CHECK-NOT: memref.global "private" constant @w :
// CHECK: memref.global "private" constant @w_q4 : memref<24x8xi32> = dense<-1>
// CHECK: memref.global "private" constant @w_q4_scales : memref<24x2xf32> = dense<0.0714285746>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
memref.global "private" constant @w : memref<64x24xf32> = dense<0.5>
func.func @decode(%x: memref<2x64xf32>, %y: memref<2x24xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<64x24xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<2x24xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x64xf32>, memref<64x24xf32>) outs(%y : memref<2x24xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A batch of 3 and a symbolic row count with no bound, the weight stored
// n x k (as Gemm's transB reads it), and an output it adds to. Up to 32
// rows (chosen at run time) take the kernel: the grid's z is the batch,
// its y the row groups of 8 (as many as the rows need); the lanes of a
// warp cover the 96 depths (6 steps of 16 in 8 bits), the steps past them
// reading the last one and adding nothing. More rows take the
// dequantizing loop and the product, marked for 16-bit operands.
// Without max-gemv-rows, the estimates: this small weight's GEMV wins at
// every count the choice considers (up to 256 rows).
// ESTIMATE-LABEL: func.func @batched
// ESTIMATE: arith.cmpi ule, %{{.*}}, %c256
// ESTIMATE: autoglm.choice = "generated GEMV up to 256 rows, cuBLAS above (chosen at run time)"
// INT8-LABEL: func.func @batched
// INT8: %[[COUNT:.*]] = memref.dim %arg0, %c1 : memref<3x?x96xf32>
// INT8: %[[FEW:.*]] = arith.cmpi ule, %[[COUNT]], %c32
// INT8: scf.if %[[FEW]] {
// INT8: %[[DIM:.*]] = memref.dim %arg0, %c1 : memref<3x?x96xf32>
// INT8: %[[ROWS:.*]] = memref.get_global @wt_q8 : memref<16x24xi32>
// INT8: %[[GROUPS:.*]] = arith.ceildivui %[[DIM]], %c8
// INT8: gpu.launch blocks(%{{.*}}, %{{.*}}, %[[BZ:[^)]*]]) in (%{{[^ ]*}} = %c2, %{{[^ ]*}} = %[[GROUPS]], %{{[^ ]*}} = %c3)
// INT8: %[[LANE:.*]] = arith.remui
// INT8: %[[BATCH:.*]] = arith.remui %[[BZ]], %c3
// INT8: %[[VALID:.*]] = arith.cmpi ult, %[[LANE]], %c6
// INT8: %[[STEP:.*]] = arith.minui %[[LANE]], %c5
// INT8: %[[WORDS:.*]] = vector.load %[[ROWS]]
// Two's complement bytes to offset binary: 0x80808080.
// INT8: arith.xori %[[WORDS]], %{{.*}} : vector<4xi32>
// INT8-COUNT-3: arith.shrui
// INT8: vector.load %arg0[%[[BATCH]], %{{.*}}] {alignment = 16 : i64} : memref<3x?x96xf32>, vector<16xf32>
// INT8: arith.select %[[VALID]]
// INT8: scf.if
// INT8: %[[OLD:.*]] = memref.load %arg1[%[[BATCH]],
// INT8: %[[NEW:.*]] = arith.addf %[[OLD]],
// INT8: memref.store %[[NEW]], %arg1[%[[BATCH]],
// INT8: } else {
// INT8: %[[WEIGHT:.*]] = memref.alloc() : memref<16x96xf32>
// INT8: linalg.generic {{.*}} outs(%[[WEIGHT]] : memref<16x96xf32>)
// INT8: linalg.generic {{.*}} ins(%arg0, %[[WEIGHT]] : memref<3x?x96xf32>, memref<16x96xf32>) outs(%arg1 : memref<3x?x16xf32>) attrs =  {autoglm.choice = "generated GEMV up to 32 rows, cuBLAS above (chosen at run time) (max-gemv-rows=32)", autoglm.half_operands}
// INT8: memref.global "private" constant @wt_q8 : memref<16x24xi32>
// INT8: memref.global "private" constant @wt_q8_scales : memref<16x3xf32>
#a = affine_map<(b, m, n, k) -> (b, m, k)>
#b = affine_map<(b, m, n, k) -> (n, k)>
#c = affine_map<(b, m, n, k) -> (b, m, n)>
memref.global "private" constant @wt : memref<16x96xf32> = dense<-0.25>
func.func @batched(%x: memref<3x?x96xf32>, %y: memref<3x?x16xf32>) {
  %w = memref.get_global @wt : memref<16x96xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<3x?x96xf32>, memref<16x96xf32>) outs(%y : memref<3x?x16xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// 40 rows (more than 32): a loop right before the product writes the
// weight's values into a buffer of its own (nibble (depth % 8) of word
// depth / 8, less 8, times the group's scale) and the product reads that,
// marked for 16-bit operands; the CUDA products then write that loop's
// buffer in half and call agl_cuda_gemm_half.
// CHECK-LABEL: func.func @prefill
// CHECK: %[[ROWS:.*]] = memref.get_global @w_q4 : memref<8x8xi32>
// CHECK: %[[WEIGHT:.*]] = memref.alloc() : memref<64x8xf32>
// CHECK: linalg.generic {{.*}} ins(%[[ROWS]], %{{.*}} : memref<8x8xi32>, memref<8x2xf32>) outs(%[[WEIGHT]] : memref<64x8xf32>)
// CHECK: linalg.index 0
// CHECK: arith.shrui
// CHECK: arith.subi
// CHECK: arith.sitofp
// CHECK: linalg.generic {{.*}} ins(%arg0, %[[WEIGHT]] : memref<40x64xf32>, memref<64x8xf32>) outs(%arg1 : memref<40x8xf32>) attrs =  {autoglm.choice = "cuBLAS (max-gemv-rows=32)", autoglm.half_operands}
// CUBLAS-LABEL: func.func @prefill
// CUBLAS: %[[HALF:.*]] = memref.alloc() : memref<64x8xf16>
// CUBLAS: linalg.generic {{.*}} outs(%[[HALF]] : memref<64x8xf16>)
// CUBLAS: arith.truncf
// CUBLAS: call @agl_cuda_gemm_half({{.*}}) {{{.*}}autoglm.operand_type = "f16"}
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
memref.global "private" constant @w : memref<64x8xf32> = dense<1.0>
func.func @prefill(%x: memref<40x64xf32>, %y: memref<40x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<64x8xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<40x8xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<40x64xf32>, memref<64x8xf32>) outs(%y : memref<40x8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// Left alone: a depth that is not a multiple of 32, and a weight that is
// not a constant.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: gpu.launch
// CHECK: linalg.generic
// CHECK: linalg.generic
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
memref.global "private" constant @w : memref<48x8xf32> = dense<1.0>
func.func @kept(%x: memref<2x48xf32>, %v: memref<48x8xf32>, %y: memref<2x8xf32>) {
  %w = memref.get_global @w : memref<48x8xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x48xf32>, memref<48x8xf32>) outs(%y : memref<2x8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %v : memref<2x48xf32>, memref<48x8xf32>) outs(%y : memref<2x8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// The elementwise loop right after a product that adds a bias (indexed by
// the column) or a residual, or applies an activation, and writes another
// buffer: the kernel's lane 0 computes the loop's body on its sum and the
// other inputs' values and stores there; the loop and the product's own
// buffer go.
// INT8-LABEL: func.func @epilogues
// INT8-NOT: linalg.generic
// INT8: gpu.launch
// INT8: %[[BIAS:.*]] = memref.load %arg1[%[[COLUMN:.*]]] : memref<24xf32>
// INT8: %[[SUM:.*]] = arith.addf %{{.*}}, %[[BIAS]] : f32
// INT8: memref.store %[[SUM]], %arg3[%c0, %[[COLUMN]]]
// INT8: gpu.launch
// INT8: %[[RES:.*]] = memref.load %arg2[%c0, %[[COLUMN2:.*]]] : memref<2x24xf32>
// INT8: %[[SUM2:.*]] = arith.addf %[[RES]], %{{.*}} : f32
// INT8: memref.store %[[SUM2]], %arg4[%c0, %[[COLUMN2]]]
// Bias and SiLU (x / (1 + exp(-x))).
// INT8: gpu.launch
// INT8: %[[BIAS3:.*]] = memref.load %arg1[%[[COLUMN3:.*]]] : memref<24xf32>
// INT8: %[[X:.*]] = arith.addf %{{.*}}, %[[BIAS3]] : f32
// INT8: %[[NEG:.*]] = arith.negf %[[X]] : f32
// INT8: %[[EXP:.*]] = math.exp %[[NEG]] : f32
// INT8: %[[DEN:.*]] = arith.addf %[[EXP]], %{{.*}} : f32
// INT8: %[[SILU:.*]] = arith.divf %[[X]], %[[DEN]] : f32
// INT8: memref.store %[[SILU]], %arg5[%c0, %[[COLUMN3]]]
// INT8-NOT: linalg.generic
// INT8-LABEL: memref.global
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
memref.global "private" constant @w : memref<64x24xf32> = dense<0.5>
func.func @epilogues(%x: memref<2x64xf32>, %bias: memref<24xf32>, %res: memref<2x24xf32>, %y: memref<2x24xf32>, %z: memref<2x24xf32>, %s: memref<2x24xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<64x24xf32>
  %t = memref.alloc() : memref<2x24xf32>
  linalg.fill ins(%zero : f32) outs(%t : memref<2x24xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x64xf32>, memref<64x24xf32>) outs(%t : memref<2x24xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%t, %bias : memref<2x24xf32>, memref<24xf32>) outs(%y : memref<2x24xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %0 = arith.addf %p, %q : f32
    linalg.yield %0 : f32
  }
  %u = memref.alloc() : memref<2x24xf32>
  linalg.fill ins(%zero : f32) outs(%u : memref<2x24xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x64xf32>, memref<64x24xf32>) outs(%u : memref<2x24xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%res, %u : memref<2x24xf32>, memref<2x24xf32>) outs(%z : memref<2x24xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %0 = arith.addf %p, %q : f32
    linalg.yield %0 : f32
  }
  %v = memref.alloc() : memref<2x24xf32>
  linalg.fill ins(%zero : f32) outs(%v : memref<2x24xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<2x64xf32>, memref<64x24xf32>) outs(%v : memref<2x24xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%v, %bias : memref<2x24xf32>, memref<24xf32>) outs(%s : memref<2x24xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %0 = arith.addf %p, %q : f32
    %1 = arith.negf %0 : f32
    %2 = math.exp %1 : f32
    %3 = arith.addf %2, %one : f32
    %4 = arith.divf %0, %3 : f32
    linalg.yield %4 : f32
  }
  return
}
