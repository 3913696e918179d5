// RUN: autoglm-opt %s --split-input-file --autoglm-quantize-products="ranges=0.0,1.0,0.0" --verify-diagnostics

// expected-error@+1 {{autoglm-quantize-products: 1 products' operands need 2 range values, got 3}}
module {
  func.func @main(%x: tensor<3x2xf32>) -> (tensor<3x2xf32> {autoglm.name = "y"}) {
    %w = autoglm.constant dense<[[1.0, -2.0], [0.5, 4.0]]> : tensor<2x2xf32>
    %y = autoglm.matmul %x, %w : (tensor<3x2xf32>, tensor<2x2xf32>) -> tensor<3x2xf32>
    return %y : tensor<3x2xf32>
  }
}

