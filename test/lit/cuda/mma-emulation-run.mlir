// REQUIRES: mlir-runner
// The emulation of nvgpu.mma.sync and nvgpu.ldmatrix
// (autoglm-emulate-gpu-threads) against MLIR's own layout of their
// fragments: a warp's 16x16 x 16x8 product, written as vector.contract in
// a thread loop of 32 lanes, runs once as MLIR's CPU lowering computes the
// contraction (the reference), and once as convert-vector-to-gpu
// distributes it over the lanes for mma.m16n8k16 and the emulation runs
// it; the two print the same sums (small integers: exact). From global
// memory each lane loads its fragments' elements itself (by gpu.lane_id);
// from shared memory the fragments are ldmatrix's: A by 4 matrices, B
// stored [n][k] by 2, B stored [k][n] by 2 transposed. (On the CPU the
// workgroup memory space is dropped after the emulation. bf16 fragments
// are laid out as f16's; convert-vector-to-gpu does not take bf16, the
// attention kernel's bf16 builds are checked by
// test/e2e/test_cuda_emulated.py.)
//
// DEFINE: %{lower} = --convert-vector-to-scf --convert-scf-to-cf --lower-affine --convert-vector-to-llvm="vector-contract-lowering=outerproduct" --expand-strided-metadata --finalize-memref-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-func-to-llvm --convert-cf-to-llvm --convert-ub-to-llvm --reconcile-unrealized-casts
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// DEFINE: %{cpu} = sed 's/, #gpu.address_space<workgroup>//g'
// RUN: %{cpu} %s | autoglm-opt %{lower} | %{run} > %t.reference
// RUN: autoglm-opt %s --convert-vector-to-gpu="use-nvgpu=true" --canonicalize --autoglm-emulate-gpu-threads | %{cpu} | autoglm-opt %{lower} | %{run} > %t.emulated
// RUN: %python %S/Inputs/compare_printed.py %t.reference %t.emulated --rtol 0 --atol 0
//
// Distributed, each product is an mma.sync in the thread loop.
// RUN: autoglm-opt %s --convert-vector-to-gpu="use-nvgpu=true" --canonicalize | FileCheck %s
// CHECK-LABEL: func.func @from_global
// CHECK: gpu.lane_id
// CHECK: vector.load
// CHECK: nvgpu.mma.sync({{.*}}) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>)
// CHECK-LABEL: func.func @from_shared
// CHECK: nvgpu.ldmatrix %arg0{{.*}} {numTiles = 4 : i32, transpose = false}
// CHECK: nvgpu.ldmatrix %arg1{{.*}} {numTiles = 2 : i32, transpose = false}
// CHECK: nvgpu.mma.sync
// CHECK-LABEL: func.func @from_shared_k_by_n
// CHECK: nvgpu.ldmatrix %arg1{{.*}} {numTiles = 2 : i32, transpose = true}
// CHECK: nvgpu.mma.sync

#mapA = affine_map<(m, n, k) -> (m, k)>
#mapB = affine_map<(m, n, k) -> (n, k)>
#mapBk = affine_map<(m, n, k) -> (k, n)>
#mapC = affine_map<(m, n, k) -> (m, n)>

// D = C + A Bᵀ, B given as [n][k], in global memory.
func.func @from_global(%a: memref<16x16xf16>, %b: memref<8x16xf16>, %c: memref<16x8xf32>, %out: memref<16x8xf32>) {
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

// The same, A and B in shared memory.
func.func @from_shared(%a: memref<16x16xf16, #gpu.address_space<workgroup>>, %b: memref<8x16xf16, #gpu.address_space<workgroup>>, %c: memref<16x8xf32>, %out: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %h = arith.constant 0.0 : f16
  %f = arith.constant 0.0 : f32
  scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
    %va = vector.transfer_read %a[%c0, %c0], %h {in_bounds = [true, true]} : memref<16x16xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
    %vb = vector.transfer_read %b[%c0, %c0], %h {in_bounds = [true, true]} : memref<8x16xf16, #gpu.address_space<workgroup>>, vector<8x16xf16>
    %vc = vector.transfer_read %c[%c0, %c0], %f {in_bounds = [true, true]} : memref<16x8xf32>, vector<16x8xf32>
    %d = vector.contract {indexing_maps = [#mapA, #mapB, #mapC], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<16x16xf16>, vector<8x16xf16> into vector<16x8xf32>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
    scf.reduce
  }
  return
}

// D = C + A B, B given as [k][n], in shared memory.
func.func @from_shared_k_by_n(%a: memref<16x16xf16, #gpu.address_space<workgroup>>, %b: memref<16x8xf16, #gpu.address_space<workgroup>>, %c: memref<16x8xf32>, %out: memref<16x8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c32 = arith.constant 32 : index
  %h = arith.constant 0.0 : f16
  %f = arith.constant 0.0 : f32
  scf.parallel (%t) = (%c0) to (%c32) step (%c1) {
    %va = vector.transfer_read %a[%c0, %c0], %h {in_bounds = [true, true]} : memref<16x16xf16, #gpu.address_space<workgroup>>, vector<16x16xf16>
    %vb = vector.transfer_read %b[%c0, %c0], %h {in_bounds = [true, true]} : memref<16x8xf16, #gpu.address_space<workgroup>>, vector<16x8xf16>
    %vc = vector.transfer_read %c[%c0, %c0], %f {in_bounds = [true, true]} : memref<16x8xf32>, vector<16x8xf32>
    %d = vector.contract {indexing_maps = [#mapA, #mapBk, #mapC], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<16x16xf16>, vector<16x8xf16> into vector<16x8xf32>
    vector.transfer_write %d, %out[%c0, %c0] {in_bounds = [true, true]} : vector<16x8xf32>, memref<16x8xf32>
    scf.reduce
  }
  return
}

// Operands (i * 5 + j * s) mod 7 - 3, s = 3, 5, 4 and 2.
memref.global "private" constant @a : memref<16x16xf16> = dense<[[-3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0], [2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0], [0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0], [-2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0], [3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0], [1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0], [-1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0], [-3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0], [2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0], [0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0], [-2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0], [3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0], [1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0], [-1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0], [-3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0], [2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0, 1.0, -3.0, 0.0, 3.0, -1.0, 2.0, -2.0]]>
memref.global "private" constant @b : memref<8x16xf16> = dense<[[-3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0], [2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0], [0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0], [-2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0], [3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0], [1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0], [-1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0], [-3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0, 0.0, -2.0, 3.0, 1.0, -1.0, -3.0, 2.0]]>
memref.global "private" constant @bk : memref<16x8xf16> = dense<[[-3.0, 1.0, -2.0, 2.0, -1.0, 3.0, 0.0, -3.0], [2.0, -1.0, 3.0, 0.0, -3.0, 1.0, -2.0, 2.0], [0.0, -3.0, 1.0, -2.0, 2.0, -1.0, 3.0, 0.0], [-2.0, 2.0, -1.0, 3.0, 0.0, -3.0, 1.0, -2.0], [3.0, 0.0, -3.0, 1.0, -2.0, 2.0, -1.0, 3.0], [1.0, -2.0, 2.0, -1.0, 3.0, 0.0, -3.0, 1.0], [-1.0, 3.0, 0.0, -3.0, 1.0, -2.0, 2.0, -1.0], [-3.0, 1.0, -2.0, 2.0, -1.0, 3.0, 0.0, -3.0], [2.0, -1.0, 3.0, 0.0, -3.0, 1.0, -2.0, 2.0], [0.0, -3.0, 1.0, -2.0, 2.0, -1.0, 3.0, 0.0], [-2.0, 2.0, -1.0, 3.0, 0.0, -3.0, 1.0, -2.0], [3.0, 0.0, -3.0, 1.0, -2.0, 2.0, -1.0, 3.0], [1.0, -2.0, 2.0, -1.0, 3.0, 0.0, -3.0, 1.0], [-1.0, 3.0, 0.0, -3.0, 1.0, -2.0, 2.0, -1.0], [-3.0, 1.0, -2.0, 2.0, -1.0, 3.0, 0.0, -3.0], [2.0, -1.0, 3.0, 0.0, -3.0, 1.0, -2.0, 2.0]]>
memref.global "private" constant @c : memref<16x8xf32> = dense<[[-3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0, -3.0], [2.0, -3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0], [0.0, 2.0, -3.0, -1.0, 1.0, 3.0, -2.0, 0.0], [-2.0, 0.0, 2.0, -3.0, -1.0, 1.0, 3.0, -2.0], [3.0, -2.0, 0.0, 2.0, -3.0, -1.0, 1.0, 3.0], [1.0, 3.0, -2.0, 0.0, 2.0, -3.0, -1.0, 1.0], [-1.0, 1.0, 3.0, -2.0, 0.0, 2.0, -3.0, -1.0], [-3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0, -3.0], [2.0, -3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0], [0.0, 2.0, -3.0, -1.0, 1.0, 3.0, -2.0, 0.0], [-2.0, 0.0, 2.0, -3.0, -1.0, 1.0, 3.0, -2.0], [3.0, -2.0, 0.0, 2.0, -3.0, -1.0, 1.0, 3.0], [1.0, 3.0, -2.0, 0.0, 2.0, -3.0, -1.0, 1.0], [-1.0, 1.0, 3.0, -2.0, 0.0, 2.0, -3.0, -1.0], [-3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0, -3.0], [2.0, -3.0, -1.0, 1.0, 3.0, -2.0, 0.0, 2.0]]>

func.func @print(%m: memref<16x8xf32>) {
  %p = memref.cast %m : memref<16x8xf32> to memref<*xf32>
  func.call @printMemrefF32(%p) : (memref<*xf32>) -> ()
  return
}

func.func @main() {
  %a = memref.get_global @a : memref<16x16xf16>
  %b = memref.get_global @b : memref<8x16xf16>
  %bk = memref.get_global @bk : memref<16x8xf16>
  %c = memref.get_global @c : memref<16x8xf32>
  %d = memref.alloc() : memref<16x8xf32>
  func.call @from_global(%a, %b, %c, %d) : (memref<16x16xf16>, memref<8x16xf16>, memref<16x8xf32>, memref<16x8xf32>) -> ()
  func.call @print(%d) : (memref<16x8xf32>) -> ()
  %sa = memref.alloc() : memref<16x16xf16, #gpu.address_space<workgroup>>
  %sb = memref.alloc() : memref<8x16xf16, #gpu.address_space<workgroup>>
  %sbk = memref.alloc() : memref<16x8xf16, #gpu.address_space<workgroup>>
  memref.copy %a, %sa : memref<16x16xf16> to memref<16x16xf16, #gpu.address_space<workgroup>>
  memref.copy %b, %sb : memref<8x16xf16> to memref<8x16xf16, #gpu.address_space<workgroup>>
  memref.copy %bk, %sbk : memref<16x8xf16> to memref<16x8xf16, #gpu.address_space<workgroup>>
  func.call @from_shared(%sa, %sb, %c, %d) : (memref<16x16xf16, #gpu.address_space<workgroup>>, memref<8x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf32>, memref<16x8xf32>) -> ()
  func.call @print(%d) : (memref<16x8xf32>) -> ()
  func.call @from_shared_k_by_n(%sa, %sbk, %c, %d) : (memref<16x16xf16, #gpu.address_space<workgroup>>, memref<16x8xf16, #gpu.address_space<workgroup>>, memref<16x8xf32>, memref<16x8xf32>) -> ()
  func.call @print(%d) : (memref<16x8xf32>) -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>)
