// RUN: autoglm-opt %s --split-input-file --autoglm-parallelize-loops=min-work=1024 | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-parallelize-loops=min-work=1024 \
// RUN:   --autoglm-stage-llvm | FileCheck %s --check-prefix=LLVM \
// RUN:   --implicit-check-not=unrealized_conversion_cast --implicit-check-not=func.func

// An elementwise op of 64 x 32 iterations: the rows are split. The body runs
// rows [begin, end), one row slice at a time; the caller passes the two
// buffers' pointers (static layouts need nothing else) in a stack context
// and asks for chunks of at least 1024 / 32 = 32 rows.
// CHECK-LABEL: func.func @elementwise
// CHECK-SAME: (%[[X:.*]]: memref<64x32xf32>, %[[Y:.*]]: memref<64x32xf32>)
// CHECK: %[[CTX:.*]] = llvm.alloca %{{.*}} x i64 : (i64) -> !llvm.ptr
// CHECK: memref.extract_aligned_pointer_as_index %[[X]]
// CHECK: llvm.store
// CHECK: memref.extract_aligned_pointer_as_index %[[Y]]
// CHECK: llvm.store
// CHECK-NOT: llvm.store
// CHECK-DAG: %[[N:.*]] = arith.index_cast %c64{{.*}} : index to i64
// CHECK-DAG: %[[GRAIN:.*]] = arith.index_cast %c32{{.*}} : index to i64
// CHECK-DAG: %[[BODY:.*]] = constant @elementwise_parallel : (!llvm.ptr, i64, i64) -> ()
// CHECK: call @agl_parallel_for(%[[N]], %[[GRAIN]], %[[BODY]], %[[CTX]])
// CHECK-NOT: linalg.generic
// CHECK: return

// CHECK-LABEL: func.func private @elementwise_parallel
// CHECK-SAME: (%[[C:.*]]: !llvm.ptr, %[[BEGIN:.*]]: i64, %[[END:.*]]: i64)
// CHECK-SAME: attributes {autoglm.parallel_body, llvm.linkage = #llvm.linkage<internal>}
// CHECK: llvm.load
// CHECK: %[[XB:.*]] = builtin.unrealized_conversion_cast %{{.*}} : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)> to memref<64x32xf32>
// CHECK: llvm.load
// CHECK: %[[YB:.*]] = builtin.unrealized_conversion_cast
// CHECK: %[[B:.*]] = arith.index_cast %[[BEGIN]] : i64 to index
// CHECK: %[[E:.*]] = arith.index_cast %[[END]] : i64 to index
// CHECK: scf.for %[[I:.*]] = %[[B]] to %[[E]] step %{{.*}} {
// CHECK: memref.subview %[[XB]][%[[I]], 0] [1, 32] [1, 1] : memref<64x32xf32> to memref<1x32xf32, strided<[32, 1], offset: ?>>
// CHECK: memref.subview %[[YB]][%[[I]], 0] [1, 32] [1, 1]
// CHECK: linalg.generic
// CHECK: arith.maximumf
// CHECK: func.func private @agl_parallel_for(i64, i64, (!llvm.ptr, i64, i64) -> (), !llvm.ptr)

// After the lowering to LLVM no cast is left, and the body is an internal
// function whose address the call takes.
// LLVM-LABEL: llvm.func @elementwise
// LLVM: llvm.mlir.addressof @elementwise_parallel
// LLVM: llvm.call @agl_parallel_for
// LLVM-LABEL: llvm.func internal @elementwise_parallel(%{{.*}}: !llvm.ptr, %{{.*}}: i64, %{{.*}}: i64)
// LLVM: llvm.intr.maximum({{.*}}) : (vector<16xf32>, vector<16xf32>)
// LLVM: llvm.func @agl_parallel_for(i64, i64, !llvm.ptr, !llvm.ptr)
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @elementwise(%x: memref<64x32xf32>, %y: memref<64x32xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<64x32xf32>) outs(%y : memref<64x32xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.maximumf %a, %zero : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Below the threshold, a 1-D op (its only loop is the innermost) and an
// op whose only parallel loop is innermost stay serial.
// CHECK-LABEL: func.func @serial
// CHECK-NOT: agl_parallel_for
// CHECK-COUNT-3: linalg.generic
// CHECK-NOT: agl_parallel_for
// LLVM-LABEL: llvm.func @serial
// LLVM-NOT: agl_parallel_for
// LLVM: llvm.return
#id = affine_map<(d0, d1) -> (d0, d1)>
#flat = affine_map<(d0) -> (d0)>
#cols = affine_map<(d0, d1) -> (d1)>
func.func @serial(%small: memref<4x32xf32>, %flat: memref<4096xf32>, %m: memref<64x64xf32>, %colsum: memref<64xf32>) {
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%small : memref<4x32xf32>) {
  ^bb0(%o: f32):
    %r = arith.addf %o, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#flat], iterator_types = ["parallel"]} outs(%flat : memref<4096xf32>) {
  ^bb0(%o: f32):
    %r = arith.addf %o, %o : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#id, #cols], iterator_types = ["reduction", "parallel"]} ins(%m : memref<64x64xf32>) outs(%colsum : memref<64xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A row sum over [1, 16, 128]: the unit loop is skipped, the 16 rows are
// split, the reduction loop stays whole inside each slice.
// CHECK-LABEL: func.func @row_sum
// CHECK: call @agl_parallel_for
// CHECK-LABEL: func.func private @row_sum_parallel
// CHECK: scf.for %[[I:.*]] =
// CHECK: memref.subview %{{.*}}[0, %[[I]], 0] [1, 1, 128] [1, 1, 1]
// CHECK: memref.subview %{{.*}}[0, %[[I]]] [1, 1] [1, 1]
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]
#in = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @row_sum(%x: memref<1x16x128xf32>, %s: memref<1x16xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : memref<1x16x128xf32>) outs(%s : memref<1x16xf32>) {
  ^bb0(%a: f32, %o: f32):
    %r = arith.addf %a, %o : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Symbolic rows (a flat buffer viewed with a run-time row count, as
// autoglm-static-signature does): the extent and the buffer's dynamic size cross in the
// context; the grain is ceil(1024 / 64) = 16 rows, and a call with fewer
// rows runs as one chunk on the calling thread.
// A scalar the body reads from outside crosses as its bits; the constant is
// cloned into the body.
// CHECK-LABEL: func.func @symbolic
// CHECK-SAME: (%{{.*}}: memref<4096xf32>, %{{.*}}: index, %[[S:.*]]: f32)
// CHECK: %[[CTX:.*]] = llvm.alloca %{{.*}} x i64
// CHECK: %[[X:.*]] = memref.reinterpret_cast
// CHECK: %[[BASE:.*]], %[[OFF:.*]], %[[SIZES:.*]]:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[X]]
// CHECK: arith.index_cast %[[SIZES]]#0 : index to i64
// CHECK: llvm.store
// CHECK: %[[BITS:.*]] = arith.bitcast %[[S]] : f32 to i32
// CHECK: arith.extui %[[BITS]] : i32 to i64
// CHECK: llvm.store
// CHECK: %[[ROWS:.*]] = memref.dim %[[X]], %c0
// CHECK-DAG: %[[N:.*]] = arith.index_cast %[[ROWS]] : index to i64
// CHECK-DAG: %[[GRAIN:.*]] = arith.index_cast %c16 : index to i64
// CHECK: call @agl_parallel_for(%[[N]], %[[GRAIN]],
// CHECK-LABEL: func.func private @symbolic_parallel
// CHECK: arith.constant 2.000000e+00 : f32
// CHECK: llvm.insertvalue {{.*}}[3, 0]
// CHECK: builtin.unrealized_conversion_cast {{.*}} to memref<?x64xf32>
// CHECK: arith.trunci {{.*}} : i64 to i32
// CHECK: arith.bitcast {{.*}} : i32 to f32
// CHECK: scf.for
// CHECK: memref.subview {{.*}} [1, 64] [1, 1] : memref<?x64xf32> to memref<1x64xf32, strided<[64, 1], offset: ?>>
// LLVM-LABEL: llvm.func @symbolic
// LLVM: llvm.call @agl_parallel_for
// LLVM-LABEL: llvm.func internal @symbolic_parallel
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @symbolic(%flat: memref<4096xf32>, %rows: index, %s: f32) {
  %x = memref.reinterpret_cast %flat to offset: [0], sizes: [%rows, 64], strides: [64, 1] : memref<4096xf32> to memref<?x64xf32>
  %two = arith.constant 2.0 : f32
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]} outs(%x : memref<?x64xf32>) {
  ^bb0(%o: f32):
    %m = arith.mulf %o, %two : f32
    %r = arith.addf %m, %s : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Two symbolic loops, batch and sequence: the sequence is split (a batch is
// often 1), and the grain depends on the batch at run time.
// CHECK-LABEL: func.func @batch_and_sequence
// CHECK: %[[B:.*]] = memref.dim %{{.*}}, %c0
// CHECK: %[[S:.*]] = memref.dim %{{.*}}, %c1
// CHECK: %[[W:.*]] = arith.muli %[[B]], %c64
// CHECK: arith.ceildivui %c1024, %{{.*}}
// CHECK: %[[N:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK: call @agl_parallel_for(%[[N]],
// CHECK-LABEL: func.func private @batch_and_sequence_parallel
// CHECK: scf.for %[[I:.*]] =
// CHECK: memref.subview %{{.*}}[0, %[[I]], 0] [%{{.*}}, 1, 64] [1, 1, 1]
// LLVM-LABEL: llvm.func @batch_and_sequence
// LLVM: llvm.call @agl_parallel_for
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @batch_and_sequence(%flat: memref<8192xf32>, %batch: index, %seq: index) {
  %x = memref.reinterpret_cast %flat to offset: [0], sizes: [%batch, %seq, 64], strides: [%seq, 64, 1] : memref<8192xf32> to memref<?x?x64xf32, strided<[?, 64, 1]>>
  linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel", "parallel"]} outs(%x : memref<?x?x64xf32, strided<[?, 64, 1]>>) {
  ^bb0(%o: f32):
    %r = arith.addf %o, %o : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// One buffer as two operands with different maps (a resize's tap tables,
// indexed by rows and by columns): each operand gets its own slice.
// CHECK-LABEL: func.func private @one_buffer_two_maps_parallel
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[ROW:.*]] = memref.subview %[[T:.*]][%[[I]], 0] [1, 2] [1, 1]
// CHECK: %[[OUT:.*]] = memref.subview %{{.*}}[%[[I]], 0] [1, 64] [1, 1]
// CHECK: linalg.generic {{.*}} ins(%[[ROW]], %[[T]] : memref<1x2xf32, strided<[2, 1], offset: ?>>, memref<64x2xf32>) outs(%[[OUT]]
#rows = affine_map<(d0, d1, d2) -> (d0, d2)>
#cols = affine_map<(d0, d1, d2) -> (d1, d2)>
#out = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @one_buffer_two_maps(%t: memref<64x2xf32>, %y: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#rows, #cols, #out], iterator_types = ["parallel", "parallel", "reduction"]} ins(%t, %t : memref<64x2xf32>, memref<64x2xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A transposed convolution reads `o - 2 * k`: a slice along `o` would not
// span its window, so the op stays serial. A strided window `2 * o + k`
// can be split.
// CHECK-LABEL: func.func @windows
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : memref<70x64xf32>, memref<4xf32>)
// CHECK: call @agl_parallel_for
// CHECK-NOT: call @agl_parallel_for
// CHECK-LABEL: func.func private @windows_parallel
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[AT:.*]] = affine.apply #{{.*}}(%[[I]])
// CHECK: memref.subview %{{.*}}[%[[AT]], 0] [4, 64] [1, 1] : memref<131x64xf32>
#back = affine_map<(d0, d1, d2) -> (d0 - d2 * 2 + 6, d1)>
#strided = affine_map<(d0, d1, d2) -> (d0 * 2 + d2, d1)>
#k = affine_map<(d0, d1, d2) -> (d2)>
#o = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @windows(%x: memref<70x64xf32>, %w: memref<131x64xf32>, %k: memref<4xf32>, %y: memref<64x64xf32>) {
  linalg.generic {indexing_maps = [#back, #k, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x, %k : memref<70x64xf32>, memref<4xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [#strided, #k, #o], iterator_types = ["parallel", "parallel", "reduction"]} ins(%w, %k : memref<131x64xf32>, memref<4xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %r = arith.addf %o, %m : f32
    linalg.yield %r : f32
  }
  return
}
