// RUN: autoglm-opt %s --autoglm-quantize-products="ranges=0.0,1.0 keep=lm_head" --verify-diagnostics

// expected-error@+1 {{--keep-fp32: the model has no matrix product or convolution from a node named 'lm_head'}}
func.func @main(%x: tensor<3x2xf32>) -> (tensor<3x2xf32> {autoglm.name = "y"}) {
  %w = autoglm.constant dense<[[1.0, -2.0], [0.5, 4.0]]> : tensor<2x2xf32>
  %y = autoglm.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}
