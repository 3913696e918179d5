// RUN: autoglm-opt %s --split-input-file --autoglm-convolutions-to-kernels="min-filters=1 narrow-vectors=1" --canonicalize --cse | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-convolutions-to-kernels | FileCheck %s --check-prefix=FEW

// With the default threshold of 32 filters per group, these convolutions
// (2 to 8 filters; the last two have more) keep their gather and product
// for the GEMM call. (The defaults assume AVX-512; the CHECK run's
// narrow-vectors is AVX2's cost model.)
// FEW-NOT: agl_kernel_conv2d

// The lowering's convolution after arena planning: a zero-padded copy of the
// input, a bias broadcast into the output, the im2col gather and the product.
// All of it becomes one call; the filter is packed in panels of 32 filters
// (here one panel of 2 filters: depth by depth, both filters' weights) and
// the original dropped.
// Arguments: batch, groups, channels, height, width; input and its batch,
// channel, row strides; filters, kernel h/w, stride h/w, dilation h/w, pad
// top/left; packed filter, bias; output, out h/w, its batch and channel
// strides; accumulate; activation; residual (none: null); blocking.
// CHECK-LABEL: func.func @padded_strided_bias
// CHECK-NOT: linalg.
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C9:.*]] = arith.constant 9 : i64
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[W:.*]] = memref.get_global @filter_conv_packed : memref<8xf32>
// CHECK-DAG: %[[NORES:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[BIAS:.*]] = llvm.inttoptr
// CHECK: %[[IN:.*]] = llvm.inttoptr
// CHECK: %[[WP:.*]] = llvm.inttoptr
// CHECK: %[[OUT:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_conv2d(%[[C1]], %[[C1]], %[[C1]], %[[C3]], %[[C3]], %[[IN]], %[[C9]], %[[C9]], %[[C3]], %[[C2]], %[[C2]], %[[C2]], %[[C2]], %[[C2]], %[[C1]], %[[C1]], %[[C1]], %[[C1]], %[[WP]], %[[BIAS]], %[[OUT]], %[[C2]], %[[C2]], %[[C8]], %[[C4]], %[[I0]], %[[I0]], %[[NORES]], %{{.*}})
// CHECK-NOT: linalg.
// CHECK: memref.global "private" constant @filter_conv_packed : memref<8xf32> = dense<[1.000000e+00, 5.000000e+00, 2.000000e+00, 6.000000e+00, 3.000000e+00, 7.000000e+00, 4.000000e+00, 8.000000e+00]>
// CHECK-NOT: @filter :
// CHECK: func.func private @agl_kernel_conv2d(i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i32, i32, !llvm.ptr, !llvm.ptr)
#bias = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, 0, 0)>
#id5 = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3, d4)>
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
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

// -----

// Something writes memory between the padded copy and the product (here a
// store into another buffer): the input's last reader may have been the
// copy, so the kernel reads the padded buffer (no padding of its own) and
// the fill and copy stay. The output is not initialized: the call
// accumulates.
// CHECK-LABEL: func.func @keeps_padding
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[C25:.*]] = arith.constant 25 : i64
// CHECK-DAG: %[[ACC:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NOACT:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: linalg.map
// CHECK: linalg.copy
// CHECK: memref.store
// CHECK-NOT: linalg.generic
// CHECK: call @agl_kernel_conv2d(%[[C1]], %[[C1]], %[[C1]], %[[C5]], %[[C5]], %{{.*}}, %[[C25]], %[[C25]], %[[C5]], %[[C2]], %[[C2]], %[[C2]], %[[C2]], %[[C2]], %[[C1]], %[[C1]], %[[C0]], %[[C0]], %{{.*}}, %[[NULL]], %{{.*}}, %[[C2]], %[[C2]], %[[C8]], %[[C4]], %[[ACC]], %[[NOACT]], %[[NULL]], %{{.*}})
// CHECK-NOT: linalg.generic
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
memref.global "private" constant @filter : memref<1x2x4xf32> = dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]>
func.func @keeps_padding(%x: memref<1x1x3x3xf32>, %arena: memref<512xi8>, %y: memref<1x1x2x4xf32>, %other: memref<1xf32>) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %f3 = memref.get_global @filter : memref<1x2x4xf32>
  %padded = memref.view %arena[%c0][] : memref<512xi8> to memref<1x1x5x5xf32>
  linalg.map outs(%padded : memref<1x1x5x5xf32>)
    (%init: f32) {
      linalg.yield %cst : f32
    }
  %interior = memref.subview %padded[0, 0, 1, 1] [1, 1, 3, 3] [1, 1, 1, 1] : memref<1x1x5x5xf32> to memref<1x1x3x3xf32, strided<[25, 25, 5, 1], offset: 6>>
  linalg.copy ins(%x : memref<1x1x3x3xf32>) outs(%interior : memref<1x1x3x3xf32, strided<[25, 25, 5, 1], offset: 6>>)
  memref.store %cst, %other[%c0] : memref<1xf32>
  %in5 = memref.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [1, 1, 1, 5, 5] : memref<1x1x5x5xf32> into memref<1x1x1x5x5xf32>
  %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%in5 : memref<1x1x1x5x5xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%y : memref<1x1x2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A filter that is not a constant cannot be packed at compile time: the
// gather and the product stay (for autoglm-contractions-to-kernels).
// CHECK-LABEL: func.func @runtime_filter
// CHECK-NOT: agl_kernel_conv2d
// CHECK: linalg.generic
// CHECK: linalg.generic
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 + d3, d6 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
func.func @runtime_filter(%x: memref<1x1x1x3x3xf32>, %f3: memref<1x2x4xf32>, %arena: memref<512xi8>, %y: memref<1x1x2x4xf32>) {
  %c128 = arith.constant 128 : index
  %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x1x3x3xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%y : memref<1x1x2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// A ReLU of the whole output right after the product: the kernel writes
// the ReLU's buffer (channel stride 4 of [1, 2, 2, 2]) with activation 1,
// and the ReLU goes. The zero fill of the output (here of the product's
// view of it, between the gather and the product) becomes accumulate = 0.
// CHECK-LABEL: func.func @relu_epilogue
// CHECK-NOT: linalg.
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[NOACC:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[RELU:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NORES:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: %[[Z:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_conv2d({{.*}}, %[[Z]], %{{.*}}, %{{.*}}, %[[C8]], %[[C4]], %[[NOACC]], %[[RELU]], %[[NORES]], %{{.*}})
// CHECK-NOT: linalg.
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
memref.global "private" constant @filter : memref<1x2x4xf32> = dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]>
func.func @relu_epilogue(%x: memref<1x1x1x5x5xf32>, %arena: memref<512xi8>, %z: memref<1x2x2x2xf32>) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %f3 = memref.get_global @filter : memref<1x2x4xf32>
  %acc5 = memref.view %arena[%c0][] : memref<512xi8> to memref<1x1x2x2x2xf32>
  %acc = memref.collapse_shape %acc5 [[0], [1], [2], [3, 4]] : memref<1x1x2x2x2xf32> into memref<1x1x2x4xf32>
  %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x1x5x5xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%cst : f32) outs(%acc : memref<1x1x2x4xf32>)
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%acc : memref<1x1x2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %s: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  %flat = memref.collapse_shape %acc5 [[0], [1, 2], [3], [4]] : memref<1x1x2x2x2xf32> into memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%flat : memref<1x2x2x2xf32>) outs(%z : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.maximumf %in, %cst : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// Any activation the runtime has, as autoglm-mark-activations marks it:
// here a SiLU (activation 4) goes into the kernel like the ReLU above.
// CHECK-LABEL: func.func @silu_epilogue
// CHECK-NOT: linalg.
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : i64
// CHECK-DAG: %[[C8:.*]] = arith.constant 8 : i64
// CHECK-DAG: %[[NOACC:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[SILU:.*]] = arith.constant 4 : i32
// CHECK: %[[Z:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_conv2d({{.*}}, %[[Z]], %{{.*}}, %{{.*}}, %[[C8]], %[[C4]], %[[NOACC]], %[[SILU]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
memref.global "private" constant @filter2 : memref<1x2x4xf32> = dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]>
func.func @silu_epilogue(%x: memref<1x1x1x5x5xf32>, %arena: memref<512xi8>, %z: memref<1x2x2x2xf32>) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %f3 = memref.get_global @filter2 : memref<1x2x4xf32>
  %acc5 = memref.view %arena[%c0][] : memref<512xi8> to memref<1x1x2x2x2xf32>
  %acc = memref.collapse_shape %acc5 [[0], [1], [2], [3, 4]] : memref<1x1x2x2x2xf32> into memref<1x1x2x4xf32>
  %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x1x5x5xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%cst : f32) outs(%acc : memref<1x1x2x4xf32>)
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%acc : memref<1x1x2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %s: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  %flat = memref.collapse_shape %acc5 [[0], [1, 2], [3], [4]] : memref<1x1x2x2x2xf32> into memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%flat : memref<1x2x2x2xf32>) outs(%z : memref<1x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %n = arith.negf %in : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %r = arith.divf %in, %d {autoglm.activation = "silu"} : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// The padded buffer is read again after the product (two convolutions of
// the same padded input): its fill and copy stay, and the kernel reads it.
// CHECK-LABEL: func.func @padding_read_later
// CHECK: linalg.map
// CHECK: linalg.copy
// CHECK: call @agl_kernel_conv2d
// CHECK: memref.load
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
memref.global "private" constant @filter : memref<1x2x4xf32> = dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]>
func.func @padding_read_later(%x: memref<1x1x3x3xf32>, %arena: memref<512xi8>, %y: memref<1x1x2x4xf32>) -> f32 {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %f3 = memref.get_global @filter : memref<1x2x4xf32>
  %padded = memref.view %arena[%c0][] : memref<512xi8> to memref<1x1x5x5xf32>
  linalg.map outs(%padded : memref<1x1x5x5xf32>)
    (%init: f32) {
      linalg.yield %cst : f32
    }
  %interior = memref.subview %padded[0, 0, 1, 1] [1, 1, 3, 3] [1, 1, 1, 1] : memref<1x1x5x5xf32> to memref<1x1x3x3xf32, strided<[25, 25, 5, 1], offset: 6>>
  linalg.copy ins(%x : memref<1x1x3x3xf32>) outs(%interior : memref<1x1x3x3xf32, strided<[25, 25, 5, 1], offset: 6>>)
  %in5 = memref.expand_shape %padded [[0], [1, 2], [3], [4]] output_shape [1, 1, 1, 5, 5] : memref<1x1x5x5xf32> into memref<1x1x1x5x5xf32>
  %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%in5 : memref<1x1x1x5x5xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%y : memref<1x1x2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %s: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  %v = memref.load %padded[%c0, %c0, %c0, %c0] : memref<1x1x5x5xf32>
  return %v : f32
}

// -----

// A ResNet block's end: relu(conv + shortcut) right after the product. The
// kernel reads the shortcut %r as its residual (added before the ReLU) and
// writes %z; the loop goes.
// CHECK-LABEL: func.func @residual_relu_epilogue
// CHECK-NOT: linalg.
// CHECK-DAG: %[[RELU:.*]] = arith.constant 1 : i32
// CHECK-DAG: %[[NOACC:.*]] = arith.constant 0 : i32
// CHECK: memref.extract_strided_metadata %arg2
// CHECK: %[[R:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_conv2d({{.*}}, %[[NOACC]], %[[RELU]], %[[R]], %{{.*}})
// CHECK-NOT: linalg.
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
memref.global "private" constant @filter3 : memref<1x2x4xf32> = dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]>
func.func @residual_relu_epilogue(%x: memref<1x1x1x5x5xf32>, %arena: memref<512xi8>, %r: memref<1x2x2x2xf32>, %z: memref<1x2x2x2xf32>) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %f3 = memref.get_global @filter3 : memref<1x2x4xf32>
  %acc5 = memref.view %arena[%c0][] : memref<512xi8> to memref<1x1x2x2x2xf32>
  %acc = memref.collapse_shape %acc5 [[0], [1], [2], [3, 4]] : memref<1x1x2x2x2xf32> into memref<1x1x2x4xf32>
  %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x1x5x5xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%cst : f32) outs(%acc : memref<1x1x2x4xf32>)
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%acc : memref<1x1x2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %s: f32):
    %m = arith.mulf %a, %c : f32
    %p = arith.addf %s, %m : f32
    linalg.yield %p : f32
  }
  %flat = memref.collapse_shape %acc5 [[0], [1, 2], [3], [4]] : memref<1x1x2x2x2xf32> into memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%flat, %r : memref<1x2x2x2xf32>, memref<1x2x2x2xf32>) outs(%z : memref<1x2x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %y = arith.maximumf %s, %cst : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// The shortcut first and no activation: the sum alone is the epilogue.
// CHECK-LABEL: func.func @residual_sum_epilogue
// CHECK-NOT: linalg.
// CHECK-DAG: %[[NONE:.*]] = arith.constant 0 : i32
// CHECK: memref.extract_strided_metadata %arg2
// CHECK: %[[R:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_conv2d({{.*}}, %[[NONE]], %[[NONE]], %[[R]], %{{.*}})
// CHECK-NOT: linalg.
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
memref.global "private" constant @filter4 : memref<1x2x4xf32> = dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]>
func.func @residual_sum_epilogue(%x: memref<1x1x1x5x5xf32>, %arena: memref<512xi8>, %r: memref<1x2x2x2xf32>, %z: memref<1x2x2x2xf32>) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %f3 = memref.get_global @filter4 : memref<1x2x4xf32>
  %acc5 = memref.view %arena[%c0][] : memref<512xi8> to memref<1x1x2x2x2xf32>
  %acc = memref.collapse_shape %acc5 [[0], [1], [2], [3, 4]] : memref<1x1x2x2x2xf32> into memref<1x1x2x4xf32>
  %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x1x5x5xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%cst : f32) outs(%acc : memref<1x1x2x4xf32>)
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%acc : memref<1x1x2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %s: f32):
    %m = arith.mulf %a, %c : f32
    %p = arith.addf %s, %m : f32
    linalg.yield %p : f32
  }
  %flat = memref.collapse_shape %acc5 [[0], [1, 2], [3], [4]] : memref<1x1x2x2x2xf32> into memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r, %flat : memref<1x2x2x2xf32>, memref<1x2x2x2xf32>) outs(%z : memref<1x2x2x2xf32>) {
  ^bb0(%b: f32, %a: f32, %o: f32):
    %s = arith.addf %b, %a : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// The loop writes into its own shortcut (in place): the kernel would
// overwrite the residual while reading it, so the loop stays and the
// kernel writes the output.
// CHECK-LABEL: func.func @residual_in_place
// CHECK-DAG: %[[NOACT:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[NORES:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK: call @agl_kernel_conv2d({{.*}}, %[[NOACT]], %[[NOACT]], %[[NORES]], %{{.*}})
// CHECK: linalg.generic
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
memref.global "private" constant @filter5 : memref<1x2x4xf32> = dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]>
func.func @residual_in_place(%x: memref<1x1x1x5x5xf32>, %arena: memref<512xi8>, %r: memref<1x2x2x2xf32>, %z: memref<1x2x2x2xf32>) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %f3 = memref.get_global @filter5 : memref<1x2x4xf32>
  %acc5 = memref.view %arena[%c0][] : memref<512xi8> to memref<1x1x2x2x2xf32>
  %acc = memref.collapse_shape %acc5 [[0], [1], [2], [3, 4]] : memref<1x1x2x2x2xf32> into memref<1x1x2x4xf32>
  %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x1x5x5xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%cst : f32) outs(%acc : memref<1x1x2x4xf32>)
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%acc : memref<1x1x2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %s: f32):
    %m = arith.mulf %a, %c : f32
    %p = arith.addf %s, %m : f32
    linalg.yield %p : f32
  }
  %flat = memref.collapse_shape %acc5 [[0], [1, 2], [3], [4]] : memref<1x1x2x2x2xf32> into memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%flat, %r : memref<1x2x2x2xf32>, memref<1x2x2x2xf32>) outs(%r : memref<1x2x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.addf %a, %b : f32
    %y = arith.maximumf %s, %cst : f32
    linalg.yield %y : f32
  }
  return
}

// -----

// A product of the output and the other input is no residual epilogue.
// CHECK-LABEL: func.func @not_a_residual
// CHECK: call @agl_kernel_conv2d
// CHECK: linalg.generic
// CHECK: arith.mulf
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
memref.global "private" constant @filter6 : memref<1x2x4xf32> = dense<[[[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]]>
func.func @not_a_residual(%x: memref<1x1x1x5x5xf32>, %arena: memref<512xi8>, %r: memref<1x2x2x2xf32>, %z: memref<1x2x2x2xf32>) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %f3 = memref.get_global @filter6 : memref<1x2x4xf32>
  %acc5 = memref.view %arena[%c0][] : memref<512xi8> to memref<1x1x2x2x2xf32>
  %acc = memref.collapse_shape %acc5 [[0], [1], [2], [3, 4]] : memref<1x1x2x2x2xf32> into memref<1x1x2x4xf32>
  %cols = memref.view %arena[%c128][] : memref<512xi8> to memref<1x1x1x2x2x2x2xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x1x5x5xf32>) outs(%cols : memref<1x1x1x2x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%cst : f32) outs(%acc : memref<1x1x2x4xf32>)
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x2x2x2x2xf32> into memref<1x1x4x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x4xf32>, memref<1x1x4x4xf32>) outs(%acc : memref<1x1x2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %s: f32):
    %m = arith.mulf %a, %c : f32
    %p = arith.addf %s, %m : f32
    linalg.yield %p : f32
  }
  %flat = memref.collapse_shape %acc5 [[0], [1, 2], [3], [4]] : memref<1x1x2x2x2xf32> into memref<1x2x2x2xf32>
  linalg.generic {indexing_maps = [#id4, #id4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%flat, %r : memref<1x2x2x2xf32>, memref<1x2x2x2xf32>) outs(%z : memref<1x2x2x2xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.mulf %a, %b : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// With narrow vectors, a 1x1 convolution with a stride: its gather is a
// plain subsampling copy, and the GEMM call on it is faster than the kernel.
// CHECK-LABEL: func.func @pointwise_strided
// CHECK-NOT: agl_kernel_conv2d
// CHECK: linalg.generic
// CHECK: linalg.generic
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 * 2 + d3, d6 * 2 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
memref.global "private" constant @filter_pointwise : memref<1x2x1xf32> = dense<[[[1.0], [2.0]]]>
func.func @pointwise_strided(%x: memref<1x1x1x3x3xf32>, %cols: memref<1x1x1x1x1x2x2xf32>, %y: memref<1x1x2x4xf32>) {
  %f3 = memref.get_global @filter_pointwise : memref<1x2x1xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x1x3x3xf32>) outs(%cols : memref<1x1x1x1x1x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x1x1x1x2x2xf32> into memref<1x1x1x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x1xf32>, memref<1x1x1x4xf32>) outs(%y : memref<1x1x2x4xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// With narrow vectors, a map of at most 64 positions with 1 MiB of filters
// or more (here 4 positions, 256 filters of 256 x 2 x 2) stays as gather
// and product: the GEMM call is faster there. With AVX-512, the kernel.
// FEW-LABEL: func.func @small_map_large_filters
// FEW: call @agl_kernel_conv2d
// CHECK-LABEL: func.func @small_map_large_filters
// CHECK-NOT: agl_kernel_conv2d
// CHECK: linalg.generic
// CHECK: linalg.generic
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 + d3, d6 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
memref.global "private" constant @filter_small_map_large_filters : memref<1x256x1024xf32> = dense<1.0>
func.func @small_map_large_filters(%x: memref<1x1x256x3x3xf32>, %cols: memref<1x1x256x2x2x2x2xf32>, %y: memref<1x1x256x4xf32>) {
  %f3 = memref.get_global @filter_small_map_large_filters : memref<1x256x1024xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x256x3x3xf32>) outs(%cols : memref<1x1x256x2x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x256x2x2x2x2xf32> into memref<1x1x1024x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x256x1024xf32>, memref<1x1x1024x4xf32>) outs(%y : memref<1x1x256x4xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}

// -----

// Half the filters (512 KiB): the kernel.
// CHECK-LABEL: func.func @small_map_smaller_filters
// CHECK: call @agl_kernel_conv2d
// FEW-LABEL: func.func @small_map_smaller_filters
// FEW: call @agl_kernel_conv2d
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 + d3, d6 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
memref.global "private" constant @filter_small_map_smaller_filters : memref<1x128x1024xf32> = dense<1.0>
func.func @small_map_smaller_filters(%x: memref<1x1x256x3x3xf32>, %cols: memref<1x1x256x2x2x2x2xf32>, %y: memref<1x1x128x4xf32>) {
  %f3 = memref.get_global @filter_small_map_smaller_filters : memref<1x128x1024xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x256x3x3xf32>) outs(%cols : memref<1x1x256x2x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x256x2x2x2x2xf32> into memref<1x1x1024x4xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x128x1024xf32>, memref<1x1x1024x4xf32>) outs(%y : memref<1x1x128x4xf32>) {
  ^bb0(%a: f32, %c: f32, %acc: f32):
    %m = arith.mulf %a, %c : f32
    %s = arith.addf %acc, %m : f32
    linalg.yield %s : f32
  }
  return
}
