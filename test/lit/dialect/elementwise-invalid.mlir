// RUN: autoglm-opt %s --split-input-file --verify-diagnostics

// Type and shape errors of the trigonometric, bitwise, shift, mod and
// comparison ops.

func.func @sin_of_integers(%x: tensor<4xi32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = autoglm.sin %x : tensor<4xi32>
  return
}

// -----

func.func @and_of_floats(%x: tensor<4xf32>) {
  // expected-error @+1 {{operand #0 must be ranked tensor of integer values}}
  %0 = autoglm.and %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @shift_element_types(%x: tensor<4xui8>, %y: tensor<4xi8>) {
  // expected-error @+1 {{'autoglm.shift_left' op operands must have the same element type, got 'ui8' and 'i8'}}
  %0 = autoglm.shift_left %x, %y : (tensor<4xui8>, tensor<4xi8>) -> tensor<4xui8>
  return
}

// -----

func.func @mod_broadcast(%x: tensor<4xi32>, %y: tensor<3xi32>) {
  // expected-error @+2 {{operand shapes [4] and [3] are not broadcast-compatible}}
  // expected-error @+1 {{'autoglm.mod' op failed to infer returned types}}
  %0 = autoglm.mod %x, %y : (tensor<4xi32>, tensor<3xi32>) -> tensor<4xi32>
  return
}

// -----

func.func @less_equal_result(%x: tensor<4xf32>, %y: tensor<1xf32>) {
  // expected-error @+2 {{inferred type(s) 'tensor<4xi1>' are incompatible with return type(s) of operation 'tensor<1xi1>'}}
  // expected-error @+1 {{failed to infer returned types}}
  %0 = autoglm.less_equal %x, %y : (tensor<4xf32>, tensor<1xf32>) -> tensor<1xi1>
  return
}
