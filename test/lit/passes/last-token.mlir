// RUN: autoglm-opt %s --split-input-file --autoglm-last-token="outputs=logits" --canonicalize --cse | FileCheck %s

// The last layer of a decoder over symbolic tokens: the residual stream
// feeds the keys (every position) and, through a norm, an MLP and the LM
// head, the logits. Only the last position of the logits is kept, and the
// slice moves up to the residual stream: the norm, both products and the
// residual add run on one row; the keys still see every position.
// CHECK-LABEL: func.func @decoder_tail
// CHECK-SAME: -> (tensor<1x1x16xf32> {autoglm.name = "logits"}, tensor<1x?x8xf32> {autoglm.name = "keys"})
// CHECK: %[[KEYS:.*]] = autoglm.matmul %arg0, %arg3 : (tensor<1x?x8xf32>, tensor<8x8xf32>) -> tensor<1x?x8xf32>
// CHECK: %[[N:.*]] = tensor.dim %arg0, %c1
// CHECK: %[[LAST:.*]] = arith.subi %[[N]], %c1
// CHECK: %[[ROW:.*]] = tensor.extract_slice %arg0[0, %[[LAST]], 0] [1, 1, 8] [1, 1, 1] : tensor<1x?x8xf32> to tensor<1x1x8xf32>
// CHECK: %[[NORM:.*]] = autoglm.rms_norm %[[ROW]], %arg1 {axis = 2 : i64} : (tensor<1x1x8xf32>, tensor<8xf32>) -> tensor<1x1x8xf32>
// CHECK: %[[UP:.*]] = autoglm.matmul %[[NORM]], %arg2 : (tensor<1x1x8xf32>, tensor<8x8xf32>) -> tensor<1x1x8xf32>
// CHECK: %[[ACT:.*]] = autoglm.sigmoid %[[UP]] : tensor<1x1x8xf32>
// CHECK: %[[RES:.*]] = autoglm.add %[[ROW]], %[[ACT]] : (tensor<1x1x8xf32>, tensor<1x1x8xf32>) -> tensor<1x1x8xf32>
// CHECK: %[[LOGITS:.*]] = autoglm.matmul %[[RES]], %arg4 : (tensor<1x1x8xf32>, tensor<8x16xf32>) -> tensor<1x1x16xf32>
// CHECK: return %[[LOGITS]], %[[KEYS]]
func.func @decoder_tail(%h: tensor<1x?x8xf32>, %gain: tensor<8xf32>, %w_up: tensor<8x8xf32>, %w_k: tensor<8x8xf32>, %head: tensor<8x16xf32>) -> (tensor<1x?x16xf32> {autoglm.name = "logits"}, tensor<1x?x8xf32> {autoglm.name = "keys"}) {
  %keys = autoglm.matmul %h, %w_k : (tensor<1x?x8xf32>, tensor<8x8xf32>) -> tensor<1x?x8xf32>
  %n = autoglm.rms_norm %h, %gain {axis = 2 : i64} : (tensor<1x?x8xf32>, tensor<8xf32>) -> tensor<1x?x8xf32>
  %up = autoglm.matmul %n, %w_up : (tensor<1x?x8xf32>, tensor<8x8xf32>) -> tensor<1x?x8xf32>
  %act = autoglm.sigmoid %up : tensor<1x?x8xf32>
  %res = autoglm.add %h, %act : (tensor<1x?x8xf32>, tensor<1x?x8xf32>) -> tensor<1x?x8xf32>
  %logits = autoglm.matmul %res, %head : (tensor<1x?x8xf32>, tensor<8x16xf32>) -> tensor<1x?x16xf32>
  return %logits, %keys : tensor<1x?x16xf32>, tensor<1x?x8xf32>
}

// -----

// Attention: the last query row against every key; the mask's rows follow
// the queries. The heads are merged back by a transpose and a reshape that
// keeps the token axis, through which the slice moves too.
// CHECK-LABEL: func.func @attention_rows
// CHECK: %[[Q:.*]] = tensor.extract_slice %arg0[0, 0, 3, 0] [1, 2, 1, 4] [1, 1, 1, 1] : tensor<1x2x4x4xf32> to tensor<1x2x1x4xf32>
// CHECK: %[[M:.*]] = tensor.extract_slice %arg3[3, 0] [1, 6] [1, 1] : tensor<4x6xf32> to tensor<1x6xf32>
// CHECK: %[[A:.*]] = autoglm.attention %[[Q]], %arg1, %arg2, %[[M]] {scale = 5.000000e-01 : f32} : (tensor<1x2x1x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<1x6xf32>) -> tensor<1x2x1x4xf32>
// CHECK: %[[T:.*]] = autoglm.transpose %[[A]] {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x1x4xf32>) -> tensor<1x1x2x4xf32>
// CHECK: %[[R:.*]] = autoglm.reshape %[[T]] : (tensor<1x1x2x4xf32>) -> tensor<1x1x8xf32>
// CHECK: return %[[R]]
func.func @attention_rows(%q: tensor<1x2x4x4xf32>, %k: tensor<1x2x6x4xf32>, %v: tensor<1x2x6x4xf32>, %mask: tensor<4x6xf32>) -> (tensor<1x4x8xf32> {autoglm.name = "logits"}) {
  %a = autoglm.attention %q, %k, %v, %mask {scale = 0.5 : f32} : (tensor<1x2x4x4xf32>, tensor<1x2x6x4xf32>, tensor<1x2x6x4xf32>, tensor<4x6xf32>) -> tensor<1x2x4x4xf32>
  %t = autoglm.transpose %a {perm = array<i64: 0, 2, 1, 3>} : (tensor<1x2x4x4xf32>) -> tensor<1x4x2x4xf32>
  %r = autoglm.reshape %t : (tensor<1x4x2x4xf32>) -> tensor<1x4x8xf32>
  return %r : tensor<1x4x8xf32>
}

// -----

// A softmax over the tokens mixes them: the slice stays after it.
// CHECK-LABEL: func.func @softmax_over_tokens
// CHECK: %[[S:.*]] = autoglm.softmax %arg0 {axis = 1 : i64} : tensor<2x5x3xf32>
// CHECK: %[[L:.*]] = tensor.extract_slice %[[S]][0, 4, 0] [2, 1, 3] [1, 1, 1]
// CHECK: return %[[L]]
func.func @softmax_over_tokens(%x: tensor<2x5x3xf32>) -> (tensor<2x5x3xf32> {autoglm.name = "logits"}) {
  %s = autoglm.softmax %x {axis = 1 : i64} : tensor<2x5x3xf32>
  return %s : tensor<2x5x3xf32>
}

// -----

// Where positions do not map one to one, the slice stays: a reshape that
// regroups the token axis itself ([?, 4] to [?, 2] halves every row), and
// a product with a vector (its rows are not the result's second-to-last
// axis).
// CHECK-LABEL: func.func @not_row_wise
// CHECK: %[[R:.*]] = autoglm.reshape %arg0
// CHECK: %[[P:.*]] = autoglm.matmul %arg1, %arg2 : (tensor<3x?x4xf32>, tensor<4xf32>) -> tensor<3x?xf32>
// CHECK: tensor.extract_slice %[[R]]
// CHECK: tensor.extract_slice %[[P]]
func.func @not_row_wise(%x: tensor<?x4xf32>, %a: tensor<3x?x4xf32>, %v: tensor<4xf32>, %n: index) -> (tensor<?x2xf32> {autoglm.name = "logits"}, tensor<3x?xf32> {autoglm.name = "logits"}) {
  %r = autoglm.reshape %x[%n] : (tensor<?x4xf32>) -> tensor<?x2xf32>
  %p = autoglm.matmul %a, %v : (tensor<3x?x4xf32>, tensor<4xf32>) -> tensor<3x?xf32>
  return %r, %p : tensor<?x2xf32>, tensor<3x?xf32>
}
