// REQUIRES: mlir-runner
// The row kernels of autoglm-map-loops-to-gpu compute what the loops they
// come from compute: an RMSNorm (rows of 256) and a masked softmax updated
// in place (rows of 96 in three row dimensions), run on the CPU once as
// plain loops and once as kernels with each block's threads emulated in
// sequence (autoglm-emulate-gpu-threads: barriers as steps, all_reduce in
// thread order).
//
// DEFINE: %{lower} = --convert-scf-to-cf --expand-strided-metadata --finalize-memref-to-llvm --convert-math-to-llvm --convert-arith-to-llvm --convert-index-to-llvm --convert-func-to-llvm --convert-cf-to-llvm --reconcile-unrealized-casts
// DEFINE: %{run} = mlir-runner -e main -entry-point-result=void -shared-libs=%mlir_runner_utils,%mlir_c_runner_utils
// RUN: autoglm-opt %s --convert-linalg-to-parallel-loops %{lower} | %{run} > %t.loops
// RUN: autoglm-opt %s --convert-linalg-to-parallel-loops --autoglm-accumulate-in-registers --autoglm-map-loops-to-gpu --autoglm-emulate-gpu-threads %{lower} | %{run} > %t.kernels
// RUN: %python %S/Inputs/compare_printed.py %t.loops %t.kernels --rtol 1e-5 --atol 1e-6
//
// The kernels are the row kernels: one per normalization, two block-wide
// reductions in the softmax's.
// RUN: autoglm-opt %s --convert-linalg-to-parallel-loops --autoglm-accumulate-in-registers --autoglm-map-loops-to-gpu | FileCheck %s
// CHECK-LABEL: func.func @kernels
// CHECK: scf.parallel (%{{.*}}) = {{.*}} to (%c4{{.*}}) step
// CHECK: gpu.all_reduce add
// CHECK: math.rsqrt
// CHECK: processor = block_x
// CHECK-NOT: processor =
// CHECK: scf.parallel (%{{.*}}, %{{.*}}, %{{.*}}) = {{.*}} to (%c2{{.*}}, %c3{{.*}}, %c5{{.*}}) step
// CHECK: gpu.all_reduce maximumf
// CHECK: gpu.all_reduce add
// CHECK: processor = block_z
// CHECK-NEXT: return

func.func @kernels(%x: memref<4x256xf32>, %w: memref<256xf32>, %sum: memref<4xf32>,
                   %inv: memref<4xf32>, %y: memref<4x256xf32>,
                   %s: memref<2x3x5x96xf32>, %mask: memref<5x96xf32>,
                   %max: memref<2x3x5xf32>, %total: memref<2x3x5xf32>) {
  %zero = arith.constant 0.0 : f32
  %eps = arith.constant 1.0e-5 : f32
  %n = arith.constant 256.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  linalg.fill ins(%zero : f32) outs(%sum : memref<4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>],
                  iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<4x256xf32>) outs(%sum : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %sq = arith.mulf %a, %a : f32
    %r = arith.addf %sq, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                  iterator_types = ["parallel"]}
      ins(%sum : memref<4xf32>) outs(%inv : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.divf %a, %n : f32
    %e = arith.addf %m, %eps : f32
    %r = math.rsqrt %e : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%x, %inv, %w : memref<4x256xf32>, memref<4xf32>, memref<256xf32>) outs(%y : memref<4x256xf32>) {
  ^bb0(%a: f32, %r: f32, %g: f32, %o: f32):
    %t = arith.mulf %a, %r : f32
    %u = arith.mulf %t, %g : f32
    linalg.yield %u : f32
  }
  // Softmax of s + mask over the last dimension, in place.
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%mask : memref<5x96xf32>) outs(%s : memref<2x3x5x96xf32>) {
  ^bb0(%m: f32, %a: f32):
    %r = arith.addf %a, %m : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%ninf : f32) outs(%max : memref<2x3x5xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s : memref<2x3x5x96xf32>) outs(%max : memref<2x3x5xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  }
  linalg.fill ins(%zero : f32) outs(%total : memref<2x3x5xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
      ins(%s, %max : memref<2x3x5x96xf32>, memref<2x3x5xf32>) outs(%total : memref<2x3x5xf32>) {
  ^bb0(%a: f32, %m: f32, %acc: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    %r = arith.addf %e, %acc : f32
    linalg.yield %r : f32
  }
  linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>],
                  iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%max, %total : memref<2x3x5xf32>, memref<2x3x5xf32>) outs(%s : memref<2x3x5x96xf32>) {
  ^bb0(%m: f32, %t: f32, %a: f32):
    %d = arith.subf %a, %m : f32
    %e = math.exp %d : f32
    %p = arith.divf %e, %t : f32
    linalg.yield %p : f32
  }
  return
}

// Values from a small integer pattern: v(i) = ((i * 37) mod 23) / 4 - 2.5.
func.func @pattern(%i: index) -> f32 {
  %c23 = arith.constant 23 : index
  %c37 = arith.constant 37 : index
  %quarter = arith.constant 0.25 : f32
  %shift = arith.constant 2.5 : f32
  %p = arith.muli %i, %c37 : index
  %q = arith.remui %p, %c23 : index
  %n = arith.index_cast %q : index to i32
  %f = arith.sitofp %n : i32 to f32
  %s = arith.mulf %f, %quarter : f32
  %v = arith.subf %s, %shift : f32
  return %v : f32
}

func.func @fill(%buffer: memref<?xf32>, %offset: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = memref.dim %buffer, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %j = arith.addi %i, %offset : index
    %v = func.call @pattern(%j) : (index) -> f32
    memref.store %v, %buffer[%i] : memref<?xf32>
  }
  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}

func.func @main() {
  // A host section: autoglm-map-loops-to-gpu leaves it to the host.
  scf.execute_region {
    %c0 = arith.constant 0 : index
    %c7 = arith.constant 7 : index
    %c11 = arith.constant 11 : index
    %x = memref.alloc() : memref<1024xf32>
    %w = memref.alloc() : memref<256xf32>
    %s = memref.alloc() : memref<2880xf32>
    %mask = memref.alloc() : memref<480xf32>
    %x1 = memref.cast %x : memref<1024xf32> to memref<?xf32>
    %w1 = memref.cast %w : memref<256xf32> to memref<?xf32>
    %s1 = memref.cast %s : memref<2880xf32> to memref<?xf32>
    %mask1 = memref.cast %mask : memref<480xf32> to memref<?xf32>
    func.call @fill(%x1, %c0) : (memref<?xf32>, index) -> ()
    func.call @fill(%w1, %c7) : (memref<?xf32>, index) -> ()
    func.call @fill(%s1, %c11) : (memref<?xf32>, index) -> ()
    func.call @fill(%mask1, %c0) : (memref<?xf32>, index) -> ()
    %x2 = memref.expand_shape %x [[0, 1]] output_shape [4, 256] : memref<1024xf32> into memref<4x256xf32>
    %s2 = memref.expand_shape %s [[0, 1, 2, 3]] output_shape [2, 3, 5, 96] : memref<2880xf32> into memref<2x3x5x96xf32>
    %mask2 = memref.expand_shape %mask [[0, 1]] output_shape [5, 96] : memref<480xf32> into memref<5x96xf32>
    %sum = memref.alloc() : memref<4xf32>
    %inv = memref.alloc() : memref<4xf32>
    %y = memref.alloc() : memref<4x256xf32>
    %max = memref.alloc() : memref<2x3x5xf32>
    %total = memref.alloc() : memref<2x3x5xf32>
    func.call @kernels(%x2, %w, %sum, %inv, %y, %s2, %mask2, %max, %total)
        : (memref<4x256xf32>, memref<256xf32>, memref<4xf32>, memref<4xf32>, memref<4x256xf32>,
           memref<2x3x5x96xf32>, memref<5x96xf32>, memref<2x3x5xf32>, memref<2x3x5xf32>) -> ()
    %y1 = memref.cast %y : memref<4x256xf32> to memref<*xf32>
    %inv1 = memref.cast %inv : memref<4xf32> to memref<*xf32>
    %s3 = memref.cast %s2 : memref<2x3x5x96xf32> to memref<*xf32>
    %total1 = memref.cast %total : memref<2x3x5xf32> to memref<*xf32>
    func.call @printMemrefF32(%y1) : (memref<*xf32>) -> ()
    func.call @printMemrefF32(%inv1) : (memref<*xf32>) -> ()
    func.call @printMemrefF32(%s3) : (memref<*xf32>) -> ()
    func.call @printMemrefF32(%total1) : (memref<*xf32>) -> ()
    scf.yield
  } {autoglm.host}
  return
}
