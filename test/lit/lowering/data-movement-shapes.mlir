// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// GatherElements: one parallel generic over the indices; the index replaces
// the axis coordinate (negative ones count from the end, then clamped).
// CHECK-LABEL: func.func @gather_elements
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32> {{.*}}, %[[I:.*]]: tensor<3x2xi64> {{.*}})
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : tensor<3x2xi64>)
// CHECK: ^bb0(%[[IN:.*]]: i64, %{{.*}}: f32):
// CHECK: %[[ROW:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = arith.index_cast %[[IN]] : i64 to index
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %[[C]]
// CHECK: %[[SEL:.*]] = arith.select %[[NEG]]
// CHECK: %[[MIN:.*]] = arith.minsi %[[SEL]]
// CHECK: %[[COL:.*]] = arith.maxsi %[[MIN]]
// CHECK: %[[V:.*]] = tensor.extract %[[X]][%[[ROW]], %[[COL]]] : tensor<3x4xf32>
// CHECK: linalg.yield %[[V]]
func.func @gather_elements(%x: tensor<3x4xf32>, %i: tensor<3x2xi64>) -> tensor<3x2xf32> {
  %0 = autoglm.gather_elements %x, %i {axis = 1 : i64} : (tensor<3x4xf32>, tensor<3x2xi64>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// GatherND: the index tuple is read from the indices inside the loop body;
// batch dimensions pass through.
// CHECK-LABEL: func.func @gather_nd
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32> {{.*}}, %[[I:.*]]: tensor<2x5x1xi32> {{.*}})
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} outs(
// CHECK: %[[B:.*]] = linalg.index 0 : index
// CHECK: %[[P:.*]] = linalg.index 1 : index
// CHECK: %[[S:.*]] = linalg.index 2 : index
// CHECK: %[[T:.*]] = tensor.extract %[[I]][%[[B]], %[[P]], %{{.*}}] : tensor<2x5x1xi32>
// CHECK: arith.index_cast %[[T]] : i32 to index
// CHECK: %[[K:.*]] = arith.maxsi
// CHECK: tensor.extract %[[X]][%[[B]], %[[K]], %[[S]]] : tensor<2x3x4xf32>
func.func @gather_nd(%x: tensor<2x3x4xf32>, %i: tensor<2x5x1xi32>) -> tensor<2x5x4xf32> {
  %0 = autoglm.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<2x3x4xf32>, tensor<2x5x1xi32>) -> tensor<2x5x4xf32>
  return %0 : tensor<2x5x4xf32>
}

// -----

// ScatterElements: the result starts as the data; an inner reduction loop
// walks the updates along the axis and applies those aimed at the element
// (unsigned max for ui8).
// CHECK-LABEL: func.func @scatter_elements
// CHECK-SAME: (%[[X:.*]]: tensor<4x5xi8> {{.*}}, %[[I:.*]]: tensor<2x5xi64> {{.*}}, %[[U:.*]]: tensor<2x5xi8> {{.*}})
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d2, 0)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"]} ins(%[[I]] : tensor<2x5xi64>) outs(%[[X]] : tensor<4x5xi8>)
// CHECK: ^bb0(%{{.*}}: i64, %[[ACC:.*]]: i8):
// CHECK: %[[R:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[T:.*]] = linalg.index 2 : index
// CHECK: tensor.extract %[[I]][%[[T]], %[[C]]] : tensor<2x5xi64>
// CHECK: %[[TARGET:.*]] = arith.maxsi
// CHECK: %[[HIT:.*]] = arith.cmpi eq, %[[TARGET]], %[[R]] : index
// CHECK: %[[UPD:.*]] = tensor.extract %[[U]][%[[T]], %[[C]]] : tensor<2x5xi8>
// CHECK: %[[MAX:.*]] = arith.maxui %[[ACC]], %[[UPD]] : i8
// CHECK: arith.select %{{.*}}, %[[MAX]], %[[ACC]] : i8
func.func @scatter_elements(%x: tensor<4x5xui8>, %i: tensor<2x5xi64>, %u: tensor<2x5xui8>) -> tensor<4x5xui8> {
  %0 = autoglm.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "max"} : (tensor<4x5xui8>, tensor<2x5xi64>, tensor<2x5xui8>) -> tensor<4x5xui8>
  return %0 : tensor<4x5xui8>
}

// -----

// Updates smaller than the data outside the axis: elements beyond them get
// no candidates.
// CHECK-LABEL: func.func @scatter_elements_small
// CHECK: ^bb0(%{{.*}}: i64, %[[ACC:.*]]: f32):
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[IN:.*]] = arith.cmpi slt, %[[C]], %c2 : index
// CHECK: %[[VALID:.*]] = arith.andi %true, %[[IN]] : i1
// CHECK: arith.minsi %[[C]], %c1 : index
// CHECK: %[[SUM:.*]] = arith.addf %[[ACC]], %{{.*}} : f32
func.func @scatter_elements_small(%x: tensor<4x5xf32>, %i: tensor<3x2xi64>, %u: tensor<3x2xf32>) -> tensor<4x5xf32> {
  %0 = autoglm.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "add"} : (tensor<4x5xf32>, tensor<3x2xi64>, tensor<3x2xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}

// -----

// ScatterND: index tuples as [count, k]; the reduction loop walks them.
// CHECK-LABEL: func.func @scatter_nd
// CHECK-SAME: (%[[X:.*]]: tensor<4x3x2xf32> {{.*}}, %[[I:.*]]: tensor<2x2x2xi64> {{.*}}, %[[U:.*]]: tensor<2x2x2xf32> {{.*}})
// CHECK-DAG: %[[I2:.*]] = tensor.collapse_shape %[[I]] {{\[\[}}0, 1, 2]] : tensor<2x2x2xi64> into tensor<8xi64>
// CHECK-DAG: %[[IT:.*]] = tensor.expand_shape %[[I2]] {{\[\[}}0, 1]] output_shape [4, 2] : tensor<8xi64> into tensor<4x2xi64>
// CHECK-DAG: %[[UT:.*]] = tensor.expand_shape %{{.*}} {{\[\[}}0, 1]] output_shape [4, 2] : tensor<8xf32> into tensor<4x2xf32>
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3, 0)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel", "reduction"]} ins(%[[IT]] : tensor<4x2xi64>) outs(%[[X]] : tensor<4x3x2xf32>)
// CHECK: ^bb0(%[[FIRST:.*]]: i64, %[[ACC:.*]]: f32):
// CHECK: %[[D0:.*]] = linalg.index 0 : index
// CHECK: %[[D1:.*]] = linalg.index 1 : index
// CHECK: %[[D2:.*]] = linalg.index 2 : index
// CHECK: %[[N:.*]] = linalg.index 3 : index
// CHECK: arith.index_cast %[[FIRST]] : i64 to index
// CHECK: arith.cmpi eq, %{{.*}}, %[[D0]] : index
// CHECK: tensor.extract %[[IT]][%[[N]], %c1] : tensor<4x2xi64>
// CHECK: arith.cmpi eq, %{{.*}}, %[[D1]] : index
// CHECK: %[[HIT:.*]] = arith.andi
// CHECK: %[[UPD:.*]] = tensor.extract %[[UT]][%[[N]], %[[D2]]] : tensor<4x2xf32>
// CHECK: %[[MUL:.*]] = arith.mulf %[[ACC]], %[[UPD]] : f32
// CHECK: arith.select %[[HIT]], %[[MUL]], %[[ACC]] : f32
func.func @scatter_nd(%x: tensor<4x3x2xf32>, %i: tensor<2x2x2xi64>, %u: tensor<2x2x2xf32>) -> tensor<4x3x2xf32> {
  %0 = autoglm.scatter_nd %x, %i, %u {reduction = "mul"} : (tensor<4x3x2xf32>, tensor<2x2x2xi64>, tensor<2x2x2xf32>) -> tensor<4x3x2xf32>
  return %0 : tensor<4x3x2xf32>
}

// -----

// Without updates a scatter is the data.
// CHECK-LABEL: func.func @scatter_nd_empty
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32> {{.*}}, %{{.*}}, %{{.*}})
// CHECK-NEXT: return %[[X]]
func.func @scatter_nd_empty(%x: tensor<4xf32>, %i: tensor<0x1xi64>, %u: tensor<0xf32>) -> tensor<4xf32> {
  %0 = autoglm.scatter_nd %x, %i, %u : (tensor<4xf32>, tensor<0x1xi64>, tensor<0xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// OneHot: the indices are read without the new axis; negative ones count
// from the end; off/on come from the values tensor.
// CHECK-LABEL: func.func @one_hot
// CHECK-SAME: (%[[I:.*]]: tensor<4xf32> {{.*}}, %[[V:.*]]: tensor<2xi32> {{.*}})
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%[[I]] : tensor<4xf32>)
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: i32):
// CHECK: %[[IDX:.*]] = arith.fptosi %[[IN]] : f32 to i64
// CHECK: arith.cmpi slt, %[[IDX]], %c0_i64 : i64
// CHECK: arith.addi %[[IDX]], %c10_i64 : i64
// CHECK: %[[POS:.*]] = linalg.index 0 : index
// CHECK: %[[HIT:.*]] = arith.cmpi eq
// CHECK: %[[OFF:.*]] = tensor.extract %[[V]][%c0] : tensor<2xi32>
// CHECK: %[[ON:.*]] = tensor.extract %[[V]][%c1] : tensor<2xi32>
// CHECK: arith.select %[[HIT]], %[[ON]], %[[OFF]] : i32
func.func @one_hot(%i: tensor<4xf32>, %v: tensor<2xi32>) -> tensor<10x4xi32> {
  %0 = autoglm.one_hot %i, %v {depth = 10 : i64, axis = 0 : i64} : (tensor<4xf32>, tensor<2xi32>) -> tensor<10x4xi32>
  return %0 : tensor<10x4xi32>
}

// -----

// Einsum: one generic with a loop per letter. For a contraction the summed
// loop sits just outside the last result loop (as for matmul); f16
// accumulates in f32 and is truncated afterwards.
// CHECK-LABEL: func.func @einsum_bmm
// CHECK: %[[ACC:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<2x3x5xf32>)
// CHECK: %[[MM:.*]] = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK-SAME: outs(%[[ACC]] : tensor<2x3x5xf32>)
// CHECK: arith.extf
// CHECK: arith.extf
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[MM]] : tensor<2x3x5xf32>)
// CHECK: arith.truncf %{{.*}} : f32 to f16
func.func @einsum_bmm(%a: tensor<2x3x4xf16>, %b: tensor<2x4x5xf16>) -> tensor<2x3x5xf16> {
  %0 = autoglm.einsum %a, %b {equation = "bij,bjk->bik"} : (tensor<2x3x4xf16>, tensor<2x4x5xf16>) -> tensor<2x3x5xf16>
  return %0 : tensor<2x3x5xf16>
}

// -----

// A repeated letter walks a diagonal; an extent-1 axis broadcasts; a single
// operand keeps the summed loops innermost.
// CHECK-LABEL: func.func @einsum_diagonal
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
// CHECK-LABEL: func.func @einsum_broadcast
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>], iterator_types = ["parallel", "parallel", "reduction", "parallel"]}
// CHECK-LABEL: func.func @einsum_sum
// CHECK: linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
func.func @einsum_diagonal(%a: tensor<2x4x4xf32>) -> tensor<2x4xf32> {
  %0 = autoglm.einsum %a {equation = "Aii->Ai"} : (tensor<2x4x4xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}
func.func @einsum_broadcast(%a: tensor<1x3x4xi32>, %b: tensor<2x4x5xi32>) -> tensor<2x3x5xi32> {
  %0 = autoglm.einsum %a, %b {equation = "Aij,Ajk->Aik"} : (tensor<1x3x4xi32>, tensor<2x4x5xi32>) -> tensor<2x3x5xi32>
  return %0 : tensor<2x3x5xi32>
}
func.func @einsum_sum(%a: tensor<3x4xf32>) -> tensor<4xf32> {
  %0 = autoglm.einsum %a {equation = "ij->j"} : (tensor<3x4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Reflect padding: the source index mirrors periodically (period 2 (n - 1));
// unpadded axes read straight through.
// CHECK-LABEL: func.func @pad_reflect
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32> {{.*}})
// CHECK: %[[R:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[S:.*]] = arith.subi %[[C]], %c2 : index
// CHECK: %[[M0:.*]] = arith.remsi %[[S]], %c6 : index
// CHECK: %[[M1:.*]] = arith.addi %[[M0]], %c6 : index
// CHECK: %[[M:.*]] = arith.remsi %[[M1]], %c6 : index
// CHECK: %[[MIRROR:.*]] = arith.subi %c6{{.*}}, %[[M]] : index
// CHECK: %[[INSIDE:.*]] = arith.cmpi slt, %[[M]], %c4 : index
// CHECK: %[[SRC:.*]] = arith.select %[[INSIDE]], %[[M]], %[[MIRROR]] : index
// CHECK: tensor.extract %[[X]][%[[R]], %[[SRC]]] : tensor<3x4xf32>
func.func @pad_reflect(%x: tensor<3x4xf32>) -> tensor<3x9xf32> {
  %0 = autoglm.pad %x {pads = array<i64: 0, 2, 0, 3>, mode = "reflect"} : (tensor<3x4xf32>) -> tensor<3x9xf32>
  return %0 : tensor<3x9xf32>
}

// -----

// Edge padding clamps; wrap takes the index modulo the extent; negative
// pads crop first.
// CHECK-LABEL: func.func @pad_edge
// CHECK: %[[S:.*]] = arith.subi %{{.*}}, %c1 : index
// CHECK: %[[LO:.*]] = arith.minsi %[[S]], %c3 : index
// CHECK: arith.maxsi %[[LO]], %c0 : index
// CHECK-LABEL: func.func @pad_wrap
// CHECK-SAME: (%[[X:.*]]: tensor<3x4xf32> {{.*}})
// CHECK: %[[CROP:.*]] = tensor.extract_slice %[[X]][1, 0] [2, 4] [1, 1] : tensor<3x4xf32> to tensor<2x4xf32>
// CHECK: linalg.generic
// CHECK: arith.remsi %{{.*}}, %c4 : index
// CHECK: tensor.extract %[[CROP]]
func.func @pad_edge(%x: tensor<3x4xf32>) -> tensor<3x7xf32> {
  %0 = autoglm.pad %x {pads = array<i64: 0, 1, 0, 2>, mode = "edge"} : (tensor<3x4xf32>) -> tensor<3x7xf32>
  return %0 : tensor<3x7xf32>
}
func.func @pad_wrap(%x: tensor<3x4xf32>) -> tensor<2x9xf32> {
  %0 = autoglm.pad %x {pads = array<i64: -1, 2, 0, 3>, mode = "wrap"} : (tensor<3x4xf32>) -> tensor<2x9xf32>
  return %0 : tensor<2x9xf32>
}

// -----

// An empty slice reads at offset 0 (in bounds for any extent).
// CHECK-LABEL: func.func @slice_empty
// CHECK: tensor.extract_slice %{{.*}}[0, 1] [0, 2] [1, 1] : tensor<4x3xf32> to tensor<0x2xf32>
func.func @slice_empty(%x: tensor<4x3xf32>) -> tensor<0x2xf32> {
  %0 = autoglm.slice %x {starts = array<i64: 4, 1>, ends = array<i64: 4, 3>, steps = array<i64: 1, 1>} : (tensor<4x3xf32>) -> tensor<0x2xf32>
  return %0 : tensor<0x2xf32>
}
