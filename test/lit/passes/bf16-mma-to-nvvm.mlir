// RUN: autoglm-opt %s --autoglm-bf16-mma-to-nvvm | FileCheck %s

// A bf16 product becomes nvvm.mma.sync: each register of A (4) and B (2)
// a pair of bf16 bitcast to i32, C's four sums, the result struct's four
// sums back into a vector<2x2xf32>.
// CHECK-LABEL: func.func @bf16
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK-COUNT-2: llvm.bitcast %{{.*}} : vector<2xbf16> to i32
// CHECK-COUNT-4: vector.extract %arg2[{{.*}}] : f32 from vector<2x2xf32>
// CHECK: %[[MMA:.*]] = nvvm.mma.sync A[{{.*}}] B[{{.*}}] C[{{.*}}] {layoutA = #nvvm.mma_layout<row>, layoutB = #nvvm.mma_layout<col>, multiplicandAPtxType = #nvvm.mma_type<bf16>, multiplicandBPtxType = #nvvm.mma_type<bf16>, shape = #nvvm.shape<m = 16, n = 8, k = 16>} : (i32, i32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-4: llvm.extractvalue %[[MMA]]
// CHECK: %[[D:.*]] = vector.from_elements {{.*}} : vector<2x2xf32>
// CHECK: return %[[D]]
func.func @bf16(%a: vector<4x2xbf16>, %b: vector<2x2xbf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xbf16>, vector<2x2xbf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}

// f16 products are convert-nvgpu-to-nvvm's.
// CHECK-LABEL: func.func @f16
// CHECK: nvgpu.mma.sync
// CHECK-NOT: nvvm.mma.sync
func.func @f16(%a: vector<4x2xf16>, %b: vector<2x2xf16>, %c: vector<2x2xf32>) -> vector<2x2xf32> {
  %d = nvgpu.mma.sync(%a, %b, %c) {mmaShape = [16, 8, 16]} : (vector<4x2xf16>, vector<2x2xf16>, vector<2x2xf32>) -> vector<2x2xf32>
  return %d : vector<2x2xf32>
}
