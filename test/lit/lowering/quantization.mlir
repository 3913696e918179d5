// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// quantize = saturate(round_half_even(x / scale) + zero_point), computed in
// float and clamped to the range of the quantized type (here ui8: 0..255,
// converted as unsigned).
// CHECK-LABEL: func.func @quantize_per_tensor
// CHECK-SAME: (%[[X:.*]]: tensor<2x3xf32> {{.*}}, %[[S:.*]]: tensor<f32> {{.*}}, %[[Z:.*]]: tensor<i8> {{.*}}) -> tensor<2x3xi8>
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[X]], %[[S]], %[[Z]] : tensor<2x3xf32>, tensor<f32>, tensor<i8>) outs(%{{.*}} : tensor<2x3xi8>)
// CHECK-NEXT: ^bb0(%[[BX:.*]]: f32, %[[BS:.*]]: f32, %[[BZ:.*]]: i8, %{{.*}}: i8):
// CHECK-NEXT: %[[D:.*]] = arith.divf %[[BX]], %[[BS]] : f32
// CHECK-NEXT: %[[R:.*]] = math.roundeven %[[D]] : f32
// CHECK-NEXT: %[[ZF:.*]] = arith.uitofp %[[BZ]] : i8 to f32
// CHECK-NEXT: %[[A:.*]] = arith.addf %[[R]], %[[ZF]] : f32
// CHECK-NEXT: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[C1:.*]] = arith.maximumf %[[A]], %[[LO]] : f32
// CHECK-NEXT: %[[HI:.*]] = arith.constant 2.550000e+02 : f32
// CHECK-NEXT: %[[C2:.*]] = arith.minimumf %[[C1]], %[[HI]] : f32
// CHECK-NEXT: %[[Q:.*]] = arith.fptoui %[[C2]] : f32 to i8
// CHECK-NEXT: linalg.yield %[[Q]] : i8
func.func @quantize_per_tensor(%x: tensor<2x3xf32>, %s: tensor<f32>, %zp: tensor<ui8>) -> tensor<2x3xui8> {
  %0 = autoglm.quantize_linear %x, %s, %zp {axis = 1 : i64}
      : (tensor<2x3xf32>, tensor<f32>, tensor<ui8>) -> tensor<2x3xui8>
  return %0 : tensor<2x3xui8>
}

// -----

// Signed types clamp to -128..127.
// CHECK-LABEL: func.func @quantize_signed
// CHECK: arith.constant -1.280000e+02 : f32
// CHECK: arith.constant 1.270000e+02 : f32
// CHECK: arith.fptosi %{{.*}} : f32 to i8
func.func @quantize_signed(%x: tensor<2x3xf32>, %s: tensor<f32>, %zp: tensor<i8>) -> tensor<2x3xi8> {
  %0 = autoglm.quantize_linear %x, %s, %zp {axis = 1 : i64}
      : (tensor<2x3xf32>, tensor<f32>, tensor<i8>) -> tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

// dequantize = (x - zero_point) * scale; per-channel parameters are viewed
// along the axis ([3] -> [1, 3]).
// CHECK-LABEL: func.func @dequantize_per_channel
// CHECK-SAME: (%[[Q:.*]]: tensor<2x3xi8> {{.*}}, %[[S:.*]]: tensor<3xf32> {{.*}}, %[[Z:.*]]: tensor<3xi8> {{.*}}) -> tensor<2x3xf32>
// CHECK-DAG: %[[S2:.*]] = tensor.expand_shape %[[S]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xf32> into tensor<1x3xf32>
// CHECK-DAG: %[[Z2:.*]] = tensor.expand_shape %[[Z]] {{\[\[}}0, 1]] output_shape [1, 3] : tensor<3xi8> into tensor<1x3xi8>
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[Q]], %[[S2]], %[[Z2]] :
// CHECK-NEXT: ^bb0(%[[BQ:.*]]: i8, %[[BS:.*]]: f32, %[[BZ:.*]]: i8, %{{.*}}: f32):
// CHECK-NEXT: %[[QF:.*]] = arith.sitofp %[[BQ]] : i8 to f32
// CHECK-NEXT: %[[ZF:.*]] = arith.sitofp %[[BZ]] : i8 to f32
// CHECK-NEXT: %[[D:.*]] = arith.subf %[[QF]], %[[ZF]] : f32
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[D]], %[[BS]] : f32
// CHECK-NEXT: linalg.yield %[[Y]] : f32
func.func @dequantize_per_channel(%q: tensor<2x3xi8>, %s: tensor<3xf32>, %zp: tensor<3xi8>) -> tensor<2x3xf32> {
  %0 = autoglm.dequantize_linear %q, %s, %zp {axis = 1 : i64}
      : (tensor<2x3xi8>, tensor<3xf32>, tensor<3xi8>) -> tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// matmul_integer: one contraction over (m, k, n) whose body widens the
// 8-bit values as their autoglm types say (ui8 zero-extended, i8
// sign-extended), subtracts the lhs zero point (a scalar input) and
// accumulates in i32; the rhs zero point, a constant 0, is left out.
// CHECK-LABEL: func.func @matmul_integer
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d2)>]
// CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-SAME: outs(%{{.*}} : tensor<4x32xi32>)
// CHECK-NEXT: ^bb0(%[[A:.*]]: i8, %[[B:.*]]: i8, %[[Z:.*]]: i8, %[[ACC:.*]]: i32):
// CHECK-DAG: %[[AW:.*]] = arith.extui %[[A]] : i8 to i32
// CHECK-DAG: %[[ZW:.*]] = arith.extui %[[Z]] : i8 to i32
// CHECK-DAG: %[[BW:.*]] = arith.extsi %[[B]] : i8 to i32
// CHECK: %[[D:.*]] = arith.subi %[[AW]], %[[ZW]] : i32
// CHECK: %[[P:.*]] = arith.muli %[[D]], %[[BW]] : i32
// CHECK: %[[S:.*]] = arith.addi %[[ACC]], %[[P]] : i32
// CHECK: linalg.yield %[[S]] : i32
func.func @matmul_integer(%a: tensor<4x64xui8>, %b: tensor<64x32xi8>, %za: tensor<ui8>) -> tensor<4x32xi32> {
  %zb = autoglm.constant dense<0> : tensor<i8>
  %0 = autoglm.matmul_integer %a, %b, %za, %zb
      : (tensor<4x64xui8>, tensor<64x32xi8>, tensor<ui8>, tensor<i8>) -> tensor<4x32xi32>
  return %0 : tensor<4x32xi32>
}
