// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg | FileCheck %s

// A running product starts from 1 and multiplies the elements in range.
// CHECK-LABEL: func.func @cum_prod
// CHECK: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK: linalg.fill ins(%[[ONE]] : f32)
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction"]
// CHECK: arith.cmpi sle
// CHECK: arith.select
// CHECK: arith.mulf
func.func @cum_prod(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = autoglm.cum_prod %x {axis = 1 : i64} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

// -----

// Exclusive and reverse change only which positions count.
// CHECK-LABEL: func.func @cum_prod_exclusive_reverse
// CHECK: arith.cmpi sgt
// CHECK: arith.muli
func.func @cum_prod_exclusive_reverse(%x: tensor<8xi32>) -> tensor<8xi32> {
  %0 = autoglm.cum_prod %x {axis = 0 : i64, exclusive = true, reverse = true} : tensor<8xi32>
  return %0 : tensor<8xi32>
}
