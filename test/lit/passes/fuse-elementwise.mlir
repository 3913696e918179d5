// RUN: autoglm-opt %s --split-input-file --autoglm-fuse-elementwise --mlir-print-local-scope | FileCheck %s

// An elementwise chain (bias add, then relu) becomes one generic.
// CHECK-LABEL: func.func @chain
// CHECK-COUNT-1: linalg.generic
// CHECK-NOT: linalg.generic
// CHECK: arith.addf
// CHECK-NEXT: arith.maximumf
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @chain(%x: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%0 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.maximumf %p, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %1 : tensor<4x8xf32>
}

// -----

// A computing producer stays out of a contraction (it would be recomputed
// for every output column), but a transpose fuses into it as a permuted
// indexing map: the matmul reads k's buffer [n, k] directly.
// CHECK-LABEL: func.func @into_contraction
// CHECK-SAME: (%[[Q:.*]]: tensor<4x8xf32>, %[[K:.*]]: tensor<16x8xf32>)
// CHECK: %[[SCALED:.*]] = linalg.generic
// CHECK: arith.mulf
// CHECK-NOT: linalg.transpose
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>]
// CHECK-SAME: ins(%[[SCALED]], %[[K]] : tensor<4x8xf32>, tensor<16x8xf32>)
#id = affine_map<(d0, d1) -> (d0, d1)>
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
func.func @into_contraction(%q: tensor<4x8xf32>, %k: tensor<16x8xf32>) -> tensor<4x16xf32> {
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%q : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.mulf %p, %half : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %te = tensor.empty() : tensor<8x16xf32>
  %kt = linalg.transpose ins(%k : tensor<16x8xf32>) outs(%te : tensor<8x16xf32>) permutation = [1, 0]
  %ce = tensor.empty() : tensor<4x16xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%ce : tensor<4x16xf32>) -> tensor<4x16xf32>
  %r = linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%scaled, %kt : tensor<4x8xf32>, tensor<8x16xf32>) outs(%acc : tensor<4x16xf32>) {
  ^bb0(%a: f32, %b: f32, %c: f32):
    %p = arith.mulf %a, %b : f32
    %s = arith.addf %c, %p : f32
    linalg.yield %s : f32
  } -> tensor<4x16xf32>
  return %r : tensor<4x16xf32>
}

// -----

// A Gemm's bias add, a view that adds a unit dimension, then the residual
// add: the residual add runs over the view's source dimensions instead
// (its other operand collapsed, its result expanded), so the two adds
// fuse into one 2-D loop right after the product, which a GEMM call can
// take as its epilogue.
// CHECK-LABEL: func.func @bias_view_residual
// CHECK-SAME: %[[X:[^:]*]]: tensor<4x8xf32>, %[[B:[^:]*]]: tensor<8xf32>, %[[R:[^:]*]]: tensor<4x1x8xf32>
// CHECK: %[[RC:.*]] = tensor.collapse_shape %[[R]] {{\[\[}}0, 1], [2]] : tensor<4x1x8xf32> into tensor<4x8xf32>
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[X]], %[[B]], %[[RC]] : tensor<4x8xf32>, tensor<8xf32>, tensor<4x8xf32>)
// CHECK: arith.addf
// CHECK-NEXT: arith.addf
// CHECK-NOT: linalg.generic
// CHECK: tensor.expand_shape %[[SUM]] {{\[\[}}0, 1], [2]] output_shape [4, 1, 8] : tensor<4x8xf32> into tensor<4x1x8xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @bias_view_residual(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %r: tensor<4x1x8xf32>) -> tensor<4x1x8xf32> {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %v = tensor.expand_shape %0 [[0, 1], [2]] output_shape [4, 1, 8] : tensor<4x8xf32> into tensor<4x1x8xf32>
  %e3 = tensor.empty() : tensor<4x1x8xf32>
  %1 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v, %r : tensor<4x1x8xf32>, tensor<4x1x8xf32>) outs(%e3 : tensor<4x1x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x1x8xf32>
  return %1 : tensor<4x1x8xf32>
}

// -----

// The view of a value something else reads too stays: folding it would
// leave the producer's loop where it is and add a copy.
// CHECK-LABEL: func.func @shared_producer
// CHECK: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel"]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @shared_producer(%x: tensor<4x8xf32>, %b: tensor<8xf32>, %r: tensor<4x1x8xf32>) -> (tensor<4x1x8xf32>, tensor<4x8xf32>) {
  %e = tensor.empty() : tensor<4x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %v = tensor.expand_shape %0 [[0, 1], [2]] output_shape [4, 1, 8] : tensor<4x8xf32> into tensor<4x1x8xf32>
  %e3 = tensor.empty() : tensor<4x1x8xf32>
  %1 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v, %r : tensor<4x1x8xf32>, tensor<4x1x8xf32>) outs(%e3 : tensor<4x1x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<4x1x8xf32>
  return %1, %0 : tensor<4x1x8xf32>, tensor<4x8xf32>
}

// -----

// Dynamic rows: the extents the residual add's init takes from the view
// become the view's output shape, so the view has one reader, and the two
// adds fuse as above.
// CHECK-LABEL: func.func @dynamic_view
// CHECK-SAME: %[[X:[^:]*]]: tensor<?x8xf32>, %{{[^:]*}}: tensor<8xf32>, %{{[^:]*}}: tensor<?x?x8xf32>, %[[B0:[^:]*]]: index, %[[S:[^:]*]]: index
// CHECK-NOT: tensor.dim %{{.*}} : tensor<?x?x8xf32>
// CHECK: %[[SUM:.*]] = linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-NOT: linalg.generic
// CHECK: tensor.expand_shape %[[SUM]] {{\[\[}}0, 1], [2]] output_shape [%[[B0]], %[[S]], 8]
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @dynamic_view(%x: tensor<?x8xf32>, %b: tensor<8xf32>, %r: tensor<?x?x8xf32>, %batch: index, %seq: index) -> tensor<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tensor.dim %x, %c0 : tensor<?x8xf32>
  %e = tensor.empty(%n) : tensor<?x8xf32>
  %0 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : tensor<?x8xf32>, tensor<8xf32>) outs(%e : tensor<?x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<?x8xf32>
  %v = tensor.expand_shape %0 [[0, 1], [2]] output_shape [%batch, %seq, 8] : tensor<?x8xf32> into tensor<?x?x8xf32>
  %d0 = tensor.dim %v, %c0 : tensor<?x?x8xf32>
  %d1 = tensor.dim %v, %c1 : tensor<?x?x8xf32>
  %e3 = tensor.empty(%d0, %d1) : tensor<?x?x8xf32>
  %1 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%v, %r : tensor<?x?x8xf32>, tensor<?x?x8xf32>) outs(%e3 : tensor<?x?x8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<?x?x8xf32>
  return %1 : tensor<?x?x8xf32>
}

// -----

// A Reshape to the shape its input already has, from symbolic extents
// (batch and seq): collapsed, then expanded to the same extents, which
// value bounds prove equal to the product's (its tensor.empty's). The
// pair goes, and the loop after the product reads the product's result.
// Extents that nothing relates to the source's keep their pair.
// CHECK-LABEL: func.func @reshape_to_own_shape
// CHECK: %[[P:.*]] = linalg.batch_matmul
// CHECK-NOT: tensor.collapse_shape
// CHECK-NOT: tensor.expand_shape
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[P]], %arg2 :
// CHECK: return
// CHECK-LABEL: func.func @reshape_to_other_extents
// CHECK: tensor.collapse_shape
// CHECK: tensor.expand_shape
func.func @reshape_to_own_shape(%x: tensor<?x?x8xf32>, %w: tensor<?x8x8xf32>, %r: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %b = tensor.dim %x, %c0 : tensor<?x?x8xf32>
  %s = tensor.dim %x, %c1 : tensor<?x?x8xf32>
  %e = tensor.empty(%b, %s) : tensor<?x?x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %p = linalg.batch_matmul ins(%x, %w : tensor<?x?x8xf32>, tensor<?x8x8xf32>) outs(%init : tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  %flat = tensor.collapse_shape %p [[0, 1, 2]] : tensor<?x?x8xf32> into tensor<?xf32>
  %back = tensor.expand_shape %flat [[0, 1, 2]] output_shape [%b, %s, 8] : tensor<?xf32> into tensor<?x?x8xf32>
  %e2 = tensor.empty(%b, %s) : tensor<?x?x8xf32>
  %y = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%back, %r : tensor<?x?x8xf32>, tensor<?x?x8xf32>) outs(%e2 : tensor<?x?x8xf32>) {
  ^bb0(%v: f32, %w2: f32, %o: f32):
    %t = arith.addf %v, %w2 : f32
    linalg.yield %t : f32
  } -> tensor<?x?x8xf32>
  return %y : tensor<?x?x8xf32>
}
func.func @reshape_to_other_extents(%x: tensor<?x?x8xf32>, %n: index, %m: index) -> tensor<?x?x8xf32> {
  %flat = tensor.collapse_shape %x [[0, 1, 2]] : tensor<?x?x8xf32> into tensor<?xf32>
  %back = tensor.expand_shape %flat [[0, 1, 2]] output_shape [%n, %m, 8] : tensor<?xf32> into tensor<?x?x8xf32>
  return %back : tensor<?x?x8xf32>
}
