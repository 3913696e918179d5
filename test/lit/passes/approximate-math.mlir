// RUN: autoglm-opt %s --autoglm-approximate-math | FileCheck %s

// f32 exp, tanh and erf become arithmetic (no libm call, so loops around
// them vectorize); the exponent is rebuilt with integer shifts.
// CHECK-LABEL: func.func @approximated
// CHECK-NOT: math.exp
// CHECK-NOT: math.tanh
// CHECK-NOT: math.erf
// CHECK: arith.shli
// CHECK: return
func.func @approximated(%x: f32) -> (f32, f32, f32) {
  %0 = math.exp %x : f32
  %1 = math.tanh %x : f32
  %2 = math.erf %x : f32
  return %0, %1, %2 : f32, f32, f32
}

// Other element types and other functions keep their math ops.
// CHECK-LABEL: func.func @kept
// CHECK: math.exp %{{.*}} : f16
// CHECK: math.log %{{.*}} : f32
// CHECK: math.exp %{{.*}} : f64
func.func @kept(%h: f16, %x: f32, %d: f64) -> (f16, f32, f64) {
  %0 = math.exp %h : f16
  %1 = math.log %x : f32
  %2 = math.exp %d : f64
  return %0, %1, %2 : f16, f32, f64
}
