// RUN: autoglm-opt %s --split-input-file --autoglm-place-on-host="families=elementwise" | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-place-on-host="families=all" | FileCheck %s --check-prefix=ALL

// The elementwise product runs on the host: a host section copies the
// device bytes it touches (its output's arena range, the weight's range of
// the weights buffer, the whole input) into the staging memory, runs it as
// loops on views of the copies and copies its output back. The reduction
// stays for the GPU; the copy after it is a section of its own.
// CHECK-LABEL: func.func @main
// CHECK-SAME: (%[[ARENA:[^:]*]]: memref<4096xi8>, %[[WEIGHTS:[^:]*]]: memref<256xi8>, %[[X:[^:]*]]: memref<4x8xf32>, %[[Y:[^:]*]]: memref<4x8xf32>)
// CHECK: scf.execute_region {
// CHECK: %[[STAGING:.*]] = func.call @agl_cuda_host_staging(%{{.*}}) : (i64) -> memref<384xi8>
// CHECK: scf.if
// CHECK: memref.view %[[ARENA]][%{{.*}}][] : memref<4096xi8> to memref<128xi8>
// CHECK: call @agl_cuda_copy_to_host
// CHECK: memref.view %[[WEIGHTS]][%{{.*}}][] : memref<256xi8> to memref<128xi8>
// CHECK: call @agl_cuda_copy_to_host
// CHECK: memref.extract_strided_metadata %[[X]]
// CHECK: call @agl_cuda_copy_to_host
// CHECK: %[[HX:.*]] = memref.view %[[STAGING]][%{{.*}}][] : memref<384xi8> to memref<4x8xf32>
// CHECK: %[[HW:.*]] = memref.view %[[STAGING]][%{{.*}}][] : memref<384xi8> to memref<4x8xf32>
// CHECK: %[[HT:.*]] = memref.view %[[STAGING]][%{{.*}}][] : memref<384xi8> to memref<4x8xf32>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.load %[[HX]]
// CHECK: memref.load %[[HW]]
// CHECK: arith.mulf
// CHECK: memref.store %{{.*}}, %[[HT]]
// CHECK: call @agl_cuda_copy_to_device
// CHECK-NOT: call @agl_cuda_copy_to_device
// CHECK: } {autoglm.host = "--device-hint elementwise=host"}
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
// CHECK: scf.execute_region {
// CHECK: call @agl_cuda_copy_to_host
// CHECK: call @agl_cuda_copy_to_host
// CHECK: call @agl_cuda_copy_to_device
// CHECK-NOT: call @agl_cuda_copy_to_device
// CHECK: } {autoglm.host = "--device-hint elementwise=host"}
// CHECK-NOT: memref.copy
// CHECK: func.func private @agl_cuda_host_staging(i64) -> memref<384xi8>
// All three ops: one section with five slots (the sum's arena bytes 0..16,
// the product's 1024..1152, the weight, x, y), the three written ones
// copied back.
// ALL-LABEL: func.func @main
// ALL: scf.execute_region {
// ALL-COUNT-5: call @agl_cuda_copy_to_host
// ALL-NOT: call @agl_cuda_copy_to_host
// ALL-COUNT-3: call @agl_cuda_copy_to_device
// ALL: } {autoglm.host = "--device-hint elementwise=host, --device-hint reduction=host"}
// ALL-NOT: linalg.generic
// ALL-NOT: scf.execute_region
#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @main(%arena: memref<4096xi8>, %weights: memref<256xi8>, %x: memref<4x8xf32>, %y: memref<4x8xf32>) {
  %c0 = arith.constant 0 : index
  %c128 = arith.constant 128 : index
  %c1024 = arith.constant 1024 : index
  %t = memref.view %arena[%c1024][] : memref<4096xi8> to memref<4x8xf32>
  %w = memref.view %weights[%c128][] : memref<256xi8> to memref<4x8xf32>
  %s = memref.view %arena[%c0][] : memref<4096xi8> to memref<4xf32>
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %w : memref<4x8xf32>, memref<4x8xf32>) outs(%t : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  }
  linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]} ins(%t : memref<4x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %o: f32):
    %m = arith.addf %a, %o : f32
    linalg.yield %m : f32
  }
  memref.copy %t, %y : memref<4x8xf32> to memref<4x8xf32>
  return
}

// -----

// Two views of overlapping arena bytes share one slot of the staging
// memory, copied in and out once.
// CHECK-LABEL: func.func @overlap
// ALL-LABEL: func.func @overlap
// CHECK: func.call @agl_cuda_host_staging(%{{.*}}) : (i64) -> memref<192xi8>
// CHECK: memref.view %{{.*}}[%{{.*}}][] : memref<4096xi8> to memref<192xi8>
// CHECK-COUNT-1: call @agl_cuda_copy_to_host
// CHECK-NOT: call @agl_cuda_copy_to_host
// CHECK-COUNT-1: call @agl_cuda_copy_to_device
// CHECK-NOT: call @agl_cuda_copy_to_device
#id1 = affine_map<(d0) -> (d0)>
func.func @overlap(%arena: memref<4096xi8>) {
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %a = memref.view %arena[%c64][] : memref<4096xi8> to memref<32xf32>
  %b = memref.view %arena[%c128][] : memref<4096xi8> to memref<32xf32>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%a : memref<32xf32>) outs(%b : memref<32xf32>) {
  ^bb0(%v: f32, %o: f32):
    %d = arith.addf %v, %v : f32
    linalg.yield %d : f32
  }
  return
}

// -----

// A one-dimensional int8 input is a buffer of its own, not a byte buffer
// viewed at offsets: its subview is staged with the whole input.
// CHECK-LABEL: func.func @int8_input
// CHECK-SAME: (%[[ARENA:[^:]*]]: memref<4096xi8>, %[[IN:[^:]*]]: memref<16xi8>)
// CHECK: %[[STAGING:.*]] = func.call @agl_cuda_host_staging
// CHECK: memref.view %[[IN]][%{{.*}}][] : memref<16xi8> to memref<16xi8>
// CHECK: call @agl_cuda_copy_to_host
// CHECK: %[[HIN:.*]] = memref.view %[[STAGING]][%{{.*}}][] : memref<128xi8> to memref<16xi8>
// CHECK: memref.subview %[[HIN]][4] [8] [1]
// CHECK: arith.sitofp
#id1 = affine_map<(d0) -> (d0)>
func.func @int8_input(%arena: memref<4096xi8>, %in: memref<16xi8>) {
  %c0 = arith.constant 0 : index
  %part = memref.subview %in[4] [8] [1] : memref<16xi8> to memref<8xi8, strided<[1], offset: 4>>
  %out = memref.view %arena[%c0][] : memref<4096xi8> to memref<8xf32>
  linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%part : memref<8xi8, strided<[1], offset: 4>>) outs(%out : memref<8xf32>) {
  ^bb0(%v: i8, %o: f32):
    %f = arith.sitofp %v : i8 to f32
    linalg.yield %f : f32
  }
  return
}

// -----

// A store of one element computed on the host (a shape's extent) is of
// the elementwise family: it joins the section, on the staged copy. A
// broadcast over symbolic extents reads its source by index in its body,
// not as an operand: that buffer is staged too (arena bytes 64..192), and
// the body reads the staged copy.
// CHECK-LABEL: func.func @captured
// CHECK-SAME: (%[[ARENA:[^:]*]]: memref<4096xi8>
// CHECK: scf.execute_region {
// CHECK: %[[STAGING:.*]] = func.call @agl_cuda_host_staging
// CHECK-COUNT-3: call @agl_cuda_copy_to_host
// CHECK-NOT: call @agl_cuda_copy_to_host
// CHECK: %[[HN:.*]] = memref.view %[[STAGING]][%{{.*}}][] : memref<{{.*}}xi8> to memref<i64>
// CHECK: memref.store %{{.*}}, %[[HN]][] : memref<i64>
// CHECK: %[[HSRC:.*]] = memref.view %[[STAGING]][%{{.*}}][] : memref<{{.*}}xi8> to memref<4x8xf32>
// CHECK: scf.for
// CHECK: memref.load %[[HSRC]]
// CHECK: call @agl_cuda_copy_to_device
// CHECK: call @agl_cuda_copy_to_device
// CHECK-NOT: call @agl_cuda_copy_to_device
// CHECK: } {autoglm.host = "--device-hint elementwise=host"}
// CHECK-NOT: memref.store
#out = affine_map<(d0, d1) -> (d0, d1)>
func.func @captured(%arena: memref<4096xi8>, %y: memref<4x8xf32>, %n: index) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c1 = arith.constant 1 : index
  %extent = memref.view %arena[%c0][] : memref<4096xi8> to memref<i64>
  %wide = arith.index_cast %n : index to i64
  memref.store %wide, %extent[] : memref<i64>
  %source = memref.view %arena[%c64][] : memref<4096xi8> to memref<4x8xf32>
  linalg.generic {indexing_maps = [#out], iterator_types = ["parallel", "parallel"]} outs(%y : memref<4x8xf32>) {
  ^bb0(%o: f32):
    %i = linalg.index 0 : index
    %j = linalg.index 1 : index
    %one = arith.cmpi eq, %n, %c1 : index
    %row = arith.select %one, %c0, %i : index
    %v = memref.load %source[%row, %j] : memref<4x8xf32>
    linalg.yield %v : f32
  }
  return
}
