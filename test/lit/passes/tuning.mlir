// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels --cse | FileCheck %s --check-prefix=GEMM
// RUN: autoglm-opt %s --split-input-file --autoglm-convolutions-to-kernels=min-filters=1 | FileCheck %s --check-prefix=CONV
// RUN: autoglm-opt %s --split-input-file --autoglm-convolutions-to-kernels | FileCheck %s --check-prefix=FORCED
// RUN: autoglm-opt %s --split-input-file --autoglm-parallelize-loops | FileCheck %s --check-prefix=THREADS
// RUN: autoglm-opt %s --split-input-file --autoglm-parallelize-loops --autoglm-vectorize-loops | FileCheck %s --check-prefix=VECTOR

// The module attribute `autoglm.tuning` (autoglm-compile --tuning) maps
// kernels' tuning keys to their knobs; the passes take them from there.

// A GEMM's blocking becomes a constant agl_gemm_blocking that the call
// points to (0: the runtime's choice), recorded on the call for reports.
// A product the tuning does not name gets a null pointer.
// GEMM: memref.global "private" constant @__agl_blocking_kc16_nc32_mc0 : memref<3xi32> = dense<[16, 32, 0]>
// GEMM-LABEL: func.func @tuned_gemm
// GEMM: %[[G:.*]] = memref.get_global @__agl_blocking_kc16_nc32_mc0 : memref<3xi32>
// GEMM: memref.extract_strided_metadata %[[G]]
// GEMM: %[[P:.*]] = llvm.inttoptr
// GEMM: call @agl_kernel_sgemm({{.*}}, %[[P]]) {autoglm.blocking = array<i64: 16, 32, 0>}
// GEMM: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// GEMM: call @agl_kernel_sgemm({{.*}}, %[[NULL]]) :
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
module attributes {autoglm.tuning = {"sgemm b1 m32 n16 k64" = {kc = 16 : i64, nc = 32 : i64}}} {
  func.func @tuned_gemm(%a: memref<32x64xf32>, %b: memref<64x16xf32>, %c: memref<32x16xf32>, %d: memref<32x16xf32>, %e: memref<16x16xf32>) {
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %b : memref<32x64xf32>, memref<64x16xf32>) outs(%c : memref<32x16xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%c, %e : memref<32x16xf32>, memref<16x16xf32>) outs(%d : memref<32x16xf32>) {
    ^bb0(%x: f32, %y: f32, %acc: f32):
      %p = arith.mulf %x, %y : f32
      %s = arith.addf %acc, %p : f32
      linalg.yield %s : f32
    }
    return
  }
}

// -----

// A convolution whose tuning asks for im2col keeps its gather and product
// (the GEMM pass takes the product later).
// CONV-LABEL: func.func @padded_strided_bias
// CONV-NOT: agl_kernel_conv2d
// CONV: linalg.generic
// CONV: linalg.generic
#bias = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, 0)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
module attributes {autoglm.tuning = {"conv2d n1 g1 c1 3x3 f2 k2x2 s2x2 o2x2" = {strategy = "im2col"}}} {
  memref.global "private" constant @filter : memref<2x1x2x2xf32> = dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]]]>
  memref.global "private" constant @bias : memref<1x1x2x1x1xf32> = dense<[[[[[0.5]], [[-0.5]]]]]>
  func.func @padded_strided_bias(%x: memref<1x1x3x3xf32>, %arena: memref<512xi8>, %y: memref<1x1x2x2x2xf32>) {
    %cst = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %b = memref.get_global @bias : memref<1x1x2x1x1xf32>
    %f = memref.get_global @filter : memref<2x1x2x2xf32>
    %padded = memref.view %arena[%c0][] : memref<512xi8> to memref<1x1x5x5xf32>
    linalg.map outs(%padded : memref<1x1x5x5xf32>)
      (%init: f32) {
        linalg.yield %cst : f32
      }
    %interior = memref.subview %padded[0, 0, 1, 1] [1, 1, 3, 3] [1, 1, 1, 1] : memref<1x1x5x5xf32> to memref<1x1x3x3xf32, strided<[25, 25, 5, 1], offset: 6>>
    linalg.copy ins(%x : memref<1x1x3x3xf32>) outs(%interior : memref<1x1x3x3xf32, strided<[25, 25, 5, 1], offset: 6>>)
    %in5 = memref.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [1, 1, 1, 5, 5] : memref<1x1x5x5xf32> into memref<1x1x1x5x5xf32>
    linalg.generic {indexing_maps = [#bias, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<1x1x2x1x1xf32>) outs(%y : memref<1x1x2x2x2xf32>) {
    ^bb0(%in: f32, %o: f32):
      linalg.yield %in : f32
    }
    %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
    linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%in5 : memref<1x1x1x5x5xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
    ^bb0(%in: f32, %o: f32):
      linalg.yield %in : f32
    }
    %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
    %f1 = memref.collapse_shape %f [[0, 1, 2, 3]] : memref<2x1x2x2xf32> into memref<8xf32>
    %f3 = memref.expand_shape %f1 [[0, 1, 2]] output_shape [1, 2, 4] : memref<8xf32> into memref<1x2x4xf32>
    %y4 = memref.collapse_shape %y [[0], [1], [2], [3, 4]] : memref<1x1x2x2x2xf32> into memref<1x1x2x4xf32>
    linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%y4 : memref<1x1x2x4xf32>) {
    ^bb0(%a: f32, %c: f32, %acc: f32):
      %m = arith.mulf %a, %c : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
    return
  }
}

// -----

// The same convolution with a blocking: the kernel call points to it.
// CONV-LABEL: func.func @padded_strided_bias
// CONV: call @agl_kernel_conv2d({{.*}}) {autoglm.blocking = array<i64: 8, 0, 14>}
#bias = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, 0)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
module attributes {autoglm.tuning = {"conv2d n1 g1 c1 3x3 f2 k2x2 s2x2 o2x2" = {kc = 8 : i64, mc = 14 : i64}}} {
  memref.global "private" constant @filter : memref<2x1x2x2xf32> = dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]]]>
  memref.global "private" constant @bias : memref<1x1x2x1x1xf32> = dense<[[[[[0.5]], [[-0.5]]]]]>
  func.func @padded_strided_bias(%x: memref<1x1x3x3xf32>, %arena: memref<512xi8>, %y: memref<1x1x2x2x2xf32>) {
    %cst = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %b = memref.get_global @bias : memref<1x1x2x1x1xf32>
    %f = memref.get_global @filter : memref<2x1x2x2xf32>
    %padded = memref.view %arena[%c0][] : memref<512xi8> to memref<1x1x5x5xf32>
    linalg.map outs(%padded : memref<1x1x5x5xf32>)
      (%init: f32) {
        linalg.yield %cst : f32
      }
    %interior = memref.subview %padded[0, 0, 1, 1] [1, 1, 3, 3] [1, 1, 1, 1] : memref<1x1x5x5xf32> to memref<1x1x3x3xf32, strided<[25, 25, 5, 1], offset: 6>>
    linalg.copy ins(%x : memref<1x1x3x3xf32>) outs(%interior : memref<1x1x3x3xf32, strided<[25, 25, 5, 1], offset: 6>>)
    %in5 = memref.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [1, 1, 1, 5, 5] : memref<1x1x5x5xf32> into memref<1x1x1x5x5xf32>
    linalg.generic {indexing_maps = [#bias, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<1x1x2x1x1xf32>) outs(%y : memref<1x1x2x2x2xf32>) {
    ^bb0(%in: f32, %o: f32):
      linalg.yield %in : f32
    }
    %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
    linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%in5 : memref<1x1x1x5x5xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
    ^bb0(%in: f32, %o: f32):
      linalg.yield %in : f32
    }
    %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
    %f1 = memref.collapse_shape %f [[0, 1, 2, 3]] : memref<2x1x2x2xf32> into memref<8xf32>
    %f3 = memref.expand_shape %f1 [[0, 1, 2]] output_shape [1, 2, 4] : memref<8xf32> into memref<1x2x4xf32>
    %y4 = memref.collapse_shape %y [[0], [1], [2], [3, 4]] : memref<1x1x2x2x2xf32> into memref<1x1x2x4xf32>
    linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%y4 : memref<1x1x2x4xf32>) {
    ^bb0(%a: f32, %c: f32, %acc: f32):
      %m = arith.mulf %a, %c : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
    return
  }
}

// -----

// With 2 filters the cost model keeps im2col (below min-filters): the
// convolutions above, without a strategy, stay gather and product. A tuning
// with strategy = "implicit-gemm" takes the kernel anyway.
// FORCED-NOT: call @agl_kernel_conv2d
// FORCED-LABEL: func.func @forced_kernel
// FORCED: call @agl_kernel_conv2d(
#bias = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, 0)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
module attributes {autoglm.tuning = {"conv2d n1 g1 c1 3x3 f2 k2x2 s2x2 o2x2" = {strategy = "implicit-gemm"}}} {
  memref.global "private" constant @filter : memref<2x1x2x2xf32> = dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]]]>
  memref.global "private" constant @bias : memref<1x1x2x1x1xf32> = dense<[[[[[0.5]], [[-0.5]]]]]>
  func.func @forced_kernel(%x: memref<1x1x3x3xf32>, %arena: memref<512xi8>, %y: memref<1x1x2x2x2xf32>) {
    %cst = arith.constant 0.0 : f32
    %c0 = arith.constant 0 : index
    %c128 = arith.constant 128 : index
    %c256 = arith.constant 256 : index
    %b = memref.get_global @bias : memref<1x1x2x1x1xf32>
    %f = memref.get_global @filter : memref<2x1x2x2xf32>
    %padded = memref.view %arena[%c0][] : memref<512xi8> to memref<1x1x5x5xf32>
    linalg.map outs(%padded : memref<1x1x5x5xf32>)
      (%init: f32) {
        linalg.yield %cst : f32
      }
    %interior = memref.subview %padded[0, 0, 1, 1] [1, 1, 3, 3] [1, 1, 1, 1] : memref<1x1x5x5xf32> to memref<1x1x3x3xf32, strided<[25, 25, 5, 1], offset: 6>>
    linalg.copy ins(%x : memref<1x1x3x3xf32>) outs(%interior : memref<1x1x3x3xf32, strided<[25, 25, 5, 1], offset: 6>>)
    %in5 = memref.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [1, 1, 1, 5, 5] : memref<1x1x5x5xf32> into memref<1x1x1x5x5xf32>
    linalg.generic {indexing_maps = [#bias, #id5], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%b : memref<1x1x2x1x1xf32>) outs(%y : memref<1x1x2x2x2xf32>) {
    ^bb0(%in: f32, %o: f32):
      linalg.yield %in : f32
    }
    %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
    linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%in5 : memref<1x1x1x5x5xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
    ^bb0(%in: f32, %o: f32):
      linalg.yield %in : f32
    }
    %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
    %f1 = memref.collapse_shape %f [[0, 1, 2, 3]] : memref<2x1x2x2xf32> into memref<8xf32>
    %f3 = memref.expand_shape %f1 [[0, 1, 2]] output_shape [1, 2, 4] : memref<8xf32> into memref<1x2x4xf32>
    %y4 = memref.collapse_shape %y [[0], [1], [2], [3, 4]] : memref<1x1x2x2x2xf32> into memref<1x1x2x4xf32>
    linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%y4 : memref<1x1x2x4xf32>) {
    ^bb0(%a: f32, %c: f32, %acc: f32):
      %m = arith.mulf %a, %c : f32
      %s = arith.addf %acc, %m : f32
      linalg.yield %s : f32
    }
    return
  }
}


// -----

// Threads: a loop nest far above the threshold stays serial when its
// tuning says so; a small one the tuning puts on the pool is split, and its
// slices in the body keep the whole nest's key, which the vectorizer then
// reads: 8 lanes instead of 16 for it, none for the scalar one.
// THREADS-LABEL: func.func @tuned_loops
// THREADS: linalg.generic
// THREADS-SAME: ins(%arg0 : memref<512x512xf32>)
// THREADS: call @agl_parallel_for
// THREADS-NOT: agl_parallel_for
// THREADS: return
// THREADS-LABEL: func.func private @tuned_loops_parallel
// THREADS: linalg.generic
// THREADS-SAME: autoglm.tuning_key = "loop 8x64 pp"

// VECTOR-LABEL: func.func @tuned_loops
// VECTOR-NOT: vector<
// VECTOR: return
// VECTOR-LABEL: func.func private @tuned_loops_parallel
// VECTOR: vector.transfer_read {{.*}}, vector<1x8xf32>
#id = affine_map<(i, j) -> (i, j)>
module attributes {autoglm.tuning = {"loop 512x512 pp" = {parallel = false, vector_width = 1 : i64}, "loop 8x64 pp" = {parallel = true, vector_width = 8 : i64}}} {
  func.func @tuned_loops(%x: memref<512x512xf32>, %y: memref<512x512xf32>, %u: memref<8x64xf32>, %v: memref<8x64xf32>) {
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : memref<512x512xf32>) outs(%y : memref<512x512xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %a : f32
      linalg.yield %s : f32
    }
    linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%u : memref<8x64xf32>) outs(%v : memref<8x64xf32>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.mulf %a, %a : f32
      linalg.yield %s : f32
    }
    return
  }
}
