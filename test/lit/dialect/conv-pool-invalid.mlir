// RUN: autoglm-opt %s --split-input-file --verify-diagnostics

// Shape and attribute errors of conv_transpose, lp_pool,
// max_pool_with_indices and resize.

func.func @conv_transpose_channels(%x: tensor<1x3x4x4xf32>, %w: tensor<2x2x3x3xf32>) {
  // expected-error @+2 {{conv_transpose channels do not match: input has 3, filter expects 2 in 1 groups}}
  // expected-error @+1 {{'autoglm.conv_transpose' op failed to infer returned types}}
  %0 = autoglm.conv_transpose %x, %w {strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>, output_padding = array<i64: 0, 0>}
      : (tensor<1x3x4x4xf32>, tensor<2x2x3x3xf32>) -> tensor<1x2x6x6xf32>
  return
}

// -----

func.func @conv_transpose_no_output(%x: tensor<1x1x2xf32>, %w: tensor<1x1x2xf32>) {
  // expected-error @+2 {{padding leaves no output along spatial axis 0}}
  // expected-error @+1 {{'autoglm.conv_transpose' op failed to infer returned types}}
  %0 = autoglm.conv_transpose %x, %w {strides = array<i64: 1>, pads = array<i64: 2, 1>, dilations = array<i64: 1>, output_padding = array<i64: 0>}
      : (tensor<1x1x2xf32>, tensor<1x1x2xf32>) -> tensor<1x1x1xf32>
  return
}

// -----

func.func @conv_transpose_bias(%x: tensor<1x2x4xf32>, %w: tensor<2x3x3xf32>, %b: tensor<2xf32>) {
  // expected-error @+1 {{'autoglm.conv_transpose' op bias must have one entry per output channel}}
  %0 = autoglm.conv_transpose %x, %w, %b {strides = array<i64: 1>, pads = array<i64: 0, 0>, dilations = array<i64: 1>, output_padding = array<i64: 0>}
      : (tensor<1x2x4xf32>, tensor<2x3x3xf32>, tensor<2xf32>) -> tensor<1x3x6xf32>
  return
}

// -----

func.func @lp_pool_p(%x: tensor<1x1x4x4xf32>) {
  // expected-error @+1 {{'autoglm.lp_pool' op p must be positive, got 0}}
  %0 = autoglm.lp_pool %x {p = 0 : i64, kernel_shape = array<i64: 2, 2>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<1x1x4x4xf32>) -> tensor<1x1x3x3xf32>
  return
}

// -----

func.func @max_pool_with_indices_window(%x: tensor<1x1x2x2xf32>) {
  // expected-error @+2 {{window of extent 3 is larger than the padded input 2}}
  // expected-error @+1 {{'autoglm.max_pool_with_indices' op failed to infer returned types}}
  %0, %1 = autoglm.max_pool_with_indices %x {kernel_shape = array<i64: 3, 3>, strides = array<i64: 1, 1>, pads = array<i64: 0, 0, 0, 0>, dilations = array<i64: 1, 1>}
      : (tensor<1x1x2x2xf32>) -> (tensor<1x1x1x1xf32>, tensor<1x1x1x1xi64>)
  return
}

// -----

func.func @resize_sizes(%x: tensor<1x4xf32>) {
  // expected-error @+2 {{resize needs one size per axis, got 1 for rank 2}}
  // expected-error @+1 {{'autoglm.resize' op failed to infer returned types}}
  %0 = autoglm.resize %x {scales = array<f64: 1.0, 2.0>, sizes = array<i64: 8>} : (tensor<1x4xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @resize_mode(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{'autoglm.resize' op unknown mode 'bicubic'}}
  %0 = autoglm.resize %x {mode = "bicubic", scales = array<f64: 1.0, 2.0>, sizes = array<i64: 1, 8>} : (tensor<1x4xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @resize_crop_without_roi(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{'autoglm.resize' op tf_crop_and_resize needs a roi}}
  %0 = autoglm.resize %x {coordinate_transformation_mode = "tf_crop_and_resize", scales = array<f64: 1.0, 2.0>, sizes = array<i64: 1, 8>} : (tensor<1x4xf32>) -> tensor<1x8xf32>
  return
}

// -----

func.func @resize_scales(%x: tensor<1x4xf32>) {
  // expected-error @+1 {{'autoglm.resize' op scales must be positive}}
  %0 = autoglm.resize %x {scales = array<f64: 1.0, 0.0>, sizes = array<i64: 1, 8>} : (tensor<1x4xf32>) -> tensor<1x8xf32>
  return
}
