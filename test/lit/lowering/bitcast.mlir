// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --verify-diagnostics | FileCheck %s

// Same-width types keep their bits; unsigned types are signless here.
// CHECK-LABEL: func.func @float_to_int
// CHECK: linalg.generic
// CHECK: arith.bitcast %{{.*}} : f32 to i32
func.func @float_to_int(%x: tensor<4xf32>) -> tensor<4xui32> {
  %0 = autoglm.bitcast %x {to = ui32} : (tensor<4xf32>) -> tensor<4xui32>
  return %0 : tensor<4xui32>
}

// -----

// A bool's byte is 0 or 1.
// CHECK-LABEL: func.func @bool_to_byte
// CHECK: arith.extui %{{.*}} : i1 to i8
func.func @bool_to_byte(%x: tensor<4xi1>) -> tensor<4xui8> {
  %0 = autoglm.bitcast %x {to = ui8} : (tensor<4xi1>) -> tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

func.func @widths_differ(%x: tensor<4xf32>) -> tensor<4xi64> {
  // expected-error @+1 {{cannot reinterpret 'f32' as 'i64': the bit widths differ}}
  %0 = autoglm.bitcast %x {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
  return %0 : tensor<4xi64>
}
