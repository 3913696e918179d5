// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// Integer gemm: integer multiply-accumulate, then alpha and beta as integer
// constants (unsigned operands are signless at this level).
// CHECK-LABEL: func.func @gemm_integer
// CHECK: linalg.generic
// CHECK: arith.muli %{{.*}}, %{{.*}} : i32
// CHECK: arith.addi %{{.*}}, %{{.*}} : i32
// CHECK: linalg.generic
// CHECK: %[[ALPHA:.*]] = arith.constant 2 : i32
// CHECK-NEXT: %[[A:.*]] = arith.muli %{{.*}}, %[[ALPHA]] : i32
// CHECK-NEXT: %[[BETA:.*]] = arith.constant 3 : i32
// CHECK-NEXT: %[[B:.*]] = arith.muli %{{.*}}, %[[BETA]] : i32
// CHECK-NEXT: arith.addi %[[A]], %[[B]] : i32
// CHECK: return %{{.*}} : tensor<3x4xi32>
func.func @gemm_integer(%a: tensor<3x5xui32>, %b: tensor<4x5xui32>, %c: tensor<4xui32>) -> tensor<3x4xui32> {
  %0 = autoglm.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 3.0 : f32, transB = true}
      : (tensor<3x5xui32>, tensor<4x5xui32>, tensor<4xui32>) -> tensor<3x4xui32>
  return %0 : tensor<3x4xui32>
}
