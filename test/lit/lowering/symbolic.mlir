// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// Symbolic extents: every tensor.empty gets its dynamic sizes from
// tensor.dim of an operand that has that extent.

// Broadcasting add: the extents come from the operand where they are
// symbolic and not 1 (%a, dims 0 and 1); %b is read at row 0 of dim 1.
// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<?x?x8xf32> {{.*}}, %[[B:.*]]: tensor<?x1x8xf32> {{.*}})
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[D0:.*]] = tensor.dim %[[A]], %[[C0]] : tensor<?x?x8xf32>
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[D1:.*]] = tensor.dim %[[A]], %[[C1]] : tensor<?x?x8xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?x8xf32>
// CHECK-NEXT: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%[[A]], %[[B]] : tensor<?x?x8xf32>, tensor<?x1x8xf32>) outs(%[[E]] : tensor<?x?x8xf32>)
// CHECK: arith.addf
func.func @add_broadcast(%a: tensor<?x?x8xf32>, %b: tensor<?x1x8xf32>) -> tensor<?x?x8xf32> {
  %0 = autoglm.add %a, %b : (tensor<?x?x8xf32>, tensor<?x1x8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// The lower-rank operand comes first: the extents are taken from the second.
// CHECK-LABEL: func.func @add_lower_rank_first
// CHECK-SAME: (%[[W:.*]]: tensor<8xf32> {{.*}}, %[[X:.*]]: tensor<?x?x8xf32> {{.*}})
// CHECK: %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?x8xf32>
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[D1:.*]] = tensor.dim %[[X]], %[[C1]] : tensor<?x?x8xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?x8xf32>
// CHECK-NEXT: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], {{.*}} ins(%[[W]], %[[X]] : tensor<8xf32>, tensor<?x?x8xf32>) outs(%[[E]] : tensor<?x?x8xf32>)
func.func @add_lower_rank_first(%w: tensor<8xf32>, %x: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %0 = autoglm.add %w, %x : (tensor<8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %0 : tensor<?x?x8xf32>
}

// -----

// MatMul with symbolic batch and m against a static weight: the
// accumulator has the batch and m extents of the lhs.
// CHECK-LABEL: func.func @matmul_symbolic
// CHECK-SAME: (%[[A:.*]]: tensor<?x?x16xf32> {{.*}}, %[[W:.*]]: tensor<16x32xf32> {{.*}})
// CHECK: %[[L:.*]] = tensor.expand_shape {{.*}} : tensor<?xf32> into tensor<?x?x16xf32>
// CHECK: %[[B:.*]] = tensor.dim %[[L]], %{{.*}} : tensor<?x?x16xf32>
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[M:.*]] = tensor.dim %[[L]], %[[C1]] : tensor<?x?x16xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty(%[[B]], %[[M]]) : tensor<?x?x32xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<?x?x32xf32>)
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]} ins(%[[L]], %[[W]] : tensor<?x?x16xf32>, tensor<16x32xf32>) outs(%[[F]] : tensor<?x?x32xf32>)
func.func @matmul_symbolic(%a: tensor<?x?x16xf32>, %w: tensor<16x32xf32>) -> tensor<?x?x32xf32> {
  %0 = autoglm.matmul %a, %w : (tensor<?x?x16xf32>, tensor<16x32xf32>) -> tensor<?x?x32xf32>
  return %0 : tensor<?x?x32xf32>
}

// -----

// Attention scores: m from the lhs (dim 2), n from the rhs (dim 3).
// CHECK-LABEL: func.func @batched_matmul
// CHECK: %[[L:.*]] = tensor.expand_shape {{.*}} : tensor<?xf32> into tensor<?x4x?x64xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape {{.*}} : tensor<?xf32> into tensor<?x4x64x?xf32>
// CHECK: %[[B:.*]] = tensor.dim %[[L]], %{{.*}} : tensor<?x4x?x64xf32>
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[M:.*]] = tensor.dim %[[L]], %[[C2]] : tensor<?x4x?x64xf32>
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[N:.*]] = tensor.dim %[[R]], %[[C3]] : tensor<?x4x64x?xf32>
// CHECK-NEXT: tensor.empty(%[[B]], %[[M]], %[[N]]) : tensor<?x4x?x?xf32>
// CHECK: iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%[[L]], %[[R]] : tensor<?x4x?x64xf32>, tensor<?x4x64x?xf32>)
func.func @batched_matmul(%a: tensor<?x4x?x64xf32>, %b: tensor<?x4x64x?xf32>) -> tensor<?x4x?x?xf32> {
  %0 = autoglm.matmul %a, %b : (tensor<?x4x?x64xf32>, tensor<?x4x64x?xf32>) -> tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// Transpose: the result's symbolic extents are the input's dims 0 and 1.
// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x4x64xf32> {{.*}})
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[D0:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x?x4x64xf32>
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[D1:.*]] = tensor.dim %[[X]], %[[C1]] : tensor<?x?x4x64xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x4x?x64xf32>
// CHECK-NEXT: linalg.transpose ins(%[[X]] : tensor<?x?x4x64xf32>) outs(%[[E]] : tensor<?x4x?x64xf32>) permutation = [0, 2, 1, 3]
func.func @transpose(%x: tensor<?x?x4x64xf32>) -> tensor<?x4x?x64xf32> {
  %0 = autoglm.transpose %x {perm = array<i64: 0, 2, 1, 3>} : (tensor<?x?x4x64xf32>) -> tensor<?x4x?x64xf32>
  return %0 : tensor<?x4x?x64xf32>
}

// -----

// Softmax over a symbolic axis: max and sum reduce into tensors with the
// kept extents (dims 0 and 2), the result has all three.
// CHECK-LABEL: func.func @softmax
// CHECK-SAME: (%[[X:.*]]: tensor<?x4x?x?xf32> {{.*}})
// CHECK: %[[A0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x?x?xf32>
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[A2:.*]] = tensor.dim %[[X]], %[[C2]] : tensor<?x4x?x?xf32>
// CHECK-NEXT: %[[MAXE:.*]] = tensor.empty(%[[A0]], %[[A2]]) : tensor<?x4x?xf32>
// CHECK: arith.maximumf
// CHECK: tensor.expand_shape {{.*}} output_shape [%{{.*}}, 4, %{{.*}}, 1] : tensor<?xf32> into tensor<?x4x?x1xf32>
// CHECK: tensor.empty(%{{.*}}, %{{.*}}) : tensor<?x4x?xf32>
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: %[[B0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x?x?xf32>
// CHECK: %[[B2:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x4x?x?xf32>
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[B3:.*]] = tensor.dim %[[X]], %[[C3]] : tensor<?x4x?x?xf32>
// CHECK-NEXT: tensor.empty(%[[B0]], %[[B2]], %[[B3]]) : tensor<?x4x?x?xf32>
// CHECK: arith.divf
func.func @softmax(%x: tensor<?x4x?x?xf32>) -> tensor<?x4x?x?xf32> {
  %0 = autoglm.softmax %x {axis = 3 : i64} : tensor<?x4x?x?xf32>
  return %0 : tensor<?x4x?x?xf32>
}

// -----

// ReduceMean over the static last axis keeps both symbolic extents, divides
// by the static count 256 and re-inserts the unit axis.
// CHECK-LABEL: func.func @reduce_mean
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x256xf32> {{.*}})
// CHECK: %[[D0:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?x256xf32>
// CHECK: %[[D1:.*]] = tensor.dim %[[X]], %{{.*}} : tensor<?x?x256xf32>
// CHECK-NEXT: %[[E:.*]] = tensor.empty(%[[D0]], %[[D1]]) : tensor<?x?xf32>
// CHECK: %[[S:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[X]] : tensor<?x?x256xf32>)
// CHECK: arith.constant 2.560000e+02 : f32
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2]] output_shape [%{{.*}}, %{{.*}}, 1] : tensor<?xf32> into tensor<?x?x1xf32>
func.func @reduce_mean(%x: tensor<?x?x256xf32>) -> tensor<?x?x1xf32> {
  %0 = autoglm.reduce_mean %x {axes = array<i64: 2>} : (tensor<?x?x256xf32>) -> tensor<?x?x1xf32>
  return %0 : tensor<?x?x1xf32>
}

// -----

// A reshape with symbolic sizes: through the flat tensor, expanded with the
// given sizes.
// CHECK-LABEL: func.func @reshape_sizes
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x256xf32> {{.*}}, %[[A:.*]]: index {{.*}}, %[[B:.*]]: index {{.*}})
// CHECK-NEXT: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1, 2]] : tensor<?x?x256xf32> into tensor<?xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.expand_shape %[[F]] {{\[\[}}0, 1, 2, 3]] output_shape [%[[A]], %[[B]], 4, 64] : tensor<?xf32> into tensor<?x?x4x64xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_sizes(%x: tensor<?x?x256xf32>, %a: index, %b: index) -> tensor<?x?x4x64xf32> {
  %0 = autoglm.reshape %x[%a, %b] : (tensor<?x?x256xf32>) -> tensor<?x?x4x64xf32>
  return %0 : tensor<?x?x4x64xf32>
}

// -----

// A rank-1 result is the flat tensor itself (the size is its element count).
// CHECK-LABEL: func.func @reshape_flat
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32> {{.*}}, %[[N:.*]]: index {{.*}})
// CHECK-NEXT: %[[F:.*]] = tensor.collapse_shape %[[X]] {{\[\[}}0, 1]] : tensor<?x4xf32> into tensor<?xf32>
// CHECK-NEXT: %[[R:.*]] = tensor.cast %[[F]] : tensor<?xf32> to tensor<?xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_flat(%x: tensor<?x4xf32>, %n: index) -> tensor<?xf32> {
  %0 = autoglm.reshape %x[%n] : (tensor<?x4xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

// Shape of a symbolic tensor: tensor.dim for the symbolic extents, the
// static one as a constant.
// CHECK-LABEL: func.func @shape
// CHECK-SAME: (%[[X:.*]]: tensor<?x?x8xf32> {{.*}})
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[D0:.*]] = tensor.dim %[[X]], %[[C0]] : tensor<?x?x8xf32>
// CHECK-NEXT: %[[I0:.*]] = arith.index_cast %[[D0]] : index to i64
// CHECK-NEXT: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[D1:.*]] = tensor.dim %[[X]], %[[C1]] : tensor<?x?x8xf32>
// CHECK-NEXT: %[[I1:.*]] = arith.index_cast %[[D1]] : index to i64
// CHECK-NEXT: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[I2:.*]] = arith.index_cast %[[C8]] : index to i64
// CHECK-NEXT: %[[S:.*]] = tensor.from_elements %[[I0]], %[[I1]], %[[I2]] : tensor<3xi64>
// CHECK-NEXT: return %[[S]]
func.func @shape(%x: tensor<?x?x8xf32>) -> tensor<3xi64> {
  %0 = autoglm.shape %x {start = 0 : i64, end = 3 : i64} : (tensor<?x?x8xf32>) -> tensor<3xi64>
  return %0 : tensor<3xi64>
}

// -----

// A shape slice with only the symbolic extent.
// CHECK-LABEL: func.func @shape_slice
// CHECK-SAME: (%[[X:.*]]: tensor<2x?x8xf32> {{.*}})
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[D1:.*]] = tensor.dim %[[X]], %[[C1]] : tensor<2x?x8xf32>
// CHECK-NEXT: %[[I1:.*]] = arith.index_cast %[[D1]] : index to i64
// CHECK-NEXT: %[[S:.*]] = tensor.from_elements %[[I1]] : tensor<1xi64>
// CHECK-NEXT: return %[[S]]
func.func @shape_slice(%x: tensor<2x?x8xf32>) -> tensor<1xi64> {
  %0 = autoglm.shape %x {start = 1 : i64, end = 2 : i64} : (tensor<2x?x8xf32>) -> tensor<1xi64>
  return %0 : tensor<1xi64>
}

// -----

// Run-time slice bounds: offset = start, size = max(end - start, 0).
// CHECK-LABEL: func.func @slice_dynamic_bounds
// CHECK-SAME: (%[[T:[^:]*]]: tensor<4x16xf32> {{[^,]*}}, %[[S:[^:]*]]: index {{[^,]*}}, %[[E:[^:]*]]: index
// CHECK: %[[D:.*]] = arith.subi %[[E]], %[[S]] : index
// CHECK: %[[N:.*]] = arith.maxsi %[[D]], %{{.*}} : index
// CHECK: tensor.extract_slice %[[T]][0, %[[S]]] [4, %[[N]]] [1, 1] : tensor<4x16xf32> to tensor<4x?xf32>
func.func @slice_dynamic_bounds(%t: tensor<4x16xf32>, %s: index, %e: index) -> tensor<4x?xf32> {
  %0 = autoglm.slice %t[%s, %e] {dynamic_axes = array<i64: 1>, starts = array<i64: 0, 0>, ends = array<i64: 4, -9223372036854775808>, steps = array<i64: 1, 1>} : (tensor<4x16xf32>) -> tensor<4x?xf32>
  return %0 : tensor<4x?xf32>
}

// -----

// Expand of a symbolic extent that may be 1 at run time: the read index is 0
// where the input's extent is 1.
// CHECK-LABEL: func.func @expand_symbolic
// CHECK: %[[N:.*]] = tensor.dim %{{.*}}, %c0 : tensor<?x4xf32>
// CHECK: tensor.empty(%{{.*}}) : tensor<?x4xf32>
// CHECK: linalg.generic
// CHECK: %[[ONE:.*]] = arith.cmpi eq, %[[N]], %c1{{.*}} : index
// CHECK: %[[I:.*]] = arith.select %[[ONE]], %c0{{.*}}, %{{.*}} : index
// CHECK: tensor.extract %{{.*}}[%[[I]], %{{.*}}] : tensor<?x4xf32>
func.func @expand_symbolic(%x: tensor<?x4xf32>, %b: index) -> tensor<?x4xf32> {
  %0 = autoglm.expand %x[%b] {shape = array<i64: -9223372036854775808, 4>} : (tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}

// -----

// autoglm.range: one generic over linalg.index, its extent the count.
// CHECK-LABEL: func.func @range
// CHECK-SAME: (%[[N:[^:]*]]: index
// CHECK: %[[E:.*]] = tensor.empty(%[[N]]) : tensor<?xi64>
// CHECK-NEXT: %[[R:.*]] = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%[[E]] : tensor<?xi64>)
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK-NEXT: %[[II:.*]] = arith.index_cast %[[I]] : index to i64
// CHECK-NEXT: %[[DELTA:.*]] = arith.constant 3 : i64
// CHECK-NEXT: %[[M:.*]] = arith.muli %[[II]], %[[DELTA]] : i64
// CHECK-NEXT: %[[START:.*]] = arith.constant 2 : i64
// CHECK-NEXT: %[[V:.*]] = arith.addi %[[START]], %[[M]] : i64
// CHECK-NEXT: linalg.yield %[[V]] : i64
// CHECK: return %[[R]]
func.func @range(%n: index) -> tensor<?xi64> {
  %0 = autoglm.range %n {start = 2 : i64, delta = 3 : i64} : tensor<?xi64>
  return %0 : tensor<?xi64>
}
