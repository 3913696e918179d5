// RUN: autoglm-opt %s --split-input-file --autoglm-calibration-outputs="whole=true" --verify-diagnostics

module {
  func.func @main(%x: tensor<?x2xf32>) -> (tensor<?x2xf32> {autoglm.name = "y"}) {
    %w = autoglm.constant dense<[[1.0, -2.0], [0.5, 4.0]]> : tensor<2x2xf32>
    // expected-error@+1 {{calibration of whole activations (percentile, entropy) needs static shapes: pin the symbolic extents with --dim}}
    %y = autoglm.matmul %x, %w : (tensor<?x2xf32>, tensor<2x2xf32>) -> tensor<?x2xf32>
    return %y : tensor<?x2xf32>
  }
}
