// RUN: autoglm-opt %s --autoglm-expand-bfloat16 | FileCheck %s

// Truncations to bf16 and extensions from it, scalar and vector, become
// integer arithmetic on the bits: no conversion op to or from bf16 is left
// for LLVM to lower (on CPUs without bfloat16 instructions, into calls of
// __truncsfbf2).
// CHECK-LABEL: func.func @conversions
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: arith.bitcast {{.*}} : f32 to i32
// CHECK: arith.shrui
// CHECK: arith.bitcast {{.*}} : vector<8xf32> to vector<8xi32>
// CHECK-NOT: arith.truncf
// CHECK-NOT: arith.extf
// CHECK: return
func.func @conversions(%x: f32, %v: vector<8xf32>, %b: bf16, %w: vector<8xbf16>)
    -> (bf16, vector<8xbf16>, f32, vector<8xf32>) {
  %0 = arith.truncf %x : f32 to bf16
  %1 = arith.truncf %v : vector<8xf32> to vector<8xbf16>
  %2 = arith.extf %b : bf16 to f32
  %3 = arith.extf %w : vector<8xbf16> to vector<8xf32>
  return %0, %1, %2, %3 : bf16, vector<8xbf16>, f32, vector<8xf32>
}

// Other conversions stay.
// CHECK-LABEL: func.func @others
// CHECK: arith.truncf {{.*}} : f32 to f16
// CHECK: arith.extf {{.*}} : f16 to f32
func.func @others(%x: f32, %h: f16) -> (f16, f32) {
  %0 = arith.truncf %x : f32 to f16
  %1 = arith.extf %h : f16 to f32
  return %0, %1 : f16, f32
}
