// RUN: autoglm-opt %s --split-input-file --autoglm-pooling-to-kernels --canonicalize --cse | FileCheck %s

// The lowering's 3x3/2 max pool with padding 1 after arena planning: the
// input copied into a -inf-filled buffer, the output filled with -inf, and
// the window loop. All of it becomes one call that reads the input itself.
// Arguments: batch, channels, height, width; input and its batch, channel,
// row strides; kernel h/w, stride h/w, dilation h/w, pad top/left; output,
// out h/w, its batch, channel and row strides.
// CHECK-LABEL: func.func @padded
// CHECK-NOT: linalg.
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : i64
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : i64
// CHECK-DAG: %[[C3:.*]] = arith.constant 3 : i64
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : i64
// CHECK-DAG: %[[C9:.*]] = arith.constant 9 : i64
// CHECK-DAG: %[[C18:.*]] = arith.constant 18 : i64
// CHECK-DAG: %[[C25:.*]] = arith.constant 25 : i64
// CHECK-DAG: %[[C50:.*]] = arith.constant 50 : i64
// CHECK: %[[IN:.*]] = llvm.inttoptr
// CHECK: %[[OUT:.*]] = llvm.inttoptr
// CHECK: call @agl_kernel_maxpool2d(%[[C1]], %[[C2]], %[[C5]], %[[C5]], %[[IN]], %[[C50]], %[[C25]], %[[C5]], %[[C3]], %[[C3]], %[[C2]], %[[C2]], %[[C1]], %[[C1]], %[[C1]], %[[C1]], %[[OUT]], %[[C3]], %[[C3]], %[[C18]], %[[C9]], %[[C3]])
// CHECK-NOT: linalg.
// CHECK: func.func private @agl_kernel_maxpool2d(i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, i64, !llvm.ptr, i64, i64, i64, i64, i64)
#in = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>
#window = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3)>
#out = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
func.func @padded(%x: memref<1x2x5x5xf32>, %arena: memref<512xi8>, %y: memref<1x2x3x3xf32>) {
  %c0 = arith.constant 0 : index
  %c400 = arith.constant 400 : index
  %lowest = arith.constant 0xFF800000 : f32
  %padded = memref.view %arena[%c0][] : memref<512xi8> to memref<1x2x7x7xf32>
  linalg.map outs(%padded : memref<1x2x7x7xf32>)
    (%init: f32) {
      linalg.yield %lowest : f32
    }
  %interior = memref.subview %padded[0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.copy ins(%x : memref<1x2x5x5xf32>) outs(%interior : memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>)
  linalg.fill ins(%lowest : f32) outs(%y : memref<1x2x3x3xf32>)
  %window = memref.view %arena[%c400][] : memref<512xi8> to memref<3x3xf32>
  linalg.generic {indexing_maps = [#in, #window, #out], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]} ins(%padded, %window : memref<1x2x7x7xf32>, memref<3x3xf32>) outs(%y : memref<1x2x3x3xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  }
  return
}

// -----

// The padded buffer is read again after the loop: its fill and copy stay,
// and the kernel reads it, unpadded (7 x 7, pads 0).
// CHECK-LABEL: func.func @padded_read_again
// CHECK: linalg.map
// CHECK: linalg.copy
// CHECK-NOT: linalg.fill
// CHECK: call @agl_kernel_maxpool2d(%{{.*}}, %{{.*}}, %[[C7:.*]], %[[C7]], %{{.*}}, %{{.*}}, %{{.*}}, %[[C7]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[C0:.*]], %[[C0]],
// CHECK: linalg.copy
#in = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 * 2 + d2, d5 * 2 + d3)>
#window = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3)>
#out = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
func.func @padded_read_again(%x: memref<1x2x5x5xf32>, %arena: memref<512xi8>, %y: memref<1x2x3x3xf32>, %z: memref<1x2x7x7xf32>) {
  %c0 = arith.constant 0 : index
  %c400 = arith.constant 400 : index
  %lowest = arith.constant 0xFF800000 : f32
  %padded = memref.view %arena[%c0][] : memref<512xi8> to memref<1x2x7x7xf32>
  linalg.map outs(%padded : memref<1x2x7x7xf32>)
    (%init: f32) {
      linalg.yield %lowest : f32
    }
  %interior = memref.subview %padded[0, 0, 1, 1] [1, 2, 5, 5] [1, 1, 1, 1] : memref<1x2x7x7xf32> to memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>
  linalg.copy ins(%x : memref<1x2x5x5xf32>) outs(%interior : memref<1x2x5x5xf32, strided<[98, 49, 7, 1], offset: 8>>)
  linalg.fill ins(%lowest : f32) outs(%y : memref<1x2x3x3xf32>)
  %window = memref.view %arena[%c400][] : memref<512xi8> to memref<3x3xf32>
  linalg.generic {indexing_maps = [#in, #window, #out], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]} ins(%padded, %window : memref<1x2x7x7xf32>, memref<3x3xf32>) outs(%y : memref<1x2x3x3xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  }
  linalg.copy ins(%padded : memref<1x2x7x7xf32>) outs(%z : memref<1x2x7x7xf32>)
  return
}

// -----

// Without the -inf fill of the output the loop takes the max with what the
// output holds: left alone.
// CHECK-LABEL: func.func @not_filled
// CHECK-NOT: call
// CHECK: linalg.generic
#in = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4 + d2, d5 + d3)>
#window = affine_map<(d0, d1, d2, d3, d4, d5) -> (d2, d3)>
#out = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d4, d5)>
func.func @not_filled(%x: memref<1x2x5x5xf32>, %arena: memref<512xi8>, %y: memref<1x2x3x3xf32>) {
  %c400 = arith.constant 400 : index
  %window = memref.view %arena[%c400][] : memref<512xi8> to memref<3x3xf32>
  linalg.generic {indexing_maps = [#in, #window, #out], iterator_types = ["parallel", "parallel", "reduction", "reduction", "parallel", "parallel"]} ins(%x, %window : memref<1x2x5x5xf32>, memref<3x3xf32>) outs(%y : memref<1x2x3x3xf32>) {
  ^bb0(%in: f32, %w: f32, %out: f32):
    %m = arith.maximumf %out, %in : f32
    linalg.yield %m : f32
  }
  return
}
