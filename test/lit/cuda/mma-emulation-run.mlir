// REQUIRES: mlir-runner
// The emulation of nvgpu.mma.sync (autoglm-emulate-gpu-threads) against
// MLIR's own layout of its fragments: a warp's 16x16 x 16x8 product,
// written as vector.contract in a thread loop of 32 lanes, runs once as
// MLIR's CPU lowering computes the contraction (the reference), and once
// as convert-vector-to-gpu distributes it over the lanes for mma.m16n8k16
// (each lane loading the elements of its fragments' registers, by
// gpu.lane_id) and the emulation runs the mma.sync; the two print the same
// sums (small integers: exact). bf16 fragments are laid out as f16's
// (convert-vector-to-gpu does not take bf16; the attention kernel's bf16
// builds are checked by test/e2e/test_cuda_emulated.py).
//
// DEFINE: %{lower} = --convert-vector-to-scf --convert-scf-to-cf --lower-affine --convert-vector-to-llvm="vector-contract-lowering=outerproduct" --expand-strided-metadata --finalize-memref-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-func-to-llvm --convert-cf-to-llvm --convert-ub-to-llvm --reconcile-unrealized-casts
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: autoglm-opt %s %{lower} | %{run} > %t.reference
// RUN: autoglm-opt %s --convert-vector-to-gpu="use-nvgpu=true" --canonicalize --autoglm-emulate-gpu-threads %{lower} | %{run} > %t.emulated
// RUN: %python %S/Inputs/compare_printed.py %t.reference %t.emulated --rtol 0 --atol 0
//
// Distributed, the product is an mma.sync in the thread loop.
// RUN: autoglm-opt %s --convert-vector-to-gpu="use-nvgpu=true" --canonicalize | FileCheck %s
// CHECK-LABEL: func.func @warp
// CHECK: gpu.lane_id
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>)

#mapA = affine_map<(m, n, k) -> (m, k)>
#mapB = affine_map<(m, n, k) -> (n, k)>
#mapC = affine_map<(m, n, k) -> (m, n)>

// D = C + A Bᵀ, B given as [n][k].
func.func @warp(%a: memref<16x16xf16>, %b: memref<8x16xf16>, %c: memref<16x8xf32>, %out: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %h = arith.constant 0.0 : f16
  %f = arith.constant 0.0 : f32
  scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
    %va = vector.transfer_read %a[%c0, %c0], %h {in_bounds = [true, true]} : memref<16x16xf16>, vector<16x16xf16>
    %vb = vector.transfer_read %b[%c0, %c0], %h {in_bounds = [true, true]} : memref<8x16xf16>, vector<8x16xf16>
    %vc = vector.transfer_read %c[%c0, %c0], %f {in_bounds = [true, true]} : memref<16x8xf32>, vector<16x8xf32>
    %d = vector.contract {indexing_maps = [#mapA, #mapB, #mapC], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
    scf.reduce
  }
  return
}

// Operands (i * 5 + j * s) mod 7 - 3, s = 3, 5 and 2.
memref.global "private" constant @a : memref<16x16xf16> = dense<[[-3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0], [2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0], [0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0], [-2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0], [3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0], [1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0], [-1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0], [-3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0], [2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0], [0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0], [-2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0], [3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0], [1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0], [-1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0], [-3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0], [2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0]]>
memref.global "private" constant @b : memref<8x16xf16> = dense<[[-3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0], [2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0], [0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0], [-2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0], [3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0], [1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0], [-1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0], [-3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0]]>
memref.global "private" constant @c : memref<16x8xf32> = dense<[[-3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0, -3.0], [2.0, -3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0], [0.0, 2.0, -3.0, -1.0, 1.0, 3.0, -2.0, 0.0], [-2.0, 0.0, 2.0, -3.0, -1.0, 1.0, 3.0, -2.0], [3.0, -2.0, 0.0, 2.0, -3.0, -1.0, 1.0, 3.0], [1.0, 3.0, -2.0, 0.0, 2.0, -3.0, -1.0, 1.0], [-1.0, 1.0, 3.0, -2.0, 0.0, 2.0, -3.0, -1.0], [-3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0, -3.0], [2.0, -3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0], [0.0, 2.0, -3.0, -1.0, 1.0, 3.0, -2.0, 0.0], [-2.0, 0.0, 2.0, -3.0, -1.0, 1.0, 3.0, -2.0], [3.0, -2.0, 0.0, 2.0, -3.0, -1.0, 1.0, 3.0], [1.0, 3.0, -2.0, 0.0, 2.0, -3.0, -1.0, 1.0], [-1.0, 1.0, 3.0, -2.0, 0.0, 2.0, -3.0, -1.0], [-3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0, -3.0], [2.0, -3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0]]>

func.func @main() {
  %a = memref.get_global @a : memref<16x16xf16>
  %b = memref.get_global @b : memref<8x16xf16>
  %c = memref.get_global @c : memref<16x8xf32>
  %d = memref.alloc() : memref<16x8xf32>
  func.call @warp(%a, %b, %c, %d) : (memref<16x16xf16>, memref<8x16xf16>, memref<16x8xf32>, memref<16x8xf32>) -> ()
  %p = memref.cast %d : memref<16x8xf32> to memref<*xf32>
  func.call @printMemrefF32(%p) : (memref<*xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
