// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// float8 elements are bytes below the dialect; encoding from f32 is integer
// arithmetic on the float32 bits, ending in the byte.
// CHECK-LABEL: func.func @cast_to_f8
// CHECK-SAME: (%{{.*}}: tensor<4xf32> {{.*}}) -> tensor<4xi8>
// CHECK: linalg.generic
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i8):
// CHECK: arith.bitcast %[[X]] : f32 to i32
// CHECK: arith.shrui
// CHECK: arith.select
// CHECK: %[[B:.*]] = arith.trunci %{{.*}} : i32 to i8
// CHECK-NEXT: linalg.yield %[[B]] : i8
func.func @cast_to_f8(%x: tensor<4xf32>) -> tensor<4xf8E4M3FN> {
  %0 = autoglm.cast %x {to = f8E4M3FN} : (tensor<4xf32>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// Decoding is exact in f32; a narrower float target rounds once from there.
// CHECK-LABEL: func.func @cast_from_f8
// CHECK-SAME: (%{{.*}}: tensor<4xi8> {{.*}}) -> tensor<4xf16>
// CHECK: ^bb0(%[[B:.*]]: i8, %{{.*}}: f16):
// CHECK: arith.extui %[[B]] : i8 to i32
// CHECK: arith.uitofp %{{.*}} : i32 to f32
// CHECK: %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[F]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[H]] : f16
func.func @cast_from_f8(%x: tensor<4xf8E5M2>) -> tensor<4xf16> {
  %0 = autoglm.cast %x {to = f16} : (tensor<4xf8E5M2>) -> tensor<4xf16>
  return %0 : tensor<4xf16>
}

// -----

// int4 wraps (as numpy does) and is stored sign-extended in its byte.
// CHECK-LABEL: func.func @cast_to_int4
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: i8):
// CHECK-NEXT: %[[W:.*]] = arith.fptosi %[[X]] : f32 to i32
// CHECK-NEXT: %[[N:.*]] = arith.trunci %[[W]] : i32 to i4
// CHECK-NEXT: %[[B:.*]] = arith.extsi %[[N]] : i4 to i8
// CHECK-NEXT: linalg.yield %[[B]] : i8
func.func @cast_to_int4(%x: tensor<4xf32>) -> tensor<4xi4> {
  %0 = autoglm.cast %x {to = i4} : (tensor<4xf32>) -> tensor<4xi4>
  return %0 : tensor<4xi4>
}

// -----

// A uint4 byte is its value: dequantizing converts it as a uint8.
// CHECK-LABEL: func.func @dequantize_uint4
// CHECK-SAME: (%{{.*}}: tensor<4xi8> {{.*}}, %{{.*}}: tensor<f32> {{.*}}, %{{.*}}: tensor<i8> {{.*}}) -> tensor<4xf32>
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.subf
// CHECK: arith.mulf
func.func @dequantize_uint4(%x: tensor<4xui4>, %s: tensor<f32>, %zp: tensor<ui4>) -> tensor<4xf32> {
  %0 = autoglm.dequantize_linear %x, %s, %zp {axis = 0 : i64}
      : (tensor<4xui4>, tensor<f32>, tensor<ui4>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// To float8 the (zero) zero point is not added, so -0 survives; the division
// is rounded by the conversion, not by roundeven.
// CHECK-LABEL: func.func @quantize_f8
// CHECK: ^bb0(%[[X:.*]]: f32, %[[S:.*]]: f32, %{{.*}}: i8, %{{.*}}: i8):
// CHECK-NEXT: %[[Q:.*]] = arith.divf %[[X]], %[[S]] : f32
// CHECK-NEXT: arith.bitcast %[[Q]] : f32 to i32
// CHECK-NOT: math.roundeven
// CHECK-NOT: arith.addf
// CHECK: linalg.yield %{{.*}} : i8
func.func @quantize_f8(%x: tensor<4xf32>, %s: tensor<f32>, %zp: tensor<f8E4M3FN>) -> tensor<4xf8E4M3FN> {
  %0 = autoglm.quantize_linear %x, %s, %zp {axis = 0 : i64, saturate = false}
      : (tensor<4xf32>, tensor<f32>, tensor<f8E4M3FN>) -> tensor<4xf8E4M3FN>
  return %0 : tensor<4xf8E4M3FN>
}

// -----

// Sub-byte constants become their bytes: int4 sign-extended, float4 the
// encoding (-6.0 is 0b1111).
// CHECK-LABEL: func.func @sub_byte_constants
// CHECK-DAG: arith.constant dense<[-8, 7, -1]> : tensor<3xi8>
// CHECK-DAG: arith.constant dense<[15, 1]> : tensor<2xi8>
// CHECK-DAG: arith.constant dense<[56, -2]> : tensor<2xi8>
func.func @sub_byte_constants() -> (tensor<3xi4>, tensor<2xf4E2M1FN>, tensor<2xf8E4M3FN>) {
  %0 = autoglm.constant dense<[-8, 7, -1]> : tensor<3xi4>
  %1 = autoglm.constant dense<[-6.0, 0.5]> : tensor<2xf4E2M1FN>
  %2 = autoglm.constant dense<[1.0, -448.0]> : tensor<2xf8E4M3FN>
  return %0, %1, %2 : tensor<3xi4>, tensor<2xf4E2M1FN>, tensor<2xf8E4M3FN>
}
