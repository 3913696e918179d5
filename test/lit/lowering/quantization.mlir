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

// -----

// conv_integer: the input padded with its zero point (so the padding adds
// 0; a loop fills the padded tensor from the zero point's tensor, which a
// GPU target's host code cannot read, and the input goes in the middle),
// its windows gathered into rows [n, positions, (c, kh, kw)], times the
// constant filter transposed at compile time into [(c, kh, kw), F] (the
// form the int8 GEMM packs), the sums written [n, F, positions] (the
// product's output map swaps its last two loops: the GEMM stores them
// transposed), which is [n, F, oh, ow] reshaped, with no copy. The
// filter's zero point, a constant 0, is left out.
// CHECK-LABEL: func.func @conv_integer
// CHECK-SAME: (%[[X:.*]]: tensor<1x2x4x4xi8> {{.*}}, %[[ZX:.*]]: tensor<i8>
// CHECK: %[[FILL:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME: ins(%[[ZX]] : tensor<i8>) outs(%{{.*}} : tensor<1x2x5x5xi8>)
// CHECK: %[[P:.*]] = tensor.insert_slice %[[X]] into %[[FILL]][0, 0, 1, 0] [1, 2, 4, 4] [1, 1, 1, 1]
// CHECK: %[[COL:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d3, d1 * 2 + d4, d2 * 2 + d5)>, affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3, d4, d5)>]
// CHECK-SAME: ins(%[[P]] : tensor<1x2x5x5xi8>) outs(%{{.*}} : tensor<1x2x2x2x2x2xi8>)
// CHECK: %[[ROWS:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 4, 8] : tensor<32xi8> into tensor<1x4x8xi8>
// CHECK: %[[W:.*]] = arith.constant dense<{{\[\[}}1, 9, 17], [-2, -10, -18], [3, 11, 19], [-4, -12, -20], [5, 13, 21], [-6, -14, -22], [7, 15, 23], [-8, -16, -24]]> : tensor<8x3xi8>
// CHECK: %[[SUMS:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d0, d3, d1)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK-SAME: ins(%[[ROWS]], %[[W]], %[[ZX]] : tensor<1x4x8xi8>, tensor<8x3xi8>, tensor<i8>) outs(%{{.*}} : tensor<1x3x4xi32>)
// CHECK-DAG: arith.extsi %{{.*}} : i8 to i32
// CHECK-DAG: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.subi
// CHECK: arith.muli
// CHECK-NOT: linalg.generic
// CHECK: %[[NCHW:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 3, 2, 2] : tensor<12xi32> into tensor<1x3x2x2xi32>
// CHECK-NOT: linalg.generic
// CHECK: return %[[NCHW]]
func.func @conv_integer(%x: tensor<1x2x4x4xui8>, %zx: tensor<ui8>) -> tensor<1x3x2x2xi32> {
  %w = autoglm.constant dense<[[[[1, -2], [3, -4]], [[5, -6], [7, -8]]], [[[9, -10], [11, -12]], [[13, -14], [15, -16]]], [[[17, -18], [19, -20]], [[21, -22], [23, -24]]]]> : tensor<3x2x2x2xi8>
  %zw = autoglm.constant dense<0> : tensor<i8>
  %0 = autoglm.conv_integer %x, %w, %zx, %zw {strides = array<i64: 2, 2>, pads = array<i64: 1, 0, 0, 1>, dilations = array<i64: 1, 1>}
      : (tensor<1x2x4x4xui8>, tensor<3x2x2x2xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x3x2x2xi32>
  return %0 : tensor<1x3x2x2xi32>
}

// -----

// A filter computed at run time is transposed by a copy; its zero point
// (not known to be 0) is subtracted too. No padding: no pad.
// CHECK-LABEL: func.func @conv_integer_runtime_filter
// CHECK-NOT: tensor.pad
// CHECK: %[[WT:.*]] = linalg.transpose ins(%{{.*}} : tensor<3x8xi8>) outs(%{{.*}} : tensor<8x3xi8>) permutation = [1, 0]
// CHECK: linalg.generic
// CHECK-SAME: ins(%{{.*}}, %[[WT]], %{{.*}}, %{{.*}} : tensor<1x9x8xi8>, tensor<8x3xi8>, tensor<i8>, tensor<i8>)
// CHECK-NEXT: ^bb0(%[[XE:.*]]: i8, %[[WE:.*]]: i8, %[[XZ:.*]]: i8, %[[WZ:.*]]: i8, %{{.*}}: i32):
// CHECK-DAG: %[[WW:.*]] = arith.extsi %[[WE]] : i8 to i32
// CHECK-DAG: %[[WZW:.*]] = arith.extsi %[[WZ]] : i8 to i32
// CHECK-DAG: arith.subi %[[WW]], %[[WZW]] : i32
// CHECK-DAG: %[[XW:.*]] = arith.extui %[[XE]] : i8 to i32
// CHECK-DAG: %[[XZW:.*]] = arith.extui %[[XZ]] : i8 to i32
// CHECK-DAG: arith.subi %[[XW]], %[[XZW]] : i32
func.func @conv_integer_runtime_filter(%x: tensor<1x2x4x4xui8>, %w: tensor<3x2x2x2xi8>, %zx: tensor<ui8>, %zw: tensor<i8>) -> tensor<1x3x3x3xi32> {
  %0 = autoglm.conv_integer %x, %w, %zx, %zw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<1x2x4x4xui8>, tensor<3x2x2x2xi8>, tensor<ui8>, tensor<i8>) -> tensor<1x3x3x3xi32>
  return %0 : tensor<1x3x3x3xi32>
}

// -----

// conv_integer of a signed input (the CUDA target's, for cuBLASLt's
// integer products): its zero point (here a run-time one) still pads the
// input, but the product leaves it out (extsi times extsi, no subtraction);
// z * (each filter's sum: 1 + 2 + 3 + 4 = 10 and -10) is subtracted after
// it, on the NCHW sums.
// CHECK-LABEL: func.func @conv_integer_signed
// CHECK-SAME: (%[[X:.*]]: tensor<1x1x3x3xi8> {{.*}}, %[[ZX:.*]]: tensor<i8>
// CHECK: linalg.generic {{.*}} ins(%[[ZX]] : tensor<i8>) outs(%{{.*}} : tensor<1x1x4x4xi8>)
// CHECK: tensor.insert_slice %[[X]]
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction", "parallel"]
// CHECK-NOT: arith.subi
// CHECK: arith.muli
// CHECK: %[[NCHW:.*]] = tensor.expand_shape %{{.*}} output_shape [1, 2, 3, 3]
// CHECK: %[[SUMS:.*]] = arith.constant dense<[10, -10]> : tensor<2xi32>
// CHECK: %[[EXACT:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> ()>, affine_map<(d0, d1, d2, d3) -> (d1)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>]
// CHECK-SAME: ins(%[[NCHW]], %[[ZX]], %[[SUMS]] : tensor<1x2x3x3xi32>, tensor<i8>, tensor<2xi32>)
// CHECK: %[[Z:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK: %[[SHARE:.*]] = arith.muli %[[Z]], %{{.*}} : i32
// CHECK: arith.subi %{{.*}}, %[[SHARE]] : i32
// CHECK: return %[[EXACT]]
func.func @conv_integer_signed(%x: tensor<1x1x3x3xi8>, %zx: tensor<i8>) -> tensor<1x2x3x3xi32> {
  %w = autoglm.constant dense<[[[[1, 2], [3, 4]]], [[[-1, -2], [-3, -4]]]]> : tensor<2x1x2x2xi8>
  %zw = autoglm.constant dense<0> : tensor<i8>
  %0 = autoglm.conv_integer %x, %w, %zx, %zw {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 1, 1>, dilations = array<i64: 1, 1>}
      : (tensor<1x1x3x3xi8>, tensor<2x1x2x2xi8>, tensor<i8>, tensor<i8>) -> tensor<1x2x3x3xi32>
  return %0 : tensor<1x2x3x3xi32>
}
