// RUN: autoglm-opt %s --split-input-file --verify-diagnostics

// Shape errors of the gather, scatter, one-hot, einsum and pad ops.

func.func @gather_elements_rank(%x: tensor<3x4xf32>, %i: tensor<3xi64>) {
  // expected-error @+2 {{gather_elements indices must have the rank of the data (2), got 1}}
  // expected-error @+1 {{'autoglm.gather_elements' op failed to infer returned types}}
  %0 = autoglm.gather_elements %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3xi64>) -> tensor<3xf32>
  return
}

// -----

func.func @gather_elements_too_wide(%x: tensor<3x4xf32>, %i: tensor<3x5xi64>) {
  // expected-error @+2 {{gather_elements indices [3,5] exceed the data [3,4] outside axis 0}}
  // expected-error @+1 {{'autoglm.gather_elements' op failed to infer returned types}}
  %0 = autoglm.gather_elements %x, %i {axis = 0 : i64} : (tensor<3x4xf32>, tensor<3x5xi64>) -> tensor<3x5xf32>
  return
}

// -----

func.func @gather_nd_long_tuple(%x: tensor<3x4xf32>, %i: tensor<2x3xi64>) {
  // expected-error @+2 {{gather_nd index tuples of length 3 do not fit data of rank 2 after 0 batch dimensions}}
  // expected-error @+1 {{'autoglm.gather_nd' op failed to infer returned types}}
  %0 = autoglm.gather_nd %x, %i : (tensor<3x4xf32>, tensor<2x3xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @gather_nd_batch(%x: tensor<3x4xf32>, %i: tensor<2x1xi64>) {
  // expected-error @+2 {{gather_nd batch dimensions of data [3,4] and indices [2,1] differ}}
  // expected-error @+1 {{'autoglm.gather_nd' op failed to infer returned types}}
  %0 = autoglm.gather_nd %x, %i {batch_dims = 1 : i64} : (tensor<3x4xf32>, tensor<2x1xi64>) -> tensor<2xf32>
  return
}

// -----

func.func @scatter_elements_shapes(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x3xf32>) {
  // expected-error @+1 {{'autoglm.scatter_elements' op indices [2,4] and updates [2,3] must have the same shape}}
  %0 = autoglm.scatter_elements %x, %i, %u {axis = 0 : i64} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x3xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @scatter_elements_reduction(%x: tensor<3x4xf32>, %i: tensor<2x4xi64>, %u: tensor<2x4xf32>) {
  // expected-error @+1 {{op attribute 'reduction' failed to satisfy constraint: string attribute one of none, add, mul, max, min}}
  %0 = autoglm.scatter_elements %x, %i, %u {axis = 0 : i64, reduction = "sub"} : (tensor<3x4xf32>, tensor<2x4xi64>, tensor<2x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @scatter_nd_updates(%x: tensor<4x3xf32>, %i: tensor<2x1xi64>, %u: tensor<2xf32>) {
  // expected-error @+1 {{'autoglm.scatter_nd' op updates must have shape [2,3], got [2]}}
  %0 = autoglm.scatter_nd %x, %i, %u : (tensor<4x3xf32>, tensor<2x1xi64>, tensor<2xf32>) -> tensor<4x3xf32>
  return
}

// -----

func.func @one_hot_values(%i: tensor<4xi64>, %v: tensor<3xf32>) {
  // expected-error @+2 {{one_hot values must be the pair [off, on], got shape [3]}}
  // expected-error @+1 {{'autoglm.one_hot' op failed to infer returned types}}
  %0 = autoglm.one_hot %i, %v {depth = 5 : i64, axis = 1 : i64} : (tensor<4xi64>, tensor<3xf32>) -> tensor<4x5xf32>
  return
}

// -----

func.func @einsum_extents(%a: tensor<3x4xf32>, %b: tensor<5x6xf32>) {
  // expected-error @+2 {{einsum letter 'j' has extents 4 and 5}}
  // expected-error @+1 {{'autoglm.einsum' op failed to infer returned types}}
  %0 = autoglm.einsum %a, %b {equation = "ij,jk->ik"} : (tensor<3x4xf32>, tensor<5x6xf32>) -> tensor<3x6xf32>
  return
}

// -----

func.func @einsum_implicit(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{einsum equation 'ij' must have the explicit form 'ab,bc->ac'}}
  // expected-error @+1 {{'autoglm.einsum' op failed to infer returned types}}
  %0 = autoglm.einsum %a {equation = "ij"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @einsum_unknown_result_letter(%a: tensor<3x4xf32>) {
  // expected-error @+2 {{einsum result term 'ik' has a letter that no operand has}}
  // expected-error @+1 {{'autoglm.einsum' op failed to infer returned types}}
  %0 = autoglm.einsum %a {equation = "ij->ik"} : (tensor<3x4xf32>) -> tensor<3x4xf32>
  return
}

// -----

func.func @pad_mode(%x: tensor<3x4xf32>) {
  // expected-error @+1 {{op attribute 'mode' failed to satisfy constraint: string attribute one of constant, edge, reflect, wrap}}
  %0 = autoglm.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "symmetric"} : (tensor<3x4xf32>) -> tensor<3x6xf32>
  return
}

// -----

func.func @pad_edge_of_nothing(%x: tensor<3x0xf32>) {
  // expected-error @+1 {{'autoglm.pad' op mode 'edge' cannot pad axis 1, which has no elements}}
  %0 = autoglm.pad %x {pads = array<i64: 0, 1, 0, 1>, mode = "edge"} : (tensor<3x0xf32>) -> tensor<3x2xf32>
  return
}

// -----

func.func @range_static(%n: index) {
  // expected-error @+1 {{'autoglm.range' op result must be a 1-D tensor of symbolic extent}}
  %0 = autoglm.range %n {start = 0 : i64, delta = 1 : i64} : tensor<4xi64>
  return
}

// -----

func.func @range_float(%n: index) {
  // expected-error @+1 {{'autoglm.range' op result elements must be integers}}
  %0 = autoglm.range %n {start = 0.0 : f32, delta = 1.0 : f32} : tensor<?xf32>
  return
}

// -----

func.func @range_start_type(%n: index) {
  // expected-error @+1 {{'autoglm.range' op start and delta must have the result's element type 'i64'}}
  %0 = autoglm.range %n {start = 0 : i32, delta = 1 : i64} : tensor<?xi64>
  return
}

// -----

func.func @range_zero_delta(%n: index) {
  // expected-error @+1 {{'autoglm.range' op delta must be a non-zero number}}
  %0 = autoglm.range %n {start = 0 : i64, delta = 0 : i64} : tensor<?xi64>
  return
}
