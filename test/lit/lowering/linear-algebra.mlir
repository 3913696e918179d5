// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// MatMul and Gemm become one multiply-accumulate linalg.generic over loops
// (batch..., m, k, n), accumulating into a zero-filled tensor.

// CHECK-LABEL: func.func @matmul_2d
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32> {{.*}}, %[[B:.*]]: tensor<8x16xf32> {{.*}})
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x16xf32>
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[ACC:.*]] = linalg.fill ins(%[[ZERO]] : f32) outs(%[[EMPTY]] : tensor<4x16xf32>)
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
// CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8x16xf32>) outs(%[[ACC]] : tensor<4x16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %[[OUT:.*]]: f32):
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[Y]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[OUT]], %[[P]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]]
func.func @matmul_2d(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = autoglm.matmul %a, %b : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Batch dimensions broadcast: the lhs batch of 1 is read at index 0.
// CHECK-LABEL: func.func @matmul_batch_broadcast
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "reduction", "parallel"]
// CHECK-SAME: outs(%{{.*}} : tensor<3x4x16xf32>)
func.func @matmul_batch_broadcast(%a: tensor<1x4x8xf32>, %b: tensor<3x8x16xf32>) -> tensor<3x4x16xf32> {
  %0 = autoglm.matmul %a, %b : (tensor<1x4x8xf32>, tensor<3x8x16xf32>) -> tensor<3x4x16xf32>
  return %0 : tensor<3x4x16xf32>
}

// -----

// A missing batch dimension is not indexed at all.
// CHECK-LABEL: func.func @matmul_rank_broadcast
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3, d4) -> (d3, d4)>, affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]
func.func @matmul_rank_broadcast(%a: tensor<2x3x4x8xf32>, %b: tensor<8x16xf32>) -> tensor<2x3x4x16xf32> {
  %0 = autoglm.matmul %a, %b : (tensor<2x3x4x8xf32>, tensor<8x16xf32>) -> tensor<2x3x4x16xf32>
  return %0 : tensor<2x3x4x16xf32>
}

// -----

// A 1-D lhs is a 1-row matrix; the extra row is dropped again afterwards.
// CHECK-LABEL: func.func @matmul_vector_lhs
// CHECK-SAME: (%[[V:.*]]: tensor<8xf32> {{.*}}, %[[B:.*]]: tensor<2x8x16xf32> {{.*}})
// CHECK: %[[ROW:.*]] = tensor.expand_shape %[[V]] {{\[\[}}0, 1]] output_shape [1, 8] : tensor<8xf32> into tensor<1x8xf32>
// CHECK: %[[MM:.*]] = linalg.generic
// CHECK-SAME: ins(%[[ROW]], %[[B]] : tensor<1x8xf32>, tensor<2x8x16xf32>)
// CHECK-SAME: outs(%{{.*}} : tensor<2x1x16xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %[[MM]] {{\[\[}}0, 1, 2]] : tensor<2x1x16xf32> into tensor<32xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[FLAT]] {{\[\[}}0, 1]] output_shape [2, 16] : tensor<32xf32> into tensor<2x16xf32>
// CHECK: return %[[R]]
func.func @matmul_vector_lhs(%v: tensor<8xf32>, %b: tensor<2x8x16xf32>) -> tensor<2x16xf32> {
  %0 = autoglm.matmul %v, %b : (tensor<8xf32>, tensor<2x8x16xf32>) -> tensor<2x16xf32>
  return %0 : tensor<2x16xf32>
}

// -----

// A 1-D rhs is a 1-column matrix. Integer products use muli/addi.
// CHECK-LABEL: func.func @matmul_int_vector_rhs
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xi32> {{.*}}, %[[V:.*]]: tensor<8xi32> {{.*}})
// CHECK: %[[COL:.*]] = tensor.expand_shape %[[V]] {{\[\[}}0, 1]] output_shape [8, 1] : tensor<8xi32> into tensor<8x1xi32>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill ins(%[[ZERO]] : i32)
// CHECK: %[[MM:.*]] = linalg.generic
// CHECK-SAME: ins(%[[A]], %[[COL]] : tensor<4x8xi32>, tensor<8x1xi32>)
// CHECK: arith.muli
// CHECK-NEXT: arith.addi
// CHECK: %[[R:.*]] = tensor.collapse_shape %[[MM]] {{\[\[}}0, 1]] : tensor<4x1xi32> into tensor<4xi32>
// CHECK: return %[[R]]
func.func @matmul_int_vector_rhs(%a: tensor<4x8xi32>, %v: tensor<8xi32>) -> tensor<4xi32> {
  %0 = autoglm.matmul %a, %v : (tensor<4x8xi32>, tensor<8xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

// Transposed operands only change the indexing maps. With alpha = beta = 1
// the bias is added in a second, elementwise generic.
// CHECK-LABEL: func.func @gemm_transposed_with_bias
// CHECK-SAME: (%[[A:.*]]: tensor<8x4xf32> {{.*}}, %[[B:.*]]: tensor<16x8xf32> {{.*}}, %[[C:.*]]: tensor<16xf32> {{.*}})
// CHECK: %[[MM:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d1, d0)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
// CHECK-SAME: iterator_types = ["parallel", "reduction", "parallel"]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<8x4xf32>, tensor<16x8xf32>)
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[MM]], %[[C]] : tensor<4x16xf32>, tensor<16xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
// CHECK: return %[[R]]
func.func @gemm_transposed_with_bias(%a: tensor<8x4xf32>, %b: tensor<16x8xf32>, %c: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = autoglm.gemm %a, %b, %c {transA = true, transB = true}
      : (tensor<8x4xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// alpha and beta scale the product and the bias.
// CHECK-LABEL: func.func @gemm_alpha_beta
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ALPHA:.*]] = arith.constant 2.000000e+00 : f32
// CHECK-NEXT: %[[AX:.*]] = arith.mulf %[[X]], %[[ALPHA]] : f32
// CHECK-NEXT: %[[BETA:.*]] = arith.constant 5.000000e-01 : f32
// CHECK-NEXT: %[[BY:.*]] = arith.mulf %[[Y]], %[[BETA]] : f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[AX]], %[[BY]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
func.func @gemm_alpha_beta(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<1x16xf32>) -> tensor<4x16xf32> {
  %0 = autoglm.gemm %a, %b, %c {alpha = 2.0 : f32, beta = 0.5 : f32}
      : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<1x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// beta = 0 ignores the bias; with alpha = 1 nothing follows the product.
// CHECK-LABEL: func.func @gemm_beta_zero
// CHECK-SAME: %[[C:[a-z0-9]+]]: tensor<16xf32>
// CHECK: %[[MM:.*]] = linalg.generic
// CHECK-NOT: linalg.generic
// CHECK-NOT: %[[C]]
// CHECK: return %[[MM]]
func.func @gemm_beta_zero(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<16xf32>) -> tensor<4x16xf32> {
  %0 = autoglm.gemm %a, %b, %c {beta = 0.0 : f32}
      : (tensor<4x8xf32>, tensor<8x16xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// -----

// Without a bias, alpha alone scales the product.
// CHECK-LABEL: func.func @gemm_alpha_only
// CHECK: linalg.generic
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ALPHA:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-NEXT: %[[AX:.*]] = arith.mulf %[[X]], %[[ALPHA]] : f32
// CHECK-NEXT: linalg.yield %[[AX]]
func.func @gemm_alpha_only(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>) -> tensor<4x16xf32> {
  %0 = autoglm.gemm %a, %b {alpha = 3.0 : f32} : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}
