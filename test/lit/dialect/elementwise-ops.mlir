// RUN: autoglm-opt %s | FileCheck %s
// Printing and re-parsing gives the same IR, in custom and in generic form.
// RUN: autoglm-opt %s | autoglm-opt | FileCheck %s
// RUN: autoglm-opt %s --mlir-print-op-generic | autoglm-opt | FileCheck %s

// CHECK-LABEL: func.func @unary
// CHECK-SAME: (%[[X:.*]]: tensor<4xf16>, %[[I:.*]]: tensor<4xi32>, %[[U:.*]]: tensor<4xui8>)
func.func @unary(%x: tensor<4xf16>, %i: tensor<4xi32>, %u: tensor<4xui8>) {
  // CHECK: autoglm.sign %[[X]] : tensor<4xf16>
  %0 = autoglm.sign %x : tensor<4xf16>
  // CHECK: autoglm.sign %[[I]] : tensor<4xi32>
  %1 = autoglm.sign %i : tensor<4xi32>
  // CHECK: autoglm.ceil %[[X]] : tensor<4xf16>
  %2 = autoglm.ceil %x : tensor<4xf16>
  // CHECK: autoglm.floor %[[X]]
  %3 = autoglm.floor %x : tensor<4xf16>
  // CHECK: autoglm.sin %[[X]]
  %4 = autoglm.sin %x : tensor<4xf16>
  // CHECK: autoglm.cos %[[X]]
  %5 = autoglm.cos %x : tensor<4xf16>
  // CHECK: autoglm.tan %[[X]]
  %6 = autoglm.tan %x : tensor<4xf16>
  // CHECK: autoglm.asin %[[X]]
  %7 = autoglm.asin %x : tensor<4xf16>
  // CHECK: autoglm.acos %[[X]]
  %8 = autoglm.acos %x : tensor<4xf16>
  // CHECK: autoglm.atan %[[X]]
  %9 = autoglm.atan %x : tensor<4xf16>
  // CHECK: autoglm.sinh %[[X]]
  %10 = autoglm.sinh %x : tensor<4xf16>
  // CHECK: autoglm.cosh %[[X]]
  %11 = autoglm.cosh %x : tensor<4xf16>
  // CHECK: autoglm.asinh %[[X]]
  %12 = autoglm.asinh %x : tensor<4xf16>
  // CHECK: autoglm.acosh %[[X]]
  %13 = autoglm.acosh %x : tensor<4xf16>
  // CHECK: autoglm.atanh %[[X]]
  %14 = autoglm.atanh %x : tensor<4xf16>
  // CHECK: autoglm.expm1 %[[X]]
  %15 = autoglm.expm1 %x : tensor<4xf16>
  // CHECK: autoglm.log1p %[[X]]
  %16 = autoglm.log1p %x : tensor<4xf16>
  // CHECK: autoglm.not %[[U]] : tensor<4xui8>
  %17 = autoglm.not %u : tensor<4xui8>
  return
}

// CHECK-LABEL: func.func @binary
// CHECK-SAME: (%[[A:.*]]: tensor<2x4xi1>, %[[B:.*]]: tensor<4xi1>, %[[S:.*]]: tensor<3xui16>, %[[F:.*]]: tensor<2x3xf32>, %[[G:.*]]: tensor<3xf32>)
func.func @binary(%a: tensor<2x4xi1>, %b: tensor<4xi1>, %s: tensor<3xui16>, %f: tensor<2x3xf32>, %g: tensor<3xf32>) {
  // CHECK: autoglm.and %[[A]], %[[B]] : (tensor<2x4xi1>, tensor<4xi1>) -> tensor<2x4xi1>
  %0 = autoglm.and %a, %b : (tensor<2x4xi1>, tensor<4xi1>) -> tensor<2x4xi1>
  // CHECK: autoglm.or %[[A]], %[[B]]
  %1 = autoglm.or %a, %b : (tensor<2x4xi1>, tensor<4xi1>) -> tensor<2x4xi1>
  // CHECK: autoglm.xor %[[A]], %[[B]]
  %2 = autoglm.xor %a, %b : (tensor<2x4xi1>, tensor<4xi1>) -> tensor<2x4xi1>
  // CHECK: autoglm.shift_left %[[S]], %[[S]] : (tensor<3xui16>, tensor<3xui16>) -> tensor<3xui16>
  %3 = autoglm.shift_left %s, %s : (tensor<3xui16>, tensor<3xui16>) -> tensor<3xui16>
  // CHECK: autoglm.shift_right %[[S]], %[[S]]
  %4 = autoglm.shift_right %s, %s : (tensor<3xui16>, tensor<3xui16>) -> tensor<3xui16>
  // CHECK: autoglm.mod %[[F]], %[[G]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %5 = autoglm.mod %f, %g : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: autoglm.mod %[[F]], %[[G]] {fmod = true}
  %6 = autoglm.mod %f, %g {fmod = true} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  // CHECK: autoglm.less_equal %[[F]], %[[G]] : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  %7 = autoglm.less_equal %f, %g : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  // CHECK: autoglm.greater_equal %[[F]], %[[G]]
  %8 = autoglm.greater_equal %f, %g : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
  return
}
