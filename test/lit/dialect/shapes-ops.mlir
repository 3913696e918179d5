// RUN: autoglm-opt %s | FileCheck %s
// Printing and re-parsing gives the same IR, in custom and in generic form.
// RUN: autoglm-opt %s | autoglm-opt | FileCheck %s
// RUN: autoglm-opt %s --mlir-print-op-generic | autoglm-opt | FileCheck %s

// Default attributes (reduction "none", batch_dims 0, mode "constant") are
// not printed.
// CHECK-LABEL: func.func @gathers_and_scatters
// CHECK: autoglm.gather_elements %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
// CHECK: autoglm.gather_nd %{{.*}}, %{{.*}} : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
// CHECK: autoglm.scatter_elements %{{.*}}, %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
// CHECK: autoglm.scatter_nd %{{.*}}, %{{.*}}, %{{.*}} {reduction = "min"} : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
func.func @gathers_and_scatters(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>,
                                %nd: tensor<2x1xi64>, %v: tensor<2x4xf32>)
    -> (tensor<3x2xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>) {
  %0 = autoglm.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  %1 = autoglm.gather_nd %x, %nd {batch_dims = 0 : i64} : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2x4xf32>
  %2 = autoglm.scatter_elements %x, %i, %u {axis = 1 : i64, reduction = "none"} : (tensor<3x4xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<3x4xf32>
  %3 = autoglm.scatter_nd %x, %nd, %v {reduction = "min"} : (tensor<3x4xf32>, tensor<2x1xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return %0, %1, %2, %3 : tensor<3x2xf32>, tensor<2x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>
}

// CHECK-LABEL: func.func @others
// CHECK: autoglm.one_hot %{{.*}}, %{{.*}} {axis = 1 : i64, depth = 5 : i64} : (tensor<4xi64>, tensor<2xf32>) -> tensor<4x5xf32>
// CHECK: autoglm.einsum %{{.*}}, %{{.*}} {equation = "ij,jk->ik"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
// CHECK: autoglm.pad %{{.*}} {mode = "wrap", pads = array<i64: 1, 1, 1, 1>} : (tensor<3x4xf32>) -> tensor<5x6xf32>
// CHECK: autoglm.pad %{{.*}} {pads = array<i64: 1, 1, 1, 1>} : (tensor<3x4xf32>) -> tensor<5x6xf32>
func.func @others(%i: tensor<4xi64>, %v: tensor<2xf32>, %a: tensor<3x4xf32>, %b: tensor<4x5xf32>)
    -> (tensor<4x5xf32>, tensor<3x5xf32>, tensor<5x6xf32>, tensor<5x6xf32>) {
  %0 = autoglm.one_hot %i, %v {depth = 5 : i64, axis = 1 : i64} : (tensor<4xi64>, tensor<2xf32>) -> tensor<4x5xf32>
  %1 = autoglm.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<3x4xf32>, tensor<4x5xf32>) -> tensor<3x5xf32>
  %2 = autoglm.pad %a {pads = array<i64: 1, 1, 1, 1>, mode = "wrap"} : (tensor<3x4xf32>) -> tensor<5x6xf32>
  %3 = autoglm.pad %a {pads = array<i64: 1, 1, 1, 1>, mode = "constant"} : (tensor<3x4xf32>) -> tensor<5x6xf32>
  return %0, %1, %2, %3 : tensor<4x5xf32>, tensor<3x5xf32>, tensor<5x6xf32>, tensor<5x6xf32>
}

// CHECK-LABEL: func.func @range
// CHECK: autoglm.range %{{.*}} {delta = 1 : i32, start = 0 : i32} : tensor<?xi32>
func.func @range(%n: index) -> tensor<?xi32> {
  %0 = autoglm.range %n {start = 0 : i32, delta = 1 : i32} : tensor<?xi32>
  return %0 : tensor<?xi32>
}
