// RUN: autoglm-opt %s --split-input-file --autoglm-last-token="outputs=logits" --verify-diagnostics

// expected-error@+1 {{--last-token: the model has no output 'logits'}}
module {
  func.func @main(%x: tensor<2x3xf32>) -> (tensor<2x3xf32> {autoglm.name = "scores"}) {
    return %x : tensor<2x3xf32>
  }
}

// -----

// expected-error@+1 {{--last-token: output 'logits' has no token axis (it needs rank 2 or more, the tokens second to last)}}
func.func @main(%x: tensor<3xf32>) -> (tensor<3xf32> {autoglm.name = "logits"}) {
  return %x : tensor<3xf32>
}
