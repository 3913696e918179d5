// RUN: autoglm-opt %s --autoglm-convolutions-to-kernels="winograd-min-channels=2 narrow-vectors=1" --canonicalize --cse | FileCheck %s
// RUN: autoglm-opt %s --autoglm-convolutions-to-kernels="min-filters=1 winograd-min-channels=2" | FileCheck %s --check-prefix=WIDE
// RUN: autoglm-opt %s --autoglm-convolutions-to-kernels="min-filters=1 winograd-min-channels=2 winograd=false" | FileCheck %s --check-prefix=DIRECT
// RUN: autoglm-opt %s --autoglm-convolutions-to-kernels=min-filters=1 | FileCheck %s --check-prefix=FEW

// A 3x3 convolution with unit strides, 2 channels and 2 filters on a 14x14
// input (12x12 outputs, 6x6 tiles) becomes, on a target without AVX-512
// (at least 32 tiles), agl_kernel_conv2d_winograd: the
// filter transformed (G g G^T, 16 matrices [filters x channels] in panels
// of 14 filters, a channel's 2 filters and 12 zeros after each other: the
// first element of each filter and channel, 1, 19 and 10, 28, then 0.5
// times the sums of the first rows, 3, 30), a workspace of 16 matrices of 36 tiles x 2
// channels and 16 of 36 tiles x 2 filters, each padded to whole cache lines
// plus one (96 floats), allocated before the call for the arena plan, and
// the zero fill turned into accumulate = 0.
// Arguments: batch, channels, height, width; input and its batch, channel,
// row strides; filters, pad top/left; transformed filter, bias; output, out
// h/w, its batch and channel strides; accumulate; activation; residual;
// workspace; blocking.
// CHECK-LABEL: func.func @winograd
// CHECK-NOT: linalg.
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : i64
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C12:.*]] = arith.constant 12 : i64
// CHECK-DAG: %[[C14:.*]] = arith.constant 14 : i64
// CHECK-DAG: %[[C144:.*]] = arith.constant 144 : i64
// CHECK-DAG: %[[C196:.*]] = arith.constant 196 : i64
// CHECK-DAG: %[[C288:.*]] = arith.constant 288 : i64
// CHECK-DAG: %[[C392:.*]] = arith.constant 392 : i64
// CHECK-DAG: %[[I0:.*]] = arith.constant 0 : i32
// CHECK-DAG: %[[NULL:.*]] = llvm.mlir.zero : !llvm.ptr
// CHECK-DAG: %[[WS:.*]] = memref.alloc() : memref<3072xf32>
// CHECK-DAG: memref.get_global @filter_winograd : memref<448xf32>
// CHECK: call @agl_kernel_conv2d_winograd(%[[C1]], %[[C2]], %[[C14]], %[[C14]], %{{.*}}, %[[C392]], %[[C196]], %[[C14]], %[[C2]], %[[C0]], %[[C0]], %{{.*}}, %[[NULL]], %{{.*}}, %[[C12]], %[[C12]], %[[C288]], %[[C144]], %[[I0]], %[[I0]], %[[NULL]], %{{.*}}, %{{.*}})
// CHECK-NOT: linalg.
// CHECK: memref.global "private" constant @filter_winograd : memref<448xf32> = dense<"0x0000803F00009841000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000020410000E041000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000040400000F041
// CHECK-NOT: @filter :
// CHECK: func.func private @agl_kernel_conv2d_winograd(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, !llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i32, i32, !llvm.ptr, !llvm.ptr, !llvm.ptr)

// With AVX-512, F(4x4, 3x3) takes at least 32 tiles of 4x4 (here 9): the
// kernel.
// WIDE-NOT: agl_kernel_conv2d_winograd
// WIDE: call @agl_kernel_conv2d(
// WIDE-NOT: agl_kernel_conv2d_winograd

// With winograd=false, the direct kernel as before.
// DIRECT-NOT: agl_kernel_conv2d_winograd
// DIRECT: call @agl_kernel_conv2d(
// DIRECT-NOT: agl_kernel_conv2d_winograd

// The default threshold (64 channels and filters): not by Winograd.
// FEW-NOT: agl_kernel_conv2d_winograd
// FEW: call @agl_kernel_conv2d(
// FEW-NOT: agl_kernel_conv2d_winograd
#gather = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d5 + d3, d6 + d4)>
#id7 = affine_map<(d0, d1, d2, d3, d4, d5, d6) -> (d0, d1, d2, d3, d4, d5, d6)>
#w = affine_map<(d0, d1, d2, d3, d4) -> (d1, d2, d3)>
#col = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
#out = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
memref.global "private" constant @filter : memref<1x2x18xf32> = dense<[[[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0], [19.0, 20.0, 21.0, 22.0, 23.0, 24.0, 25.0, 26.0, 27.0, 28.0, 29.0, 30.0, 31.0, 32.0, 33.0, 34.0, 35.0, 36.0]]]>
func.func @winograd(%x: memref<1x1x2x14x14xf32>, %arena: memref<16384xi8>) {
  %cst = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %c2048 = arith.constant 2048 : index
  %f3 = memref.get_global @filter : memref<1x2x18xf32>
  %acc = memref.view %arena[%c0][] : memref<16384xi8> to memref<1x1x2x144xf32>
  %cols = memref.view %arena[%c2048][] : memref<16384xi8> to memref<1x1x2x3x3x12x12xf32>
  linalg.generic {indexing_maps = [#gather, #id7], iterator_types = ["parallel", "parallel", "parallel", "parallel", "parallel", "parallel", "parallel"]} ins(%x : memref<1x1x2x14x14xf32>) outs(%cols : memref<1x1x2x3x3x12x12xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  }
  linalg.fill ins(%cst : f32) outs(%acc : memref<1x1x2x144xf32>)
  %cols4 = memref.collapse_shape %cols [[0], [1], [2, 3, 4], [5, 6]] : memref<1x1x2x3x3x12x12xf32> into memref<1x1x18x144xf32>
  linalg.generic {indexing_maps = [#w, #col, #out], iterator_types = ["parallel", "parallel", "parallel", "reduction", "parallel"]} ins(%f3, %cols4 : memref<1x2x18xf32>, memref<1x1x18x144xf32>) outs(%acc : memref<1x1x2x144xf32>) {
  ^bb0(%a: f32, %c: f32, %s: f32):
    %m = arith.mulf %a, %c : f32
    %r = arith.addf %s, %m : f32
    linalg.yield %r : f32
  }
  return
}
