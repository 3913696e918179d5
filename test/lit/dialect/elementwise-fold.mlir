// RUN: autoglm-opt %s --split-input-file --canonicalize | FileCheck %s

// Rounding, remainders and bitwise logic of constants fold: they appear in
// the shape arithmetic of exported models.

// Floor and ceil of a scaled size (Resize output sizes).
// CHECK-LABEL: func.func @floor_ceil
// CHECK-DAG: %[[F:.*]] = autoglm.constant dense<[2.000000e+00, -3.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[C:.*]] = autoglm.constant dense<[3.000000e+00, -2.000000e+00]> : tensor<2xf32>
// CHECK: return %[[F]], %[[C]]
func.func @floor_ceil() -> (tensor<2xf32>, tensor<2xf32>) {
  %x = autoglm.constant dense<[2.5, -2.5]> : tensor<2xf32>
  %0 = autoglm.floor %x : tensor<2xf32>
  %1 = autoglm.ceil %x : tensor<2xf32>
  return %0, %1 : tensor<2xf32>, tensor<2xf32>
}

// -----

// Floored remainders take the divisor's sign, truncated ones the dividend's.
// CHECK-LABEL: func.func @mod
// CHECK-DAG: %[[FLOORED:.*]] = autoglm.constant dense<[1, -1, 2, 0]> : tensor<4xi64>
// CHECK-DAG: %[[TRUNC:.*]] = autoglm.constant dense<[1, 1, -1, 0]> : tensor<4xi64>
// CHECK-DAG: %[[FLOAT:.*]] = autoglm.constant dense<[1.500000e+00, -0.000000e+00, 0x7FC00000]> : tensor<3xf32>
// CHECK: return %[[FLOORED]], %[[TRUNC]], %[[FLOAT]]
func.func @mod() -> (tensor<4xi64>, tensor<4xi64>, tensor<3xf32>) {
  %a = autoglm.constant dense<[7, 7, -7, 6]> : tensor<4xi64>
  %b = autoglm.constant dense<[3, -2, 3, 3]> : tensor<4xi64>
  %0 = autoglm.mod %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = autoglm.mod %a, %b {fmod = true} : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %x = autoglm.constant dense<[-0.5, 4.0, 1.0]> : tensor<3xf32>
  %y = autoglm.constant dense<[2.0, -2.0, 0.0]> : tensor<3xf32>
  %2 = autoglm.mod %x, %y : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
  return %0, %1, %2 : tensor<4xi64>, tensor<4xi64>, tensor<3xf32>
}

// -----

// Division by zero is left to run time.
// CHECK-LABEL: func.func @mod_by_zero
// CHECK: autoglm.mod
func.func @mod_by_zero() -> tensor<2xi32> {
  %a = autoglm.constant dense<[7, 7]> : tensor<2xi32>
  %b = autoglm.constant dense<[3, 0]> : tensor<2xi32>
  %0 = autoglm.mod %a, %b : (tensor<2xi32>, tensor<2xi32>) -> tensor<2xi32>
  return %0 : tensor<2xi32>
}

// -----

// CHECK-LABEL: func.func @logic
// CHECK-DAG: %[[AND:.*]] = autoglm.constant dense<[false, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[OR:.*]] = autoglm.constant dense<[true, false, true]> : tensor<3xi1>
// CHECK-DAG: %[[XOR:.*]] = autoglm.constant dense<[true, false, false]> : tensor<3xi1>
// CHECK-DAG: %[[NOT:.*]] = autoglm.constant dense<[-13, 0]> : tensor<2xi8>
// CHECK-DAG: %[[LE:.*]] = autoglm.constant dense<[true, true, false]> : tensor<3xi1>
// CHECK-DAG: %[[GE:.*]] = autoglm.constant dense<[false, true, true]> : tensor<3xi1>
// CHECK: return %[[AND]], %[[OR]], %[[XOR]], %[[NOT]], %[[LE]], %[[GE]]
func.func @logic() -> (tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2xi8>, tensor<3xi1>, tensor<3xi1>) {
  %p = autoglm.constant dense<[true, false, true]> : tensor<3xi1>
  %q = autoglm.constant dense<[false, false, true]> : tensor<3xi1>
  %0 = autoglm.and %p, %q : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %1 = autoglm.or %p, %q : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %2 = autoglm.xor %p, %q : (tensor<3xi1>, tensor<3xi1>) -> tensor<3xi1>
  %i = autoglm.constant dense<[12, -1]> : tensor<2xi8>
  %3 = autoglm.not %i : tensor<2xi8>
  %a = autoglm.constant dense<[1, 2, 3]> : tensor<3xi64>
  %b = autoglm.constant dense<2> : tensor<i64>
  %4 = autoglm.less_equal %a, %b : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  %5 = autoglm.greater_equal %a, %b : (tensor<3xi64>, tensor<i64>) -> tensor<3xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<3xi1>, tensor<3xi1>, tensor<3xi1>, tensor<2xi8>, tensor<3xi1>, tensor<3xi1>
}
