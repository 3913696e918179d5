// RUN: autoglm-opt %s --split-input-file --verify-diagnostics | FileCheck %s
// Round trip of the reduction and normalization ops, then their verifiers.

// CHECK-LABEL: func.func @round_trip
// CHECK: autoglm.reduce_prod %{{.*}} {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
// CHECK: autoglm.reduce_l1 %{{.*}} {axes = array<i64>, keepdims = false} : (tensor<2x3xi32>) -> tensor<i32>
// CHECK: autoglm.reduce_l2 %{{.*}} {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
// CHECK: autoglm.reduce_sum_square
// CHECK: autoglm.reduce_log_sum
// CHECK: autoglm.reduce_log_sum_exp
// CHECK: autoglm.arg_max %{{.*}} {axis = 1 : i64, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xi64>
// CHECK: autoglm.arg_min %{{.*}} {axis = 0 : i64, select_last_index = true} : (tensor<2x3xf32>) -> tensor<1x3xi64>
// CHECK: autoglm.top_k %{{.*}} {axis = 1 : i64, k = 2 : i64} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
// CHECK: autoglm.cum_sum %{{.*}} {axis = 1 : i64, reverse = true} : tensor<2x3xi32>
// CHECK: autoglm.log_softmax %{{.*}} {axis = 0 : i64} : tensor<2x3xf32>
// CHECK: autoglm.hardmax %{{.*}} {axis = 1 : i64} : tensor<2x3xf32>
// CHECK: autoglm.rms_norm %{{.*}}, %{{.*}} {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
// CHECK: autoglm.group_norm %{{.*}}, %{{.*}}, %{{.*}} {num_groups = 2 : i64} : (tensor<1x4x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x5xf32>
func.func @round_trip(%x: tensor<2x3xf32>, %i: tensor<2x3xi32>, %g: tensor<3xf32>, %y: tensor<1x4x5xf32>, %s: tensor<4xf32>) {
  %0 = autoglm.reduce_prod %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %1 = autoglm.reduce_l1 %i {axes = array<i64>, keepdims = false} : (tensor<2x3xi32>) -> tensor<i32>
  %2 = autoglm.reduce_l2 %x {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<1x3xf32>
  %3 = autoglm.reduce_sum_square %i {axes = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  %4 = autoglm.reduce_log_sum %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %5 = autoglm.reduce_log_sum_exp %x {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %6 = autoglm.arg_max %x {axis = 1 : i64, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xi64>
  %7 = autoglm.arg_min %x {axis = 0 : i64, select_last_index = true} : (tensor<2x3xf32>) -> tensor<1x3xi64>
  %8:2 = autoglm.top_k %x {k = 2 : i64, axis = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x2xf32>, tensor<2x2xi64>)
  %9 = autoglm.cum_sum %i {axis = 1 : i64, reverse = true} : tensor<2x3xi32>
  %10 = autoglm.log_softmax %x {axis = 0 : i64} : tensor<2x3xf32>
  %11 = autoglm.hardmax %x {axis = 1 : i64} : tensor<2x3xf32>
  %12 = autoglm.rms_norm %x, %g {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  %13 = autoglm.group_norm %y, %s, %s {num_groups = 2 : i64} : (tensor<1x4x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x5xf32>
  return
}

// -----

func.func @reduce_l2_integer(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = autoglm.reduce_l2 %x {axes = array<i64: 1>} : (tensor<2x3xi32>) -> tensor<2x1xi32>
  return
}

// -----

func.func @reduce_prod_axes_unsorted(%x: tensor<2x3x4xf32>) {
  // expected-error @+2 {{reduction axes must be sorted and unique}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.reduce_prod %x {axes = array<i64: 2, 0>} : (tensor<2x3x4xf32>) -> tensor<1x3x1xf32>
  return
}

// -----

func.func @arg_max_axis(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{axis 2 is out of range for rank 2}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.arg_max %x {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x1xi64>
  return
}

// -----

func.func @arg_min_result(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<2x1xi64>' are incompatible with return type(s) of operation 'tensor<2xi64>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.arg_min %x {axis = 1 : i64} : (tensor<2x3xf32>) -> tensor<2xi64>
  return
}

// -----

func.func @top_k_too_many(%x: tensor<2x3xf32>) {
  // expected-error @+2 {{k = 4 is out of range for an axis of 3 elements}}
  // expected-error @+1 {{failed to infer returned types}}
  %0:2 = autoglm.top_k %x {k = 4 : i64, axis = 1 : i64} : (tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xi64>)
  return
}

// -----

func.func @cum_sum_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis 2 is out of range for rank 2}}
  %0 = autoglm.cum_sum %x {axis = 2 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @log_softmax_axis(%x: tensor<2x3xf32>) {
  // expected-error @+1 {{axis -1 is out of range for rank 2}}
  %0 = autoglm.log_softmax %x {axis = -1 : i64} : tensor<2x3xf32>
  return
}

// -----

func.func @hardmax_integer(%x: tensor<2x3xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = autoglm.hardmax %x {axis = 1 : i64} : tensor<2x3xi32>
  return
}

// -----

func.func @rms_norm_scale(%x: tensor<2x3xf32>, %g: tensor<2x3xf32>) {
  // expected-error @+1 {{'autoglm.rms_norm' op scale of shape [2,3] does not broadcast to the normalized shape [3]}}
  %0 = autoglm.rms_norm %x, %g {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
  return
}

// -----

func.func @group_norm_groups(%x: tensor<1x4x5xf32>, %s: tensor<4xf32>) {
  // expected-error @+1 {{'autoglm.group_norm' op num_groups 3 does not divide the 4 channels}}
  %0 = autoglm.group_norm %x, %s, %s {num_groups = 3 : i64} : (tensor<1x4x5xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<1x4x5xf32>
  return
}

// -----

func.func @group_norm_params(%x: tensor<1x4x5xf32>, %s: tensor<2xf32>) {
  // expected-error @+1 {{'autoglm.group_norm' op per-channel parameters must have shape [4], got [2]}}
  %0 = autoglm.group_norm %x, %s, %s {num_groups = 2 : i64} : (tensor<1x4x5xf32>, tensor<2xf32>, tensor<2xf32>) -> tensor<1x4x5xf32>
  return
}
