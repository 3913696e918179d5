// RUN: autoglm-opt %s --autoglm-kv-cache="capacity=32 length-in-symbols=true" | FileCheck %s

// For a GPU, whose arena host code cannot read, the length is no state: its
// argument is read from the symbol values, in the slot after the symbols
// left (`seq` only: slot 1), and the model does not write it back; the
// caches stay state. `autoglm.kv_cache` says where the length is.
// CHECK-LABEL: func.func @decoder
// CHECK-SAME: %[[LEN:[^:]*]]: tensor<1xi64> {autoglm.name = "kv_cache_length", autoglm.symbol_slot = 1 : i64},
// CHECK-SAME: %[[K:[^:]*]]: tensor<1x2x32x8xf32> {autoglm.name = "past_key", autoglm.state = "cache", bufferization.writable = true})
// CHECK-SAME: -> (tensor<1x?x16xf32> {autoglm.name = "y"}, tensor<1x2x32x8xf32> {autoglm.state = 2 : i64})
// CHECK-SAME: autoglm.kv_cache = {caches = ["past_key"], capacity = 32 : i64, length_slot = 1 : i64, step_symbol = 0 : i64}
// CHECK-SAME: autoglm.symbols = [{max = 16 : i64, min = 1 : i64, name = "seq"}]
// CHECK: %[[STORED:.*]] = tensor.extract %[[LEN]]
// CHECK: %[[CAST:.*]] = arith.index_cast %[[STORED]]
// CHECK: %[[MIN:.*]] = arith.minsi %[[CAST]], %c32
// CHECK: %[[AT:.*]] = arith.maxsi %[[MIN]], %c0
// CHECK: %[[NEWK:.*]] = tensor.insert_slice %{{.*}} into %[[K]][0, 0, %[[AT]], 0]
// CHECK-NOT: tensor.insert {{.*}} into %[[LEN]]
// CHECK: return %{{.*}}, %[[NEWK]] :
func.func @decoder(%x: tensor<1x?x16xf32> {autoglm.dim_symbols = array<i32: -1, 0, -1>, autoglm.name = "x"},
                   %pk: tensor<1x2x?x8xf32> {autoglm.dim_symbols = array<i32: -1, -1, 1, -1>, autoglm.name = "past_key"})
    -> (tensor<1x?x16xf32> {autoglm.name = "y"}, tensor<1x2x?x8xf32> {autoglm.name = "present_key"})
    attributes {autoglm.symbols = [{max = 16 : i64, min = 1 : i64, name = "seq"}, {max = 64 : i64, min = 1 : i64, name = "past"}]} {
  %c1 = arith.constant 1 : index
  %dim = tensor.dim %x, %c1 : tensor<1x?x16xf32>
  %r = autoglm.reshape %x[%dim] : (tensor<1x?x16xf32>) -> tensor<1x?x2x8xf32>
  %t = autoglm.transpose %r {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x?x2x8xf32>) -> tensor<1x2x?x8xf32>
  %k = autoglm.concat %pk, %t {axis = 2 : i64} : (tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
  %kT = autoglm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x?x8xf32>) -> tensor<1x2x8x?xf32>
  %s = autoglm.matmul %t, %kT : (tensor<1x2x?x8xf32>, tensor<1x2x8x?xf32>) -> tensor<1x2x?x?xf32>
  %o = autoglm.matmul %s, %k : (tensor<1x2x?x?xf32>, tensor<1x2x?x8xf32>) -> tensor<1x2x?x8xf32>
  %ot = autoglm.transpose %o {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x?x8xf32>) -> tensor<1x?x2x8xf32>
  %y = autoglm.reshape %ot[%dim] : (tensor<1x?x2x8xf32>) -> tensor<1x?x16xf32>
  return %y, %k : tensor<1x?x16xf32>, tensor<1x2x?x8xf32>
}
