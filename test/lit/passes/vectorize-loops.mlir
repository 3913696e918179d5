// RUN: autoglm-opt %s --split-input-file --autoglm-vectorize-loops --canonicalize | FileCheck %s

// An elementwise generic: the innermost loop steps by 16 lanes, the outer
// one by 1; the bias (broadcast over rows) is read as a vector too.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK-NEXT: scf.for %[[J:.*]] = %{{.*}} to %[[C32]] step %[[C16]] {
// CHECK: %[[X:.*]] = vector.transfer_read {{.*}} vector<1x16xf32>
// CHECK: %[[B:.*]] = vector.transfer_read {{.*}} vector<1x16xf32>
// CHECK: %[[S:.*]] = arith.addf %[[X]], %[[B]] : vector<1x16xf32>
// CHECK: arith.maximumf %[[S]], %{{.*}} : vector<1x16xf32>
// CHECK: vector.transfer_write
// CHECK-NOT: linalg.generic
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @elementwise(%x: memref<4x32xf32>, %b: memref<32xf32>, %y: memref<4x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %b : memref<4x32xf32>, memref<32xf32>) outs(%y : memref<4x32xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A sum along the innermost loop: each 16-lane tile is reduced into the
// row's accumulator.
// CHECK-LABEL: func.func @row_sum
// CHECK: scf.for
// CHECK: scf.for
// CHECK: vector.multi_reduction <add>, %{{.*}}, %{{.*}} [1] : vector<1x16xf32> to vector<1xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @row_sum(%x: memref<4x64xf32>, %s: memref<4xf32>) {
  linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x64xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.addf %o, %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// An innermost extent of 24 is not a multiple of 16: 8 lanes divide it
// (the output's rows are apart, so the loops cannot fold into one).
// CHECK-LABEL: func.func @eight_lanes
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: arith.negf %{{.*}} : vector<1x8xf32>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @eight_lanes(%x: memref<2x24xf32>, %y: memref<2x24xf32, strided<[32, 1]>>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x24xf32>) outs(%y : memref<2x24xf32, strided<[32, 1]>>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.negf %p : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Over whole contiguous buffers the same loops fold into one of 48
// elements, which 16 lanes divide; a fill (a scalar input) vectorizes too.
// CHECK-LABEL: func.func @folded
// CHECK: memref.collapse_shape %{{.*}} {{\[\[}}0, 1]] : memref<2x24xf32> into memref<48xf32>
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: arith.negf %{{.*}} : vector<16xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<16xf32>
// CHECK-NOT: linalg.
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @folded(%x: memref<2x24xf32>, %y: memref<2x24xf32>, %z: memref<2x24xf32>) {
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<2x24xf32>) outs(%y : memref<2x24xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.negf %p : f32
    linalg.yield %r : f32
  }
  %one = arith.constant 1.0 : f32
  linalg.fill ins(%one : f32) outs(%z : memref<2x24xf32>)
  return
}

// -----

// A convolution's window gather reads input[o + k]: contiguous along o. The
// tile's view of the input starts at o + k, 16 elements long, and is read
// as one vector.
// CHECK-LABEL: func.func @window
// CHECK: scf.for %[[C:.*]] = %{{.*}} to
// CHECK: scf.for %[[K:.*]] = %{{.*}} to
// CHECK: scf.for %[[O:.*]] = %{{.*}} to
// CHECK: %[[AT:.*]] = affine.apply #{{.*}}(%[[K]], %[[O]])
// CHECK: %[[IN:.*]] = memref.subview %{{.*}}[%[[C]], %[[AT]]] [1, 16] [1, 1]
// CHECK: %[[V:.*]] = vector.transfer_read %[[IN]]{{.*}} : memref<1x16xf32, strided<[34, 1], offset: ?>>, vector<1x1x16xf32>
// CHECK: vector.transfer_write %[[V]], %{{.*}} : vector<1x1x16xf32>, memref<1x1x16xf32, strided<[96, 32, 1], offset: ?>>
// CHECK-NOT: linalg.generic
#in = affine_map<(c, k, o) -> (c, o + k)>
#col = affine_map<(c, k, o) -> (c, k, o)>
func.func @window(%x: memref<2x34xf32>, %col: memref<2x3x32xf32>) {
  linalg.generic {indexing_maps = [#in, #col], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<2x34xf32>) outs(%col : memref<2x3x32xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  return
}

// -----

// Left as they are: an innermost extent that is not a multiple of 4 (rows
// apart in the output, so they do not fold into one loop), a
// transposed read, a strided innermost dimension, a window read with stride
// 2, and a bool operand (LLVM packs vectors of i1 into bits; buffers hold
// bytes).
// CHECK-LABEL: func.func @kept
// CHECK-COUNT-5: linalg.generic
// CHECK-NOT: vector.
#id = affine_map<(d0, d1) -> (d0, d1)>
#t = affine_map<(d0, d1) -> (d1, d0)>
func.func @kept(%a: memref<4x6xf32>, %b: memref<4x6xf32, strided<[8, 1]>>, %c: memref<16x16xf32>, %d: memref<16x16xf32>,
                %e: memref<16x16xf32, strided<[32, 2]>>, %m: memref<16x16xi1>,
                %w: memref<2x34xf32>, %wc: memref<2x16xf32>) {
  linalg.generic {indexing_maps = [affine_map<(c, o) -> (c, o * 2)>, #id], iterator_types = ["parallel", "parallel"]} ins(%w : memref<2x34xf32>) outs(%wc : memref<2x16xf32>) {
  ^bb0(%v: f32, %o: f32):
    linalg.yield %v : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%a : memref<4x6xf32>) outs(%b : memref<4x6xf32, strided<[8, 1]>>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.negf %p : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#t, #id], iterator_types = ["parallel", "parallel"]} ins(%c : memref<16x16xf32>) outs(%d : memref<16x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.negf %p : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%e : memref<16x16xf32, strided<[32, 2]>>) outs(%d : memref<16x16xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.negf %p : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%m, %c : memref<16x16xi1>, memref<16x16xf32>) outs(%d : memref<16x16xf32>) {
  ^bb0(%k: i1, %p: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %r = arith.select %k, %p, %z : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A symbolic number of rows (a sequence length) with a static, whole
// number of vectors along the innermost loop: the outer loop runs to the
// buffer's extent, the inner one by 16 lanes.
// CHECK-LABEL: func.func @symbolic_rows
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C16:.*]] = arith.constant 16 : index
// CHECK-DAG: %[[C32:.*]] = arith.constant 32 : index
// CHECK: %[[ROWS:.*]] = memref.dim %arg0, %[[C1]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[ROWS]] step %[[C1]] {
// CHECK-NEXT: scf.for %{{.*}} = %{{.*}} to %[[C32]] step %[[C16]] {
// CHECK: vector.transfer_read {{.*}} vector<1x1x16xf32>
// CHECK: arith.mulf {{.*}} : vector<1x1x16xf32>
// CHECK: vector.transfer_write
// CHECK-NOT: linalg.generic
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @symbolic_rows(%x: memref<1x?x32xf32>, %y: memref<1x?x32xf32>) {
  linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x : memref<1x?x32xf32>) outs(%y : memref<1x?x32xf32>) {
  ^bb0(%p: f32, %o: f32):
    %s = arith.mulf %p, %p : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// 14-wide rows times a per-channel scale (which rules out folding the
// loops into one): no width divides 14, so 4 lanes take 12 columns (3
// vectors) and a second innermost loop runs the last 2 one at a time, as
// the generic on one element.
// CHECK-LABEL: func.func @vectors_and_a_scalar_rest
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : index
// CHECK-DAG: %[[C14:.*]] = arith.constant 14 : index
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C2]] step
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C14]] step
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C12]] step %[[C4]] {
// CHECK: arith.mulf {{.*}} : vector<1x1x4xf32>
// CHECK: vector.transfer_write
// CHECK: scf.for %{{.*}} = %[[C12]] to %[[C14]] step
// CHECK: linalg.generic
// CHECK-SAME: memref<1x1x1xf32
// CHECK: arith.mulf {{.*}} : f32
#rows = affine_map<(c, h, w) -> (c, h, w)>
#channel = affine_map<(c, h, w) -> (c)>
func.func @vectors_and_a_scalar_rest(%x: memref<2x14x14xf32>, %s: memref<2xf32>, %y: memref<2x14x14xf32>) {
  linalg.generic {indexing_maps = [#rows, #channel, #rows], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %s : memref<2x14x14xf32>, memref<2xf32>) outs(%y : memref<2x14x14xf32>) {
  ^bb0(%p: f32, %k: f32, %o: f32):
    %m = arith.mulf %p, %k : f32
    linalg.yield %m : f32
  }
  return
}
