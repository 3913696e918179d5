// RUN: autoglm-opt %s --split-input-file --canonicalize | FileCheck %s

// Constant folding of the small integer subgraphs exporters use for shapes,
// masks and slice bounds.

// The Shape -> Gather -> Unsqueeze -> Concat chain that computes a Reshape
// target folds to one constant.
// CHECK-LABEL: func.func @shape_gather_unsqueeze_concat
// CHECK-NEXT: %[[C:.*]] = autoglm.constant dense<[2, 16, -1]> : tensor<3xi64>
// CHECK-NEXT: return %[[C]] : tensor<3xi64>
func.func @shape_gather_unsqueeze_concat(%x: tensor<2x16x64xf32>) -> tensor<3xi64> {
  %s = autoglm.shape %x {start = 0 : i64, end = 3 : i64} : (tensor<2x16x64xf32>) -> tensor<3xi64>
  %i0 = autoglm.constant dense<0> : tensor<i64>
  %i1 = autoglm.constant dense<1> : tensor<i64>
  %d0 = autoglm.gather %s, %i0 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %d1 = autoglm.gather %s, %i1 {axis = 0 : i64} : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
  %u0 = autoglm.unsqueeze %d0 {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %u1 = autoglm.unsqueeze %d1 {axes = array<i64: 0>} : (tensor<i64>) -> tensor<1xi64>
  %m = autoglm.constant dense<-1> : tensor<1xi64>
  %c = autoglm.concat %u0, %u1, %m {axis = 0 : i64} : (tensor<1xi64>, tensor<1xi64>, tensor<1xi64>) -> tensor<3xi64>
  return %c : tensor<3xi64>
}

// -----

// A partial shape range.
// CHECK-LABEL: func.func @shape_range
// CHECK-NEXT: %[[C:.*]] = autoglm.constant dense<[16, 64]> : tensor<2xi64>
// CHECK-NEXT: return %[[C]]
func.func @shape_range(%x: tensor<2x16x64xf32>) -> tensor<2xi64> {
  %s = autoglm.shape %x {start = 1 : i64, end = 3 : i64} : (tensor<2x16x64xf32>) -> tensor<2xi64>
  return %s : tensor<2xi64>
}

// -----

//===----------------------------------------------------------------------===//
// Cast
//===----------------------------------------------------------------------===//

// Float to integer truncates toward zero; to i1 is "!= 0".
// CHECK-LABEL: func.func @cast_float_to_int_and_bool
// CHECK-DAG: %[[I:.*]] = autoglm.constant dense<[-2, 2, 0, 0]> : tensor<4xi64>
// CHECK-DAG: %[[B:.*]] = autoglm.constant dense<[true, true, false, true]> : tensor<4xi1>
// CHECK-NOT: autoglm.cast
// CHECK: return %[[I]], %[[B]]
func.func @cast_float_to_int_and_bool() -> (tensor<4xi64>, tensor<4xi1>) {
  %f = autoglm.constant dense<[-2.7, 2.9, 0.0, 0.5]> : tensor<4xf32>
  %0 = autoglm.cast %f {to = i64} : (tensor<4xf32>) -> tensor<4xi64>
  %1 = autoglm.cast %f {to = i1} : (tensor<4xf32>) -> tensor<4xi1>
  return %0, %1 : tensor<4xi64>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @cast_int_to_bool_and_float
// CHECK-DAG: %[[B:.*]] = autoglm.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[F:.*]] = autoglm.constant dense<[-3.000000e+00, 0.000000e+00, 7.000000e+00]> : tensor<3xf32>
// CHECK-NOT: autoglm.cast
// CHECK: return %[[B]], %[[F]]
func.func @cast_int_to_bool_and_float() -> (tensor<3xi1>, tensor<3xf32>) {
  %i = autoglm.constant dense<[-3, 0, 7]> : tensor<3xi64>
  %0 = autoglm.cast %i {to = i1} : (tensor<3xi64>) -> tensor<3xi1>
  %1 = autoglm.cast %i {to = f32} : (tensor<3xi64>) -> tensor<3xf32>
  return %0, %1 : tensor<3xi1>, tensor<3xf32>
}

// -----

// Booleans and unsigned integers widen with zeros; narrowing wraps.
// CHECK-LABEL: func.func @cast_integer_widths
// CHECK-DAG: %[[BF:.*]] = autoglm.constant dense<[1.000000e+00, 0.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[BI:.*]] = autoglm.constant dense<[1, 0]> : tensor<2xi64>
// CHECK-DAG: %[[UI:.*]] = autoglm.constant dense<[200, 7]> : tensor<2xi32>
// CHECK-DAG: %[[UF:.*]] = autoglm.constant dense<[2.000000e+02, 7.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[N:.*]] = autoglm.constant dense<[44, -1]> : tensor<2xi8>
// CHECK-DAG: %[[S:.*]] = autoglm.constant dense<[44, 65535]> : tensor<2xui16>
// CHECK-NOT: autoglm.cast
// CHECK: return %[[BF]], %[[BI]], %[[UI]], %[[UF]], %[[N]], %[[S]]
func.func @cast_integer_widths() -> (tensor<2xf32>, tensor<2xi64>, tensor<2xi32>, tensor<2xf32>, tensor<2xi8>, tensor<2xui16>) {
  %b = autoglm.constant dense<[true, false]> : tensor<2xi1>
  %0 = autoglm.cast %b {to = f32} : (tensor<2xi1>) -> tensor<2xf32>
  %1 = autoglm.cast %b {to = i64} : (tensor<2xi1>) -> tensor<2xi64>
  %u = autoglm.constant dense<[200, 7]> : tensor<2xui8>
  %2 = autoglm.cast %u {to = i32} : (tensor<2xui8>) -> tensor<2xi32>
  %3 = autoglm.cast %u {to = f32} : (tensor<2xui8>) -> tensor<2xf32>
  %i = autoglm.constant dense<[300, -1]> : tensor<2xi32>
  %4 = autoglm.cast %i {to = i8} : (tensor<2xi32>) -> tensor<2xi8>
  %5 = autoglm.cast %4 {to = ui16} : (tensor<2xi8>) -> tensor<2xui16>
  return %0, %1, %2, %3, %4, %5 : tensor<2xf32>, tensor<2xi64>, tensor<2xi32>, tensor<2xf32>, tensor<2xi8>, tensor<2xui16>
}

// -----

// Float narrowing rounds to nearest; out of range becomes infinity.
// CHECK-LABEL: func.func @cast_float_widths
// CHECK-DAG: %[[H:.*]] = autoglm.constant dense<[1.000000e+00, 0x7C00]> : tensor<2xf16>
// CHECK-DAG: %[[D:.*]] = autoglm.constant dense<[1.000000e+00, 6.553600e+04]> : tensor<2xf64>
// CHECK: return %[[H]], %[[D]]
func.func @cast_float_widths() -> (tensor<2xf16>, tensor<2xf64>) {
  %f = autoglm.constant dense<[1.0, 65536.0]> : tensor<2xf32>
  %0 = autoglm.cast %f {to = f16} : (tensor<2xf32>) -> tensor<2xf16>
  %1 = autoglm.cast %f {to = f64} : (tensor<2xf32>) -> tensor<2xf64>
  return %0, %1 : tensor<2xf16>, tensor<2xf64>
}

// -----

//===----------------------------------------------------------------------===//
// Arithmetic with numpy broadcasting
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @int64_arith_broadcast
// CHECK-DAG: %[[ADD:.*]] = autoglm.constant dense<{{\[}}[3, -4, 4], [6, 8, -10]]> : tensor<2x3xi64>
// CHECK-DAG: %[[SUB:.*]] = autoglm.constant dense<{{\[}}[-9, -17, -2], [-16, -15, -26]]> : tensor<2x3xi64>
// CHECK-DAG: %[[MUL:.*]] = autoglm.constant dense<{{\[}}[20, 30, -40], [40, 60, -80]]> : tensor<2x3xi64>
// CHECK-DAG: %[[DIV:.*]] = autoglm.constant dense<{{\[}}[0, -2, -2], [2, 1, 1]]> : tensor<2x3xi64>
// CHECK-DAG: %[[MIN:.*]] = autoglm.constant dense<{{\[}}[1, -7, -4], [2, 3, -6]]> : tensor<2x3xi64>
// CHECK-DAG: %[[MAX:.*]] = autoglm.constant dense<{{\[}}[2, 3, 8], [4, 5, -4]]> : tensor<2x3xi64>
// CHECK-NOT: autoglm.{{add|sub|mul|div|min|max}}
// CHECK: return %[[ADD]], %[[SUB]], %[[MUL]], %[[DIV]], %[[MIN]], %[[MAX]]
func.func @int64_arith_broadcast() -> (tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>) {
  %a = autoglm.constant dense<[[1, -7, 8], [4, 5, -6]]> : tensor<2x3xi64>
  %b = autoglm.constant dense<[2, 3, -4]> : tensor<3xi64>
  %c = autoglm.constant dense<[[10], [20]]> : tensor<2x1xi64>
  %0 = autoglm.add %a, %b : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %1 = autoglm.sub %a, %c : (tensor<2x3xi64>, tensor<2x1xi64>) -> tensor<2x3xi64>
  // Both operands broadcast: [2, 1] x [3].
  %2 = autoglm.mul %c, %b : (tensor<2x1xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  // Signed division truncates toward zero.
  %3 = autoglm.div %a, %b : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %4 = autoglm.min %a, %b : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  %5 = autoglm.max %a, %b : (tensor<2x3xi64>, tensor<3xi64>) -> tensor<2x3xi64>
  return %0, %1, %2, %3, %4, %5 : tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>, tensor<2x3xi64>
}

// -----

// A scalar operand broadcasts to every element.
// CHECK-LABEL: func.func @scalar_broadcast
// CHECK-NEXT: %[[C:.*]] = autoglm.constant dense<[0, 1, 2]> : tensor<3xi64>
// CHECK-NEXT: return %[[C]]
func.func @scalar_broadcast() -> tensor<3xi64> {
  %a = autoglm.constant dense<[1, 2, 3]> : tensor<3xi64>
  %one = autoglm.constant dense<1> : tensor<i64>
  %0 = autoglm.sub %a, %one : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Unsigned types divide and compare as unsigned (200 is not -56).
// CHECK-LABEL: func.func @unsigned_arith
// CHECK-DAG: %[[DIV:.*]] = autoglm.constant dense<[66, 0]> : tensor<2xui8>
// CHECK-DAG: %[[MAX:.*]] = autoglm.constant dense<[200, 100]> : tensor<2xui8>
// CHECK-DAG: %[[GT:.*]] = autoglm.constant dense<[true, false]> : tensor<2xi1>
// CHECK: return %[[DIV]], %[[MAX]], %[[GT]]
func.func @unsigned_arith() -> (tensor<2xui8>, tensor<2xui8>, tensor<2xi1>) {
  %a = autoglm.constant dense<[200, 9]> : tensor<2xui8>
  %b = autoglm.constant dense<[3, 100]> : tensor<2xui8>
  %0 = autoglm.div %a, %b : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %1 = autoglm.max %a, %b : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xui8>
  %2 = autoglm.greater %a, %b : (tensor<2xui8>, tensor<2xui8>) -> tensor<2xi1>
  return %0, %1, %2 : tensor<2xui8>, tensor<2xui8>, tensor<2xi1>
}

// -----

// Float folds follow IEEE: NaN propagates through min, x / 0 is infinity.
// CHECK-LABEL: func.func @float_arith
// CHECK-DAG: %[[ADD:.*]] = autoglm.constant dense<[2.000000e+00, 0x7FC00000]> : tensor<2xf32>
// CHECK-DAG: %[[MIN:.*]] = autoglm.constant dense<[5.000000e-01, 0x7FC00000]> : tensor<2xf32>
// CHECK-DAG: %[[DIV:.*]] = autoglm.constant dense<[0x7F800000, 0xFF800000]> : tensor<2xf32>
// CHECK: return %[[ADD]], %[[MIN]], %[[DIV]]
func.func @float_arith() -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %a = autoglm.constant dense<[1.5, -2.0]> : tensor<2xf32>
  %b = autoglm.constant dense<[0.5, 0x7FC00000]> : tensor<2xf32>
  %0 = autoglm.add %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %1 = autoglm.min %a, %b : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %z = autoglm.constant dense<0.0> : tensor<f32>
  %2 = autoglm.div %a, %z : (tensor<2xf32>, tensor<f32>) -> tensor<2xf32>
  return %0, %1, %2 : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Comparisons and where
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @compare
// CHECK-DAG: %[[EQ:.*]] = autoglm.constant dense<[false, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[LT:.*]] = autoglm.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[GT:.*]] = autoglm.constant dense<false> : tensor<3xi1>
// CHECK-NOT: autoglm.{{equal|less|greater}}
// CHECK: return %[[EQ]], %[[LT]], %[[GT]]
func.func @compare() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>) {
  %a = autoglm.constant dense<[1, 5, -3]> : tensor<3xi64>
  %b = autoglm.constant dense<5> : tensor<1xi64>
  %0 = autoglm.equal %a, %b : (tensor<3xi64>, tensor<1xi64>) -> tensor<3xi1>
  %1 = autoglm.less %a, %b : (tensor<3xi64>, tensor<1xi64>) -> tensor<3xi1>
  %2 = autoglm.greater %a, %b : (tensor<3xi64>, tensor<1xi64>) -> tensor<3xi1>
  return %0, %1, %2 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>
}

// -----

// Comparisons with NaN are false.
// CHECK-LABEL: func.func @compare_nan
// CHECK-DAG: %[[LT:.*]] = autoglm.constant dense<[false, true]> : tensor<2xi1>
// CHECK-DAG: %[[EQ:.*]] = autoglm.constant dense<false> : tensor<2xi1>
// CHECK: return %[[LT]], %[[EQ]]
func.func @compare_nan() -> (tensor<2xi1>, tensor<2xi1>) {
  %f = autoglm.constant dense<[0x7FC00000, 1.0]> : tensor<2xf32>
  %g = autoglm.constant dense<[0x7FC00000, 2.0]> : tensor<2xf32>
  %0 = autoglm.less %f, %g : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  %1 = autoglm.equal %f, %g : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xi1>
  return %0, %1 : tensor<2xi1>, tensor<2xi1>
}

// -----

// The mask broadcasts along rows, the fill value everywhere.
// CHECK-LABEL: func.func @where
// CHECK-NEXT: %[[C:.*]] = autoglm.constant dense<{{\[}}[1, -1, 3], [4, -1, 6]]> : tensor<2x3xi64>
// CHECK-NEXT: return %[[C]]
func.func @where() -> tensor<2x3xi64> {
  %c = autoglm.constant dense<[true, false, true]> : tensor<3xi1>
  %x = autoglm.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %y = autoglm.constant dense<-1> : tensor<i64>
  %0 = autoglm.where %c, %x, %y : (tensor<3xi1>, tensor<2x3xi64>, tensor<i64>) -> tensor<2x3xi64>
  return %0 : tensor<2x3xi64>
}

// -----

// A causal mask: less(col, row) selects between 0 and -inf.
// CHECK-LABEL: func.func @causal_mask
// CHECK-NEXT: %[[C:.*]] = autoglm.constant dense<{{\[}}[0.000000e+00, 0xFF800000, 0xFF800000], [0.000000e+00, 0.000000e+00, 0xFF800000], [0.000000e+00, 0.000000e+00, 0.000000e+00]]> : tensor<3x3xf32>
// CHECK-NEXT: return %[[C]]
func.func @causal_mask() -> tensor<3x3xf32> {
  %row = autoglm.constant dense<[[0], [1], [2]]> : tensor<3x1xi64>
  %col = autoglm.constant dense<[0, 1, 2]> : tensor<3xi64>
  %future = autoglm.greater %col, %row : (tensor<3xi64>, tensor<3x1xi64>) -> tensor<3x3xi1>
  %ninf = autoglm.constant dense<0xFF800000> : tensor<f32>
  %zero = autoglm.constant dense<0.0> : tensor<f32>
  %0 = autoglm.where %future, %ninf, %zero : (tensor<3x3xi1>, tensor<f32>, tensor<f32>) -> tensor<3x3xf32>
  return %0 : tensor<3x3xf32>
}

// -----

//===----------------------------------------------------------------------===//
// Data movement of constants
//===----------------------------------------------------------------------===//

// CHECK-LABEL: func.func @slice
// CHECK-DAG: %[[FWD:.*]] = autoglm.constant dense<{{\[}}[2, 3]]> : tensor<1x2xi64>
// CHECK-DAG: %[[REV:.*]] = autoglm.constant dense<{{\[}}[3, 1], [6, 4]]> : tensor<2x2xi64>
// CHECK: return %[[FWD]], %[[REV]]
func.func @slice() -> (tensor<1x2xi64>, tensor<2x2xi64>) {
  %a = autoglm.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0 = autoglm.slice %a {starts = array<i64: 0, 1>, ends = array<i64: 1, 3>, steps = array<i64: 1, 1>} : (tensor<2x3xi64>) -> tensor<1x2xi64>
  // Negative step: columns 2, 0.
  %1 = autoglm.slice %a {starts = array<i64: 0, 2>, ends = array<i64: 2, -1>, steps = array<i64: 1, -2>} : (tensor<2x3xi64>) -> tensor<2x2xi64>
  return %0, %1 : tensor<1x2xi64>, tensor<2x2xi64>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-NEXT: %[[C:.*]] = autoglm.constant dense<{{\[}}[1, 4], [2, 5], [3, 6]]> : tensor<3x2xi64>
// CHECK-NEXT: return %[[C]]
func.func @transpose() -> tensor<3x2xi64> {
  %a = autoglm.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0 = autoglm.transpose %a {perm = array<i64: 1, 0>} : (tensor<2x3xi64>) -> tensor<3x2xi64>
  return %0 : tensor<3x2xi64>
}

// -----

// CHECK-LABEL: func.func @transpose_3d
// CHECK-NEXT: %[[C:.*]] = autoglm.constant dense<{{\[\[\[}}0, 4, 8]], {{\[}}[1, 5, 9]], {{\[}}[2, 6, 10]], {{\[}}[3, 7, 11]]]> : tensor<4x1x3xi64>
func.func @transpose_3d() -> tensor<4x1x3xi64> {
  %a = autoglm.constant dense<[[[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]]> : tensor<1x3x4xi64>
  %0 = autoglm.transpose %a {perm = array<i64: 2, 0, 1>} : (tensor<1x3x4xi64>) -> tensor<4x1x3xi64>
  return %0 : tensor<4x1x3xi64>
}

// -----

// CHECK-LABEL: func.func @concat
// CHECK-DAG: %[[C1:.*]] = autoglm.constant dense<{{\[}}[1, 2, 3, 7, 8], [4, 5, 6, 9, 10]]> : tensor<2x5xi64>
// CHECK-DAG: %[[C0:.*]] = autoglm.constant dense<{{\[}}[1, 2, 3], [4, 5, 6], [0, 0, 0]]> : tensor<3x3xi64>
// CHECK: return %[[C1]], %[[C0]]
func.func @concat() -> (tensor<2x5xi64>, tensor<3x3xi64>) {
  %a = autoglm.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %b = autoglm.constant dense<[[7, 8], [9, 10]]> : tensor<2x2xi64>
  %0 = autoglm.concat %a, %b {axis = 1 : i64} : (tensor<2x3xi64>, tensor<2x2xi64>) -> tensor<2x5xi64>
  %z = autoglm.constant dense<0> : tensor<1x3xi64>
  %1 = autoglm.concat %a, %z {axis = 0 : i64} : (tensor<2x3xi64>, tensor<1x3xi64>) -> tensor<3x3xi64>
  return %0, %1 : tensor<2x5xi64>, tensor<3x3xi64>
}

// -----

// CHECK-LABEL: func.func @expand
// CHECK-NEXT: %[[C:.*]] = autoglm.constant dense<{{\[\[\[}}1, 1, 1], [2, 2, 2]], {{\[}}[1, 1, 1], [2, 2, 2]]]> : tensor<2x2x3xi64>
// CHECK-NEXT: return %[[C]]
func.func @expand() -> tensor<2x2x3xi64> {
  %a = autoglm.constant dense<[[1], [2]]> : tensor<2x1xi64>
  %0 = autoglm.expand %a {shape = array<i64: 2, 1, 3>} : (tensor<2x1xi64>) -> tensor<2x2x3xi64>
  return %0 : tensor<2x2x3xi64>
}

// -----

// CHECK-LABEL: func.func @reshape_like
// CHECK-DAG: %[[R:.*]] = autoglm.constant dense<{{\[}}[1, 2], [3, 4], [5, 6]]> : tensor<3x2xi64>
// The two [1, 6] results are the same constant.
// CHECK-DAG: %[[U:.*]] = autoglm.constant dense<{{\[}}[1, 2, 3, 4, 5, 6]]> : tensor<1x6xi64>
// CHECK-NOT: autoglm.{{reshape|unsqueeze|squeeze|flatten}}
// CHECK: return %[[R]], %[[U]], %[[U]]
func.func @reshape_like() -> (tensor<3x2xi64>, tensor<1x6xi64>, tensor<1x6xi64>) {
  %a = autoglm.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %0 = autoglm.reshape %a : (tensor<2x3xi64>) -> tensor<3x2xi64>
  %v = autoglm.reshape %a : (tensor<2x3xi64>) -> tensor<6xi64>
  %1 = autoglm.unsqueeze %v {axes = array<i64: 0>} : (tensor<6xi64>) -> tensor<1x6xi64>
  %s = autoglm.unsqueeze %a {axes = array<i64: 0>} : (tensor<2x3xi64>) -> tensor<1x2x3xi64>
  %q = autoglm.squeeze %s {axes = array<i64: 0>} : (tensor<1x2x3xi64>) -> tensor<2x3xi64>
  %2 = autoglm.flatten %q {axis = 0 : i64} : (tensor<2x3xi64>) -> tensor<1x6xi64>
  return %0, %1, %2 : tensor<3x2xi64>, tensor<1x6xi64>, tensor<1x6xi64>
}

// -----

// Negative indices count from the end.
// CHECK-LABEL: func.func @gather
// CHECK-DAG: %[[COLS:.*]] = autoglm.constant dense<{{\[}}[3, 2], [6, 5]]> : tensor<2x2xi64>
// CHECK-DAG: %[[ROWS:.*]] = autoglm.constant dense<{{\[\[\[}}4, 5, 6]], {{\[}}[1, 2, 3]]]> : tensor<2x1x3xi64>
// CHECK-DAG: %[[F:.*]] = autoglm.constant dense<[3.500000e+00, 1.500000e+00]> : tensor<2xf32>
// CHECK: return %[[COLS]], %[[ROWS]], %[[F]]
func.func @gather() -> (tensor<2x2xi64>, tensor<2x1x3xi64>, tensor<2xf32>) {
  %a = autoglm.constant dense<[[1, 2, 3], [4, 5, 6]]> : tensor<2x3xi64>
  %i = autoglm.constant dense<[-1, 1]> : tensor<2xi64>
  %0 = autoglm.gather %a, %i {axis = 1 : i64} : (tensor<2x3xi64>, tensor<2xi64>) -> tensor<2x2xi64>
  %r = autoglm.constant dense<[[1], [-2]]> : tensor<2x1xi32>
  %1 = autoglm.gather %a, %r {axis = 0 : i64} : (tensor<2x3xi64>, tensor<2x1xi32>) -> tensor<2x1x3xi64>
  %f = autoglm.constant dense<[1.5, 2.5, 3.5]> : tensor<3xf32>
  %j = autoglm.constant dense<[2, 0]> : tensor<2xi32>
  %2 = autoglm.gather %f, %j {axis = 0 : i64} : (tensor<3xf32>, tensor<2xi32>) -> tensor<2xf32>
  return %0, %1, %2 : tensor<2x2xi64>, tensor<2x1x3xi64>, tensor<2xf32>
}

// -----

//===----------------------------------------------------------------------===//
// What does not fold
//===----------------------------------------------------------------------===//

// Integer division by zero is left for run time.
// CHECK-LABEL: func.func @no_fold_div_by_zero
// CHECK: autoglm.div
func.func @no_fold_div_by_zero() -> tensor<2xi64> {
  %a = autoglm.constant dense<[4, 5]> : tensor<2xi64>
  %z = autoglm.constant dense<[2, 0]> : tensor<2xi64>
  %0 = autoglm.div %a, %z : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// An index out of range is not folded.
// CHECK-LABEL: func.func @no_fold_gather_out_of_range
// CHECK: autoglm.gather
func.func @no_fold_gather_out_of_range() -> tensor<2xi64> {
  %a = autoglm.constant dense<[4, 5]> : tensor<2xi64>
  %i = autoglm.constant dense<[0, 2]> : tensor<2xi64>
  %0 = autoglm.gather %a, %i {axis = 0 : i64} : (tensor<2xi64>, tensor<2xi64>) -> tensor<2xi64>
  return %0 : tensor<2xi64>
}

// -----

// CHECK-LABEL: func.func @no_fold_pow
// CHECK: autoglm.pow
func.func @no_fold_pow() -> tensor<2xf32> {
  %f = autoglm.constant dense<[2.0, 3.0]> : tensor<2xf32>
  %0 = autoglm.pow %f, %f : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

// CHECK-LABEL: func.func @no_fold_non_constant
// CHECK: autoglm.add %{{.*}}, %{{.*}} : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
func.func @no_fold_non_constant(%x: tensor<3xi64>) -> tensor<3xi64> {
  %one = autoglm.constant dense<1> : tensor<i64>
  %0 = autoglm.add %x, %one : (tensor<3xi64>, tensor<i64>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// Large tensors (more than 65536 elements) are never folded, splat or not.
// CHECK-LABEL: func.func @no_fold_large
// CHECK: autoglm.add
// CHECK: autoglm.reshape
func.func @no_fold_large() -> (tensor<65537xi64>, tensor<1x65537xi64>) {
  %big = autoglm.constant dense<1> : tensor<65537xi64>
  %0 = autoglm.add %big, %big : (tensor<65537xi64>, tensor<65537xi64>) -> tensor<65537xi64>
  %1 = autoglm.reshape %big : (tensor<65537xi64>) -> tensor<1x65537xi64>
  return %0, %1 : tensor<65537xi64>, tensor<1x65537xi64>
}

// -----

// Shapes fold even when the tensor's values are unknown.
// CHECK-LABEL: func.func @shape_of_argument
// CHECK-NEXT: autoglm.constant dense<[4, 5]> : tensor<2xi64>
func.func @shape_of_argument(%x: tensor<4x5xf32>) -> tensor<2xi64> {
  %s = autoglm.shape %x {start = 0 : i64, end = 2 : i64} : (tensor<4x5xf32>) -> tensor<2xi64>
  return %s : tensor<2xi64>
}
