// RUN: autoglm-opt %s --split-input-file --convert-linalg-to-parallel-loops --autoglm-accumulate-in-registers --autoglm-map-loops-to-gpu | FileCheck %s

// RMSNorm over rows of 256: the fill, the sum of squares, the per-row
// rsqrt and the scaling are one kernel, a block per row of 64 threads that
// stride through the row. The sums and their rsqrt stay in registers (the
// buffers are temporaries): nothing stores them, and the only barrier is
// the one before the scaling's stores.
// CHECK-LABEL: func.func @rms_norm
// CHECK: scf.parallel (%[[ROW:.*]]) = (%[[C0:.*]]) to (%c4{{.*}}) step
// CHECK-NEXT: scf.parallel (%[[T:.*]]) = (%[[C0]]) to (%c64) step
// CHECK-NOT: memref.store
// CHECK-NOT: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[T]] to %c256 step %c64
// CHECK: %[[SUM:.*]] = gpu.all_reduce add
// CHECK: %[[TOTAL:.*]] = arith.addf %[[SUM]], %cst
// CHECK: arith.divf %[[TOTAL]]
// CHECK: %[[INV:.*]] = math.rsqrt
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for %[[J:.*]] = %[[T]] to %c256{{.*}} step %c64
// CHECK-NEXT: memref.load %arg0[%[[ROW]], %[[J]]]
// CHECK-NEXT: memref.load %arg1[%[[J]]]
// CHECK-NEXT: arith.mulf %{{.*}}, %[[INV]]
// CHECK: memref.store %{{.*}}[%[[ROW]], %[[J]]]
// CHECK: processor = thread_x
// CHECK: processor = block_x
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @rms_norm(%x: memref<4x256xf32>, %w: memref<256xf32>, %arena: memref<8192xi8>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c4096 = arith.constant 4096 : index
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %n = arith.constant 256.0 : f32
  %sum = memref.view %arena[%c0][] : memref<8192xi8> to memref<4xf32>
  %inv = memref.view %arena[%c16][] : memref<8192xi8> to memref<4xf32>
  %y = memref.view %arena[%c4096][] : memref<8192xi8> to memref<4x256xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x256xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%sum : memref<4xf32>) outs(%inv : memref<4xf32>) {
  ^bb0(%s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %e = arith.addf %m, %eps : f32
    %r = math.rsqrt %e : f32
    linalg.yield %r : f32
  }
  %inv2 = memref.expand_shape %inv [[0, 1]] output_shape [4, 1] : memref<4xf32> into memref<4x1xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %inv2, %w : memref<4x256xf32>, memref<4x1xf32>, memref<256xf32>) outs(%y : memref<4x256xf32>) {
  ^bb0(%a: f32, %r: f32, %g: f32, %o: f32):
    %t = arith.mulf %a, %r : f32
    %u = arith.mulf %t, %g : f32
    linalg.yield %u : f32
  }
  return
}

// -----

// The output in the bytes of the sums, whose view a later buffer at the
// same bytes shares (CSE merges equal views): that buffer is filled whole
// before anything reads it, so the sums stay in registers and the whole
// norm is one kernel; the later fill is a kernel of its own.
// CHECK-LABEL: func.func @sums_view_shared_later
// CHECK: scf.parallel (%[[ROW:.*]]) = (%{{.*}}) to (%c4{{.*}}) step
// CHECK-NEXT: scf.parallel
// CHECK-NOT: memref.store
// CHECK: gpu.all_reduce add
// CHECK: math.rsqrt
// CHECK-NEXT: gpu.barrier
// CHECK-NEXT: scf.for
// CHECK: memref.store %{{.*}}[%[[ROW]], %{{.*}}] : memref<4x256xf32>
// CHECK: processor = block_x
// CHECK: scf.parallel
// CHECK: memref.store %cst, %{{.*}}[%{{.*}}] : memref<4xf32>
// CHECK: return
func.func @sums_view_shared_later(%x: memref<4x256xf32>, %w: memref<256xf32>, %arena: memref<8192xi8>, %out: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %n = arith.constant 256.0 : f32
  %sum = memref.view %arena[%c0][] : memref<8192xi8> to memref<4xf32>
  %inv = memref.view %arena[%c16][] : memref<8192xi8> to memref<4xf32>
  %y = memref.view %arena[%c0][] : memref<8192xi8> to memref<4x256xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x256xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%sum : memref<4xf32>) outs(%inv : memref<4xf32>) {
  ^bb0(%s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    %e = arith.addf %m, %eps : f32
    %r = math.rsqrt %e : f32
    linalg.yield %r : f32
  }
  %inv2 = memref.expand_shape %inv [[0, 1]] output_shape [4, 1] : memref<4xf32> into memref<4x1xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %inv2, %w : memref<4x256xf32>, memref<4x1xf32>, memref<256xf32>) outs(%y : memref<4x256xf32>) {
  ^bb0(%a: f32, %r: f32, %g: f32, %o: f32):
    %t = arith.mulf %a, %r : f32
    %u = arith.mulf %t, %g : f32
    linalg.yield %u : f32
  }
  // Later, another buffer at the sums' bytes, through the same view.
  linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
  memref.copy %sum, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// The same, with the output in the bytes of the sums (the planner may put
// it there once they are dead) and the sums read after the kernel, so
// that they are stored: the first rows' outputs would overwrite the sums
// of rows whose blocks have not read them yet, so the scaling stays a
// kernel of its own.
// CHECK-LABEL: func.func @output_over_the_sums
// CHECK: scf.parallel
// CHECK: scf.parallel
// CHECK: gpu.all_reduce add
// CHECK: scf.if
// CHECK-NEXT: memref.store
// CHECK: math.rsqrt
// CHECK: processor = block_x
// CHECK-NEXT: memref.expand_shape
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = {{.*}} to (%c4, %c256)
// CHECK-NOT: gpu.barrier
// CHECK: processor = block_y
func.func @output_over_the_sums(%x: memref<4x256xf32>, %w: memref<256xf32>, %arena: memref<8192xi8>, %kept: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %sum = memref.view %arena[%c0][] : memref<8192xi8> to memref<4xf32>
  %inv = memref.view %arena[%c16][] : memref<8192xi8> to memref<4xf32>
  %y = memref.view %arena[%c0][] : memref<8192xi8> to memref<4x256xf32>
  linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x256xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %s = arith.addf %sq, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%sum : memref<4xf32>) outs(%inv : memref<4xf32>) {
  ^bb0(%s: f32, %o: f32):
    %e = arith.addf %s, %eps : f32
    %r = math.rsqrt %e : f32
    linalg.yield %r : f32
  }
  %inv2 = memref.expand_shape %inv [[0, 1]] output_shape [4, 1] : memref<4xf32> into memref<4x1xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, 0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %inv2 : memref<4x256xf32>, memref<4x1xf32>) outs(%y : memref<4x256xf32>) {
  ^bb0(%a: f32, %r: f32, %o: f32):
    %t = arith.mulf %a, %r : f32
    linalg.yield %t : f32
  }
  memref.copy %sum, %kept : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Softmax over rows of 512 with three row dimensions, updated in place:
// the maximum and the sum of exponentials are two block-wide reductions of
// one kernel, 128 threads per row, and the exponentials are written over
// the input by the thread that read them.
// CHECK-LABEL: func.func @softmax_in_place
// CHECK: scf.parallel (%[[A:.*]], %[[B:.*]], %[[C:.*]]) = {{.*}} to (%c2{{.*}}, %c4{{.*}}, %c8{{.*}})
// CHECK-NEXT: scf.parallel (%[[T:.*]]) = {{.*}} to (%c128)
// CHECK: gpu.all_reduce maximumf
// CHECK: gpu.barrier
// CHECK: gpu.barrier
// CHECK: gpu.all_reduce add
// CHECK: gpu.barrier
// CHECK: scf.for %[[J:.*]] = %[[T]] to %c512
// CHECK: memref.load %arg0[%[[A]], %[[B]], %[[C]], %[[J]]]
// CHECK: math.exp
// CHECK: arith.divf
// CHECK: memref.store %{{.*}}, %arg0[%[[A]], %[[B]], %[[C]], %[[J]]]
// CHECK: processor = thread_x
// CHECK: processor = block_z{{.*}}processor = block_y{{.*}}processor = block_x
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @softmax_in_place(%x: memref<2x4x8x512xf32>, %max: memref<2x4x8xf32>, %sum: memref<2x4x8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%ninf : f32) outs(%max : memref<2x4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x : memref<2x4x8x512xf32>) outs(%max : memref<2x4x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %m = arith.maximumf %a, %acc : f32
    linalg.yield %m : f32
  }
  linalg.fill ins(%zero : f32) outs(%sum : memref<2x4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%x, %max : memref<2x4x8x512xf32>, memref<2x4x8xf32>) outs(%sum : memref<2x4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%max, %sum : memref<2x4x8xf32>, memref<2x4x8xf32>) outs(%x : memref<2x4x8x512xf32>) {
  ^bb0(%m: f32, %s: f32, %a: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    %p = arith.divf %e, %s : f32
    linalg.yield %p : f32
  }
  return
}

// -----

// A step that reads another row of what the kernel writes (a transposed
// read) ends the run: only a barrier between blocks could order it.
// CHECK-LABEL: func.func @reads_another_row
// CHECK: gpu.all_reduce add
// CHECK-NOT: gpu.barrier
// CHECK: processor = block_x
// CHECK: scf.parallel
// CHECK: processor = block_y
func.func @reads_another_row(%x: memref<64x64xf32>, %y: memref<64x64xf32>, %sum: memref<64xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x64xf32>) outs(%sum : memref<64xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  %sums = memref.expand_shape %sum [[0, 1]] output_shape [64, 1] : memref<64xf32> into memref<64x1xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, 0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%sums : memref<64x1xf32>) outs(%y : memref<64x64xf32>) {
  ^bb0(%s: f32, %o: f32):
    linalg.yield %s : f32
  }
  return
}

// -----

// Loops over other rows (8 instead of 4), or with another memory access
// in between, are not taken.
// CHECK-LABEL: func.func @other_rows
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = {{.*}} to (%c8, %c256)
// CHECK: gpu.all_reduce add
// CHECK: memref.copy
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = {{.*}} to (%c4, %c256)
func.func @other_rows(%x: memref<4x256xf32>, %z: memref<8x256xf32>, %sum: memref<4xf32>, %c: memref<4xf32>, %d: memref<4xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%z : memref<8x256xf32>) outs(%z : memref<8x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x256xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %s = arith.addf %a, %acc : f32
    linalg.yield %s : f32
  }
  memref.copy %c, %d : memref<4xf32> to memref<4xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<4x256xf32>) outs(%x : memref<4x256xf32>) {
  ^bb0(%a: f32, %o: f32):
    %n = arith.negf %a : f32
    linalg.yield %n : f32
  }
  return
}

// -----

// A masked softmax whose maximum and sum the planner put over the raw
// scores (dead once masked): the maximum and the sum stay in registers, so
// the masking joins the kernel, which touches memory only to read the raw
// scores and the mask and to write the masked scores and the output.
// CHECK-LABEL: func.func @masked_softmax
// CHECK: scf.parallel (%{{.*}}, %{{.*}}) = {{.*}} to (%c4{{.*}}, %c8{{.*}}) step
// CHECK-NEXT: scf.parallel (%[[T:.*]]) =
// CHECK: scf.for %{{.*}} = %[[T]] to %c64
// CHECK: memref.store
// CHECK: gpu.barrier
// CHECK: gpu.all_reduce maximumf
// CHECK-NOT: memref.store
// CHECK: gpu.all_reduce add
// CHECK: gpu.barrier
// CHECK: scf.for %{{.*}} = %[[T]] to %c64
// CHECK: math.exp
// CHECK: memref.store
// CHECK: processor = block_y{{.*}}processor = block_x
// CHECK-NOT: scf.parallel
// CHECK: return
func.func @masked_softmax(%arena: memref<24576xi8>, %mask: memref<8x64xf32>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c8192 = arith.constant 8192 : index
  %c16384 = arith.constant 16384 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %raw = memref.view %arena[%c0][] : memref<24576xi8> to memref<4x8x64xf32>
  %masked = memref.view %arena[%c8192][] : memref<24576xi8> to memref<4x8x64xf32>
  %max = memref.view %arena[%c0][] : memref<24576xi8> to memref<4x8xf32>
  %sum = memref.view %arena[%c128][] : memref<24576xi8> to memref<4x8xf32>
  %out = memref.view %arena[%c16384][] : memref<24576xi8> to memref<4x8x64xf32>
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%raw, %mask : memref<4x8x64xf32>, memref<8x64xf32>) outs(%masked : memref<4x8x64xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %r = arith.addf %a, %m : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%ninf : f32) outs(%max : memref<4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%masked : memref<4x8x64xf32>) outs(%max : memref<4x8xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%sum : memref<4x8xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%masked, %max : memref<4x8x64xf32>, memref<4x8xf32>) outs(%sum : memref<4x8xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    %r = arith.addf %e, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%masked, %max, %sum : memref<4x8x64xf32>, memref<4x8xf32>, memref<4x8xf32>) outs(%out : memref<4x8x64xf32>) {
  ^bb0(%a: f32, %m: f32, %t: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    %p = arith.divf %e, %t : f32
    linalg.yield %p : f32
  }
  return
}

// -----

// Softmax over %n rows of %m elements, both symbolic: the nests' bounds
// are memref.dim ops of different views, which resolve to the same sizes
// (the input's reshape, the arena views), so the kernel forms as with
// constant extents: a block per row, 256 threads (the row's length is
// not known), the maximum and the sum in registers. A nest over %k rows
// is not over the same rows and stays a kernel of its own.
// CHECK-LABEL: func.func @symbolic_softmax
// CHECK: %[[X:.*]] = memref.reinterpret_cast %arg0 to offset: [0]
// CHECK: scf.parallel (%[[ROW:.*]]) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NEXT: scf.parallel (%[[T:.*]]) = (%{{.*}}) to (%c256) step
// CHECK-NOT: memref.store
// CHECK: gpu.all_reduce maximumf
// CHECK-NOT: memref.store
// CHECK: gpu.all_reduce add
// CHECK: scf.for %[[J:.*]] = %[[T]] to %{{.*}} step %c256
// CHECK: memref.load %[[X]][%[[ROW]], %[[J]]]
// CHECK: arith.divf
// CHECK: memref.store
// CHECK: processor = thread_x
// CHECK: processor = block_x
// CHECK: scf.parallel
// CHECK: processor = block_x
// CHECK: return
func.func @symbolic_softmax(%flat: memref<4096xf32>, %arena: memref<65536xi8>, %symbols: memref<3xi64> {autoglm.symbol_values})
    attributes {autoglm.symbols = [{max = 16 : i64, min = 1 : i64, name = "n"},
                                   {max = 256 : i64, min = 1 : i64, name = "m"},
                                   {max = 16 : i64, min = 1 : i64, name = "k"}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %n64 = memref.load %symbols[%c0] : memref<3xi64>
  %m64 = memref.load %symbols[%c1] : memref<3xi64>
  %k64 = memref.load %symbols[%c2] : memref<3xi64>
  %n = arith.index_cast %n64 : i64 to index
  %m = arith.index_cast %m64 : i64 to index
  %k = arith.index_cast %k64 : i64 to index
  %c1024 = arith.constant 1024 : index
  %c2048 = arith.constant 2048 : index
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %x = memref.reinterpret_cast %flat to offset: [0], sizes: [%n, %m], strides: [%m, 1] : memref<4096xf32> to memref<?x?xf32, strided<[?, 1]>>
  %max = memref.view %arena[%c0][%n] : memref<65536xi8> to memref<?xf32>
  %sum = memref.view %arena[%c1024][%n] : memref<65536xi8> to memref<?xf32>
  %y = memref.view %arena[%c2048][%n, %m] : memref<65536xi8> to memref<?x?xf32>
  linalg.fill ins(%ninf : f32) outs(%max : memref<?xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<?x?xf32, strided<[?, 1]>>) outs(%max : memref<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%sum : memref<?xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x, %max : memref<?x?xf32, strided<[?, 1]>>, memref<?xf32>) outs(%sum : memref<?xf32>) {
  ^bb0(%a: f32, %mx: f32, %acc: f32):
    %d = arith.subf %a, %mx : f32
    %e = math.exp %d : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %max, %sum : memref<?x?xf32, strided<[?, 1]>>, memref<?xf32>, memref<?xf32>) outs(%y : memref<?x?xf32>) {
  ^bb0(%a: f32, %mx: f32, %s: f32, %o: f32):
    %d = arith.subf %a, %mx : f32
    %e = math.exp %d : f32
    %p = arith.divf %e, %s : f32
    linalg.yield %p : f32
  }
  %z = memref.view %arena[%c2048][%k] : memref<65536xi8> to memref<?xf32>
  linalg.fill ins(%zero : f32) outs(%z : memref<?xf32>)
  return
}
