// RUN: autoglm-opt %s --split-input-file --autoglm-bufferize | FileCheck %s

// The inputs are linalg-level functions as --autoglm-lower-to-linalg emits
// them: arguments are marked non-writable because they belong to the caller.

// Results become trailing output arguments; nothing is returned. The last
// op computes straight into the output argument (no result buffer, no
// copy); intermediates get 64-byte-aligned buffers.
// CHECK-LABEL: func.func @results_are_out_params
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[B:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32> {bufferize.result})
// CHECK-NOT: ->
// CHECK: %[[TMP:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]], %[[B]] : memref<4xf32>, memref<4xf32>) outs(%[[TMP]] : memref<4xf32>)
// CHECK: arith.addf
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[TMP]] : memref<4xf32>) outs(%[[OUT]] : memref<4xf32>)
// CHECK: math.exp
// CHECK-NOT: memref.alloc
// CHECK-NOT: copy
// CHECK: return{{$}}
func.func @results_are_out_params(%arg0: tensor<4xf32> {bufferization.writable = false},
                                  %arg1: tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32> {
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%arg0, %arg1 : tensor<4xf32>, tensor<4xf32>) outs(%0 : tensor<4xf32>) {
  ^bb0(%in: f32, %in_0: f32, %out: f32):
    %4 = arith.addf %in, %in_0 : f32
    linalg.yield %4 : f32
  } -> tensor<4xf32>
  %2 = tensor.empty() : tensor<4xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%1 : tensor<4xf32>) outs(%2 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %4 = math.exp %in : f32
    linalg.yield %4 : f32
  } -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// A returned input and a view of it are copied into the outputs, with
// linalg.copy (never memref.copy, which would need a runtime library).
// CHECK-LABEL: func.func @returned_input_is_copied
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[OUT0:.*]]: memref<4xf32> {bufferize.result}, %[[OUT1:.*]]: memref<2x2xf32> {bufferize.result})
// CHECK: %[[VIEW:.*]] = memref.expand_shape %[[A]] {{\[\[}}0, 1]] output_shape [2, 2] : memref<4xf32> into memref<2x2xf32>
// CHECK-DAG: linalg.copy ins(%[[A]] : memref<4xf32>) outs(%[[OUT0]] : memref<4xf32>)
// CHECK-DAG: linalg.copy ins(%[[VIEW]] : memref<2x2xf32>) outs(%[[OUT1]] : memref<2x2xf32>)
// CHECK-NOT: memref.copy
// CHECK: return
func.func @returned_input_is_copied(%arg0: tensor<4xf32> {bufferization.writable = false})
    -> (tensor<4xf32>, tensor<2x2xf32>) {
  %expanded = tensor.expand_shape %arg0 [[0, 1]] output_shape [2, 2] : tensor<4xf32> into tensor<2x2xf32>
  return %arg0, %expanded : tensor<4xf32>, tensor<2x2xf32>
}

// -----

// A strided view is copied with linalg.copy straight into the output.
// CHECK-LABEL: func.func @slice_result
// CHECK-SAME: (%[[A:.*]]: memref<4x8xf32>, %[[OUT:.*]]: memref<2x8xf32> {bufferize.result})
// CHECK: %[[SUB:.*]] = memref.subview %[[A]][1, 0] [2, 8] [1, 1] : memref<4x8xf32> to memref<2x8xf32, strided<[8, 1], offset: 8>>
// CHECK-NOT: memref.alloc
// CHECK: linalg.copy ins(%[[SUB]] : memref<2x8xf32, strided<[8, 1], offset: 8>>) outs(%[[OUT]] : memref<2x8xf32>)
// CHECK-NOT: memref.copy
func.func @slice_result(%arg0: tensor<4x8xf32> {bufferization.writable = false}) -> tensor<2x8xf32> {
  %extracted_slice = tensor.extract_slice %arg0[1, 0] [2, 8] [1, 1] : tensor<4x8xf32> to tensor<2x8xf32>
  return %extracted_slice : tensor<2x8xf32>
}

// -----

// Constants become aligned read-only globals, copied into the output.
// CHECK: memref.global "private" constant @[[G:.*]] : memref<3xi64> = dense<[1, 2, 3]> {alignment = 64 : i64}
// CHECK-LABEL: func.func @constant_result
// CHECK-SAME: (%[[OUT:.*]]: memref<3xi64> {bufferize.result})
// CHECK: %[[C:.*]] = memref.get_global @[[G]] : memref<3xi64>
// CHECK: linalg.copy ins(%[[C]] : memref<3xi64>) outs(%[[OUT]] : memref<3xi64>)
func.func @constant_result() -> tensor<3xi64> {
  %cst = arith.constant dense<[1, 2, 3]> : tensor<3xi64>
  return %cst : tensor<3xi64>
}

// -----

// Writing into a non-writable argument needs a copy first; a writable one
// is updated in place.
// CHECK-LABEL: func.func @non_writable_input
// CHECK-SAME: (%[[RO:.*]]: memref<4xf32>, %[[RW:.*]]: memref<4xf32>, %[[OUT0:.*]]: memref<4xf32> {bufferize.result}, %[[OUT1:.*]]: memref<4xf32> {bufferize.result})
// CHECK: linalg.copy ins(%[[RO]] : memref<4xf32>) outs(%[[OUT0]] : memref<4xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[OUT0]] : memref<4xf32>)
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[RW]] : memref<4xf32>)
// CHECK: linalg.copy ins(%[[RW]] : memref<4xf32>) outs(%[[OUT1]] : memref<4xf32>)
func.func @non_writable_input(%ro: tensor<4xf32> {bufferization.writable = false}, %rw: tensor<4xf32>)
    -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%ro : tensor<4xf32>) {
  ^bb0(%out: f32):
    %1 = math.exp %out : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      outs(%rw : tensor<4xf32>) {
  ^bb0(%out: f32):
    %1 = math.exp %out : f32
    linalg.yield %1 : f32
  } -> tensor<4xf32>
  return %0, %2 : tensor<4xf32>, tensor<4xf32>
}

// -----

// The same buffer returned twice: computed into the first output, copied
// into the second.
// CHECK-LABEL: func.func @result_returned_twice
// CHECK-SAME: (%[[A:.*]]: memref<4xf32>, %[[OUT0:.*]]: memref<4xf32> {bufferize.result}, %[[OUT1:.*]]: memref<4xf32> {bufferize.result})
// CHECK-NOT: memref.alloc
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[A]] : memref<4xf32>) outs(%[[OUT0]] : memref<4xf32>)
// CHECK: linalg.copy ins(%[[OUT0]] : memref<4xf32>) outs(%[[OUT1]] : memref<4xf32>)
// CHECK: return
func.func @result_returned_twice(%arg0: tensor<4xf32> {bufferization.writable = false}) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%arg0 : tensor<4xf32>) outs(%0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %2 = math.exp %in : f32
    linalg.yield %2 : f32
  } -> tensor<4xf32>
  return %1, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Model state (a KV cache) is updated in place in its writable argument;
// the state results then say nothing more and are dropped, leaving only
// the real output as an output argument.
// CHECK-LABEL: func.func @state_in_place
// CHECK-SAME: (%[[NEW:.*]]: memref<1x4xf32>, %[[CACHE:.*]]: memref<8x4xf32> {autoglm.state = "cache"}, %[[OUT:.*]]: memref<1x4xf32> {bufferize.result})
// CHECK-NOT: memref.alloc
// CHECK: %[[SLOT:.*]] = memref.subview %[[CACHE]][3, 0] [1, 4] [1, 1]
// CHECK: linalg.copy ins(%[[NEW]] {{.*}}) outs(%[[SLOT]]
// CHECK: return
// CHECK-NOT: memref
func.func @state_in_place(%new: tensor<1x4xf32> {bufferization.writable = false},
                          %cache: tensor<8x4xf32> {autoglm.state = "cache", bufferization.writable = true})
    -> (tensor<1x4xf32>, tensor<8x4xf32> {autoglm.state = 1 : i64}) {
  %updated = tensor.insert_slice %new into %cache[3, 0] [1, 4] [1, 1] : tensor<1x4xf32> into tensor<8x4xf32>
  %read = tensor.extract_slice %updated[0, 0] [1, 4] [1, 1] : tensor<8x4xf32> to tensor<1x4xf32>
  %out = linalg.copy ins(%read : tensor<1x4xf32>) outs(%new : tensor<1x4xf32>) -> tensor<1x4xf32>
  return %out, %updated : tensor<1x4xf32>, tensor<8x4xf32>
}

// -----

// Two loops write one (CSE-merged) tensor.empty; the first result dies
// before the second loop. Each still gets a buffer of its own: which
// buffers share memory is the arena planner's decision.
// CHECK-LABEL: func.func @empty_per_writer
// CHECK: %[[FIRST:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: linalg.generic
// CHECK-SAME: outs(%[[FIRST]] : memref<4xf32>)
// CHECK: %[[SECOND:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4xf32>
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[FIRST]] : memref<4xf32>) outs(%[[SECOND]] : memref<4xf32>)
// CHECK: linalg.generic
// CHECK-SAME: ins(%[[SECOND]]
func.func @empty_per_writer(%arg0: tensor<4xf32> {bufferization.writable = false}) -> tensor<4xf32> {
  %0 = tensor.empty() : tensor<4xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%arg0 : tensor<4xf32>) outs(%0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<4xf32>
  %2 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%1 : tensor<4xf32>) outs(%0 : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %e = math.exp %in : f32
    linalg.yield %e : f32
  } -> tensor<4xf32>
  %3 = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]}
      ins(%2, %arg0 : tensor<4xf32>, tensor<4xf32>) outs(%0 : tensor<4xf32>) {
  ^bb0(%in: f32, %in_1: f32, %out: f32):
    %s = arith.addf %in, %in_1 : f32
    linalg.yield %s : f32
  } -> tensor<4xf32>
  return %3 : tensor<4xf32>
}

// -----

// One zero fill (CSE-merged) is the initial value of two sums. Each sum
// gets its own fill right before it, the first one included, so that the
// kernel-call passes see every product start from zeros.
// CHECK-LABEL: func.func @fill_per_writer
// CHECK-SAME: (%{{.*}}: memref<4x8xf32>, %[[FIRST:.*]]: memref<4xf32> {bufferize.result}, %[[SECOND:.*]]: memref<4xf32> {bufferize.result})
// CHECK-NEXT: arith.constant
// CHECK-NEXT: linalg.fill ins(%{{.*}} : f32) outs(%[[FIRST]] : memref<4xf32>)
// CHECK-NEXT: linalg.generic
// CHECK-SAME: outs(%[[FIRST]] : memref<4xf32>)
// CHECK: math.exp
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%[[SECOND]] : memref<4xf32>)
// CHECK-NEXT: linalg.generic
// CHECK-SAME: outs(%[[SECOND]] : memref<4xf32>)
// CHECK-NOT: linalg.fill
#rows = affine_map<(i, k) -> (i, k)>
#row = affine_map<(i, k) -> (i)>
func.func @fill_per_writer(%x: tensor<4x8xf32> {bufferization.writable = false}) -> (tensor<4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
  %s1 = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %ex = tensor.empty() : tensor<4x8xf32>
  %x2 = linalg.generic {indexing_maps = [affine_map<(i, k) -> (i, k)>, affine_map<(i, k) -> (i, k)>], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<4x8xf32>) outs(%ex : tensor<4x8xf32>) {
  ^bb0(%in: f32, %o: f32):
    %v = math.exp %in : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %s2 = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x2 : tensor<4x8xf32>) outs(%f : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  return %s1, %s2 : tensor<4xf32>, tensor<4xf32>
}
