// RUN: autoglm-opt %s --split-input-file --autoglm-kv-cache=capacity=32 --verify-diagnostics | FileCheck %s

// Keys and values appended to the past along the symbolic axis and returned
// become two state tensors of 32 positions and a length. The new positions
// are inserted at the length (clamped, which bounds every buffer), the cache
// is read back up to the new length, and the updated states are returned
// as state results; the past inputs, present outputs and `past` symbol go.
// The appended extent traces back to the input extent `seq` through the
// projection, the head split (`seq * 16 / 16`) and the transpose.
// CHECK-LABEL: func.func @decoder
// CHECK-SAME: (%[[X:.*]]: tensor<1x?x16xf32> {autoglm.dim_symbols = array<i32: -1, 0, -1>, autoglm.name = "x"},
// CHECK-SAME: %[[LEN:.*]]: tensor<1xi64> {autoglm.name = "kv_cache_length", autoglm.state = "length", bufferization.writable = true},
// CHECK-SAME: %[[K:.*]]: tensor<1x2x32x8xf32> {autoglm.name = "past_key", autoglm.state = "cache", bufferization.writable = true},
// CHECK-SAME: %[[V:.*]]: tensor<1x2x32x8xf32> {autoglm.name = "past_value", autoglm.state = "cache", bufferization.writable = true})
// CHECK-SAME: -> (tensor<1x?x16xf32> {autoglm.name = "y"}, tensor<1xi64> {autoglm.state = 1 : i64}, tensor<1x2x32x8xf32> {autoglm.state = 2 : i64}, tensor<1x2x32x8xf32> {autoglm.state = 3 : i64})
// CHECK-SAME: autoglm.kv_cache = {caches = ["past_key", "past_value"], capacity = 32 : i64, step_symbol = 0 : i64}
// CHECK-SAME: autoglm.symbols = [{max = 16 : i64, min = 1 : i64, name = "seq"}]
// CHECK: %[[STORED:.*]] = tensor.extract %[[LEN]]
// CHECK: %[[CAST:.*]] = arith.index_cast %[[STORED]]
// CHECK: %[[MIN:.*]] = arith.minsi %[[CAST]], %c32
// CHECK: %[[AT:.*]] = arith.maxsi %[[MIN]], %c0
// CHECK: %[[NEWK:.*]] = tensor.insert_slice %{{.*}} into %[[K]][0, 0, %[[AT]], 0] [1, 2, %[[N:.*]], 8] [1, 1, 1, 1]
// CHECK: %[[GROWN:.*]] = arith.addi %[[AT]], %[[N]]
// CHECK: %[[TOTAL:.*]] = arith.minsi %[[GROWN]], %c32
// CHECK: %[[KEYS:.*]] = tensor.extract_slice %[[NEWK]][0, 0, 0, 0] [1, 2, %[[TOTAL]], 8]
// CHECK: %[[NEWV:.*]] = tensor.insert_slice %{{.*}} into %[[V]][0, 0, %[[AT]], 0]
// CHECK: %[[VALUES:.*]] = tensor.extract_slice %[[NEWV]]
// CHECK: autoglm.transpose %[[KEYS]]
// CHECK: autoglm.matmul %{{.*}}, %[[VALUES]]
// CHECK: %[[NEWLEN:.*]] = arith.index_cast %[[GROWN]] : index to i64
// CHECK: %[[LENOUT:.*]] = tensor.insert %[[NEWLEN]] into %[[LEN]]
// CHECK: return %{{.*}}, %[[LENOUT]], %[[NEWK]], %[[NEWV]]
func.func @decoder(%x: tensor<1x?x16xf32> {autoglm.dim_symbols = array<i32: -1, 0, -1>, autoglm.name = "x"},
                   %pk: tensor<1x2x?x8xf32> {autoglm.dim_symbols = array<i32: -1, -1, 1, -1>, autoglm.name = "past_key"},
                   %pv: tensor<1x2x?x8xf32> {autoglm.dim_symbols = array<i32: -1, -1, 1, -1>, autoglm.name = "past_value"})
    -> (tensor<1x?x16xf32> {autoglm.name = "y"}, tensor<1x2x?x8xf32> {autoglm.name = "present_key"}, tensor<1x2x?x8xf32> {autoglm.name = "present_value"})
    attributes {autoglm.symbols = [{max = 16 : i64, min = 1 : i64, name = "seq"}, {max = 64 : i64, min = 1 : i64, name = "past"}]} {
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %w = autoglm.constant dense<1.0> : tensor<16x16xf32>
  %p = autoglm.matmul %x, %w : (tensor<1x?x16xf32>, tensor<16x16xf32>) -> tensor<1x?x16xf32>
  %dim = tensor.dim %x, %c1 : tensor<1x?x16xf32>
  %a = arith.muli %dim, %c16 : index
  %seq = arith.divsi %a, %c16 : index
  %r = autoglm.reshape %p[%seq] : (tensor<1x?x16xf32>) -> tensor<1x?x2x8xf32>
  %t = autoglm.transpose %r {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x8xf32>) -> tensor<1x2x?x8xf32>
  %k = autoglm.concat %pk, %t {axis = 2 : i64} : (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
  %v = autoglm.concat %pv, %t {axis = 2 : i64} : (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
  %kT = autoglm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x?x8xf32>) -> tensor<1x2x8x?xf32>
  %s = autoglm.matmul %t, %kT : (tensor<1x2x?x8xf32>, tensor<1x2x8x?xf32>) -> tensor<1x2x?x?xf32>
  %o = autoglm.matmul %s, %v : (tensor<1x2x?x?xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
  %ot = autoglm.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x?x8xf32>) -> tensor<1x?x2x8xf32>
  %y = autoglm.reshape %ot[%seq] : (tensor<1x?x2x8xf32>) -> tensor<1x?x16xf32>
  return %y, %k, %v : tensor<1x?x16xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>
}

// -----

// A single-token decoder appends a constant number of positions; a shape
// computation on the past reads the length instead.
// CHECK-LABEL: func.func @one_token
// CHECK-SAME: autoglm.kv_cache = {caches = ["past"], capacity = 32 : i64, step = 1 : i64}
// CHECK-SAME: autoglm.symbols = []
// CHECK: %[[AT:.*]] = arith.maxsi
// CHECK: arith.index_cast %[[AT]] : index to i64
func.func @one_token(%new: tensor<1x1x4xf32> {autoglm.name = "new"},
                     %past: tensor<1x?x4xf32> {autoglm.dim_symbols = array<i32: -1, 0, -1>, autoglm.name = "past"})
    -> (tensor<1x?x4xf32> {autoglm.name = "present"}, tensor<1xi64> {autoglm.name = "past_length"})
    attributes {autoglm.symbols = [{max = 31 : i64, min = 1 : i64, name = "past"}]} {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %past, %c1 : tensor<1x?x4xf32>
  %i = arith.index_cast %n : index to i64
  %len = tensor.from_elements %i : tensor<1xi64>
  %all = autoglm.concat %past, %new {axis = 1 : i64} : (tensor<1x?x4xf32>, tensor<1x1x4xf32>) -> tensor<1x?x4xf32>
  return %all, %len : tensor<1x?x4xf32>, tensor<1xi64>
}

// -----

// expected-error @below {{found no KV cache in this model}}
func.func @no_cache(%x: tensor<1x?x4xf32> {autoglm.dim_symbols = array<i32: -1, 0, -1>, autoglm.name = "x"})
    -> (tensor<1x?x4xf32> {autoglm.name = "y"})
    attributes {autoglm.symbols = [{max = 8 : i64, min = 1 : i64, name = "seq"}]} {
  return %x : tensor<1x?x4xf32>
}

// -----

// expected-error @below {{has an extent of the cache length 'past'}}
func.func @mask_of_past_length(%new: tensor<1x1x4xf32> {autoglm.name = "new"},
                               %past: tensor<1x?x4xf32> {autoglm.dim_symbols = array<i32: -1, 0, -1>, autoglm.name = "past"},
                               %mask: tensor<1x?xf32> {autoglm.dim_symbols = array<i32: -1, 0>, autoglm.name = "mask"})
    -> (tensor<1x?x4xf32> {autoglm.name = "present"}, tensor<1x?xf32> {autoglm.name = "m"})
    attributes {autoglm.symbols = [{max = 31 : i64, min = 1 : i64, name = "past"}]} {
  %all = autoglm.concat %past, %new {axis = 1 : i64} : (tensor<1x?x4xf32>, tensor<1x1x4xf32>) -> tensor<1x?x4xf32>
  return %all, %mask : tensor<1x?x4xf32>, tensor<1x?xf32>
}

// -----

// expected-error @below {{a run appends up to 40 positions, more than the 32 the cache holds}}
func.func @prompt_too_long(%new: tensor<1x40x4xf32> {autoglm.name = "new"},
                           %past: tensor<1x?x4xf32> {autoglm.dim_symbols = array<i32: -1, 0, -1>, autoglm.name = "past"})
    -> (tensor<1x?x4xf32> {autoglm.name = "present"})
    attributes {autoglm.symbols = [{max = 31 : i64, min = 1 : i64, name = "past"}]} {
  %all = autoglm.concat %past, %new {axis = 1 : i64} : (tensor<1x?x4xf32>, tensor<1x40x4xf32>) -> tensor<1x?x4xf32>
  return %all : tensor<1x?x4xf32>
}
