// RUN: autoglm-opt %s --autoglm-convolutions-to-kernels="winograd-min-channels=2" --canonicalize --cse | FileCheck %s
// RUN: autoglm-opt %s --autoglm-convolutions-to-kernels="winograd-min-channels=2 narrow-vectors=1" | FileCheck %s --check-prefix=NARROW

// A 3x3 convolution with unit strides, 2 channels and 2 filters on a 26x26
// input (24x24 outputs, 6x6 tiles of 4x4) becomes, with AVX-512 (at least
// 32 such tiles), agl_kernel_conv2d_winograd_f4: the filter transformed
// (G g G^T, 36 matrices [filters x channels] in panels of 14 filters, a
// channel's 2 filters and 12 zeros after each other: the first element of
// each filter and channel, 1, 19 and 10, 28, times 1/16: 0.0625, 1.1875,
// then 0.625, 1.75), and a workspace for the 2 blocks of 3 rows of tiles:
// per block 36 matrices of 2 channels x 32 lanes and 36 of 2 filters x 32,
// each a cache line longer (80 floats), 2 x 36 x 160 floats in all,
// allocated before the call for the arena plan; the zero fill turned into
// accumulate = 0. Arguments as for agl_kernel_conv2d_winograd.
// CHECK-LABEL: func.func @winograd_f4
// CHECK-NOT: linalg.
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C24:.*]] = arith.constant 24 : i64
// CHECK-DAG: %[[C26:.*]] = arith.constant 26 : i64
// CHECK-DAG: %[[C576:.*]] = arith.constant 576 : i64
// CHECK-DAG: %[[C676:.*]] = arith.constant 676 : i64
// CHECK-DAG: %[[C1152:.*]] = arith.constant 1152 : i64
// CHECK-DAG: %[[C1352:.*]] = arith.constant 1352 : i64
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG: %[[WS:.*]] = memref.alloc() : memref<11520xf32>
// CHECK-DAG: memref.get_global @filter_winograd_f4 : memref<1008xf32>
// CHECK: call @agl_kernel_conv2d_winograd_f4(%[[C1]], %[[C2]], %[[C26]], %[[C26]], %{{.*}}, %[[C1352]], %[[C676]], %[[C26]], %[[C2]], %[[C0]], %[[C0]], %{{.*}}, %[[NULL]], %{{.*}}, %[[C24]], %[[C24]], %[[C1152]], %[[C576]], %[[I0]], %[[I0]], %[[NULL]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.
// CHECK: memref.global "private" constant @filter_winograd_f4 : memref<1008xf32> = dense<"0x0000803D0000983F0000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000203F0000E03F
// CHECK-NOT: @filter :
// CHECK: func.func private @agl_kernel_conv2d_winograd_f4(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)

// Without AVX-512, F(2x2, 3x3) (144 tiles of 2x2).
// NARROW-NOT: agl_kernel_conv2d_winograd_f4
// NARROW: call @agl_kernel_conv2d_winograd(
// NARROW-NOT: agl_kernel_conv2d_winograd_f4
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 + d3, d6 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
memref.global "private" constant @filter : memref<1x2x18xf32> = dense<[[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0], [19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0]]]>
func.func @winograd_f4(%x: memref<1x1x2x26x26xf32>, %arena: memref<65536xi8>) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c8192 = arith.constant 8192 : index
  %f3 = memref.get_global @filter : memref<1x2x18xf32>
  %acc = memref.view %arena[%c0][] : memref<65536xi8> to memref<1x1x2x576xf32>
  %cols = memref.view %arena[%c8192][] : memref<65536xi8> to memref<1x1x2x3x3x24x24xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x2x26x26xf32>) outs(%cols : memref<1x1x2x3x3x24x24xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%cst : f32) outs(%acc : memref<1x1x2x576xf32>)
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x2x3x3x24x24xf32> into memref<1x1x18x576xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x18xf32>, memref<1x1x18x576xf32>) outs(%acc : memref<1x1x2x576xf32>) {
  ^bb0(%a: f32, %c: f32, %s: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  return
}
