// The four stages of autoglm-compile, run one after another.
// RUN: autoglm-opt %s --autoglm-stage-autoglm | FileCheck %s --check-prefix=AUTOGLM
// RUN: autoglm-opt %s --autoglm-stage-autoglm --autoglm-stage-linalg \
// RUN:   | FileCheck %s --check-prefix=LINALG --implicit-check-not="= autoglm."
// RUN: autoglm-opt %s --autoglm-stage-autoglm --autoglm-stage-linalg --autoglm-stage-memref \
// RUN:   | FileCheck %s --check-prefix=MEMREF --implicit-check-not=memref.alloc \
// RUN:       --implicit-check-not=memref.dealloc --implicit-check-not="tensor<"
// RUN: autoglm-opt %s --autoglm-stage-autoglm --autoglm-stage-linalg --autoglm-stage-memref --autoglm-stage-llvm \
// RUN:   | FileCheck %s --check-prefix=LLVM --implicit-check-not=memref --implicit-check-not=malloc \
// RUN:       --implicit-check-not="!llvm.struct" \
// RUN:       --implicit-check-not=func.func --implicit-check-not=unrealized_conversion_cast

// autoglm stage: canonicalization folds the unused shape computation away
// and turns unsqueeze/squeeze into reshapes.
// AUTOGLM-LABEL: func.func @main
// AUTOGLM-NEXT: autoglm.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// AUTOGLM-NEXT: autoglm.matmul
// AUTOGLM-NEXT: autoglm.add
// AUTOGLM-NEXT: autoglm.relu
// AUTOGLM-NEXT: autoglm.reshape {{.*}} -> tensor<1x2x4xf32>
// AUTOGLM-NEXT: autoglm.softmax {{.*}} {axis = 2 : i64}
// AUTOGLM-NEXT: autoglm.reshape {{.*}} -> tensor<2x4xf32>
// AUTOGLM-NEXT: return

// linalg stage: no autoglm op is left; inputs are marked read-only; the
// bias add and relu fuse into one generic, which is not fused into the
// matmul; the relu is marked for the GEMM's epilogue.
// LINALG-LABEL: func.func @main
// LINALG-SAME: {autoglm.name = "x", bufferization.writable = false}
// LINALG: %[[MM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
// LINALG: arith.mulf
// LINALG-NEXT: arith.addf
// LINALG-NEXT: linalg.yield
// LINALG: linalg.generic {{.*}} ins(%[[MM]], %{{.*}} : tensor<2x4xf32>, tensor<4xf32>)
// LINALG-NEXT: ^bb0
// LINALG-NEXT: %[[S:.*]] = arith.addf
// LINALG-NEXT: %[[R:.*]] = arith.maximumf %[[S]], %{{.*}} {autoglm.activation = "relu"}
// LINALG-NEXT: linalg.yield %[[R]]
// The softmax's exp is a polynomial, which vectorizes.
// LINALG-NOT: math.exp
// LINALG: math.fma
// LINALG: arith.divf

// memref stage: the result is an output argument; every intermediate lives
// in the arena argument, which the symbol values (none here) and the output
// extents follow; nothing is allocated. The matmul is a call of the
// runtime's GEMM kernel (m = 2, n = 4, k = 8) into an arena buffer, with
// the bias add and relu in its epilogue.
// MEMREF: memref.global "private" constant
// MEMREF-LABEL: func.func @main
// MEMREF-SAME: (%{{.*}}: memref<2x8xf32> {autoglm.name = "x"}, %{{.*}}: memref<8x4xf32>, %[[OUT:.*]]: memref<2x4xf32> {autoglm.name = "y", bufferize.result}, %[[ARENA:.*]]: memref<{{[0-9]+}}xi8> {autoglm.arena}, %{{.*}}: memref<0xi64> {autoglm.symbol_values}, %[[DIMS:.*]]: memref<2xi64> {autoglm.output_dims})
// MEMREF-SAME: autoglm.arena_size = {{[0-9]+}} : i64
// MEMREF: %[[MM:.*]] = memref.view %[[ARENA]]
// MEMREF: memref.extract_strided_metadata %[[MM]]
// MEMREF: call @agl_kernel_sgemm(%c1_i64, %c2_i64, %c4_i64, %c8_i64, {{.*}}) {autoglm.epilogue = "bias+relu"}
// MEMREF-NOT: autoglm.activation
// MEMREF: outs(%[[OUT]] : memref<2x4xf32>)
// MEMREF: memref.store %{{.*}}, %[[DIMS]]
// MEMREF: return{{$}}
// MEMREF: func.func private @agl_kernel_sgemm

// llvm stage: one llvm.func whose arguments are bare pointers (static
// shapes need no memref descriptors); no allocation; the only call is the
// runtime's GEMM.
// LLVM: llvm.mlir.global private constant @{{.*}} : !llvm.array<4 x f32>
// LLVM: llvm.func @main(%{{.*}}: !llvm.ptr {autoglm.name = "x"}, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {autoglm.name = "y", bufferize.result}, %{{.*}}: !llvm.ptr {autoglm.arena}, %{{.*}}: !llvm.ptr {autoglm.symbol_values}, %{{.*}}: !llvm.ptr {autoglm.output_dims})
// LLVM-SAME: autoglm.arena_size
// LLVM: llvm.call @agl_kernel_sgemm(
// LLVM-NOT: llvm.call
// LLVM: llvm.store
// LLVM: llvm.return{{$}}
// LLVM: llvm.func @agl_kernel_sgemm(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i64, !llvm.ptr, i64, i64, i32, f32, !llvm.ptr, i32, !llvm.ptr, i64, i64, !llvm.ptr)
// LLVM-NOT: llvm.func
func.func @main(%x: tensor<2x8xf32> {autoglm.name = "x"}, %w: tensor<8x4xf32>)
    -> (tensor<2x4xf32> {autoglm.name = "y"}) {
  %b = autoglm.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %shape = autoglm.shape %x {start = 0 : i64, end = 2 : i64} : (tensor<2x8xf32>) -> tensor<2xi64>
  %0 = autoglm.matmul %x, %w : (tensor<2x8xf32>, tensor<8x4xf32>) -> tensor<2x4xf32>
  %1 = autoglm.add %0, %b : (tensor<2x4xf32>, tensor<4xf32>) -> tensor<2x4xf32>
  %2 = autoglm.relu %1 : tensor<2x4xf32>
  %3 = autoglm.unsqueeze %2 {axes = array<i64: 0>} : (tensor<2x4xf32>) -> tensor<1x2x4xf32>
  %4 = autoglm.softmax %3 {axis = 2 : i64} : tensor<1x2x4xf32>
  %5 = autoglm.squeeze %4 {axes = array<i64: 0>} : (tensor<1x2x4xf32>) -> tensor<2x4xf32>
  return %5 : tensor<2x4xf32>
}
