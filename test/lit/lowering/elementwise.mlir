// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// Elementwise ops become one parallel linalg.generic whose indexing maps
// implement numpy broadcasting; the body holds the scalar arithmetic.

// CHECK-LABEL: func.func @add_broadcast
// CHECK-SAME: (%[[A:.*]]: tensor<4x8xf32> {bufferization.writable = false}, %[[B:.*]]: tensor<8xf32> {bufferization.writable = false}) -> tensor<4x8xf32>
// CHECK: %[[INIT:.*]] = tensor.empty() : tensor<4x8xf32>
// CHECK: %[[R:.*]] = linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK-SAME: ins(%[[A]], %[[B]] : tensor<4x8xf32>, tensor<8xf32>) outs(%[[INIT]] : tensor<4x8xf32>)
// CHECK-NEXT: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
// CHECK-NEXT: linalg.yield %[[S]] : f32
// CHECK: return %[[R]] : tensor<4x8xf32>
func.func @add_broadcast(%a: tensor<4x8xf32>, %b: tensor<8xf32>) -> tensor<4x8xf32> {
  %0 = autoglm.add %a, %b : (tensor<4x8xf32>, tensor<8xf32>) -> tensor<4x8xf32>
  return %0 : tensor<4x8xf32>
}

// -----

// Extent-1 axes broadcast through a constant 0 index; rank-0 operands have an
// empty map.
// CHECK-LABEL: func.func @broadcast_maps
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, 0, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK: arith.mulf
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> ()>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>]
// CHECK: arith.subf
func.func @broadcast_maps(%a: tensor<1x3x4xf32>, %b: tensor<2x1x4xf32>, %s: tensor<f32>) -> tensor<2x3x4xf32> {
  %0 = autoglm.mul %a, %b : (tensor<1x3x4xf32>, tensor<2x1x4xf32>) -> tensor<2x3x4xf32>
  %1 = autoglm.sub %0, %s : (tensor<2x3x4xf32>, tensor<f32>) -> tensor<2x3x4xf32>
  return %1 : tensor<2x3x4xf32>
}

// -----

// Integer arithmetic uses the integer ops.
// CHECK-LABEL: func.func @int_arith
// CHECK: ^bb0(%[[X:.*]]: i64, %[[Y:.*]]: i64, %{{.*}}: i64):
// CHECK-NEXT: arith.addi %[[X]], %[[Y]] : i64
// CHECK: arith.subi
// CHECK: arith.muli
// CHECK: arith.divsi
// CHECK: arith.minsi
// CHECK: arith.maxsi
func.func @int_arith(%a: tensor<4xi64>, %b: tensor<4xi64>) -> tensor<4xi64> {
  %0 = autoglm.add %a, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %1 = autoglm.sub %0, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %2 = autoglm.mul %1, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %3 = autoglm.div %2, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %4 = autoglm.min %3, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  %5 = autoglm.max %4, %b : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xi64>
  return %5 : tensor<4xi64>
}

// -----

// CHECK-LABEL: func.func @float_arith
// CHECK: arith.divf
// CHECK: arith.minimumf
// CHECK: arith.maximumf
func.func @float_arith(%a: tensor<4xf32>, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = autoglm.div %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = autoglm.min %0, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %2 = autoglm.max %1, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// Unsigned tensors become signless at the linalg level (the function
// signature too); the arithmetic stays unsigned.
// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: (%{{.*}}: tensor<4xi8> {bufferization.writable = false}, %{{.*}}: tensor<1xi8> {bufferization.writable = false}) -> (tensor<4xi8>, tensor<4xi8>, tensor<4xi8>, tensor<4xi1>, tensor<4xi1>)
// CHECK-NOT: ui8
// CHECK: arith.divui %{{.*}}, %{{.*}} : i8
// CHECK: arith.minui %{{.*}}, %{{.*}} : i8
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i8
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i8
// CHECK: arith.cmpi ugt, %{{.*}}, %{{.*}} : i8
// CHECK-NOT: ui8
func.func @unsigned(%a: tensor<4xui8>, %b: tensor<1xui8>)
    -> (tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xi1>) {
  %0 = autoglm.div %a, %b : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
  %1 = autoglm.min %a, %b : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
  %2 = autoglm.max %a, %b : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xui8>
  %3 = autoglm.less %a, %b : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xi1>
  %4 = autoglm.greater %a, %b : (tensor<4xui8>, tensor<1xui8>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4 : tensor<4xui8>, tensor<4xui8>, tensor<4xui8>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Comparisons yield i1; floats use ordered predicates.
// CHECK-LABEL: func.func @compare
// CHECK: linalg.generic
// CHECK-SAME: outs(%{{.*}} : tensor<4xi1>)
// CHECK-NEXT: ^bb0(%{{.*}}: f32, %{{.*}}: f32, %{{.*}}: i1):
// CHECK-NEXT: arith.cmpf oeq
// CHECK: arith.cmpf olt
// CHECK: arith.cmpf ogt
// CHECK: arith.cmpi eq, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: arith.cmpi sgt, %{{.*}}, %{{.*}} : i32
func.func @compare(%a: tensor<4xf32>, %b: tensor<4xf32>, %i: tensor<4xi32>, %j: tensor<4xi32>)
    -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = autoglm.equal %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = autoglm.less %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = autoglm.greater %a, %b : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %3 = autoglm.equal %i, %j : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %4 = autoglm.less %i, %j : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  %5 = autoglm.greater %i, %j : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
  return %0, %1, %2, %3, %4, %5 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @where
// CHECK-SAME: (%[[C:.*]]: tensor<1x4xi1> {{.*}}, %[[X:.*]]: tensor<2x4xf32> {{.*}}, %[[Y:.*]]: tensor<f32> {{.*}})
// CHECK: linalg.generic
// CHECK-SAME: indexing_maps = [affine_map<(d0, d1) -> (0, d1)>, affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>, affine_map<(d0, d1) -> (d0, d1)>]
// CHECK-SAME: ins(%[[C]], %[[X]], %[[Y]] : tensor<1x4xi1>, tensor<2x4xf32>, tensor<f32>)
// CHECK-NEXT: ^bb0(%[[BC:.*]]: i1, %[[BX:.*]]: f32, %[[BY:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[S:.*]] = arith.select %[[BC]], %[[BX]], %[[BY]] : f32
// CHECK-NEXT: linalg.yield %[[S]]
func.func @where(%c: tensor<1x4xi1>, %x: tensor<2x4xf32>, %y: tensor<f32>) -> tensor<2x4xf32> {
  %0 = autoglm.where %c, %x, %y : (tensor<1x4xi1>, tensor<2x4xf32>, tensor<f32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// CHECK-LABEL: func.func @float_unary
// CHECK: ^bb0(%[[X0:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: math.sqrt %[[X0]]
// CHECK: ^bb0(%[[X1:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00 : f32
// CHECK-NEXT: arith.divf %[[ONE]], %[[X1]]
// CHECK: math.erf
// CHECK: math.tanh
// CHECK: math.exp
// CHECK: math.log
// CHECK: math.roundeven
// CHECK: ^bb0(%[[X2:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.maximumf %[[X2]], %[[ZERO]]
// CHECK: arith.negf
// CHECK: math.absf
func.func @float_unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = autoglm.sqrt %x : tensor<4xf32>
  %1 = autoglm.reciprocal %0 : tensor<4xf32>
  %2 = autoglm.erf %1 : tensor<4xf32>
  %3 = autoglm.tanh %2 : tensor<4xf32>
  %4 = autoglm.exp %3 : tensor<4xf32>
  %5 = autoglm.log %4 : tensor<4xf32>
  %r = autoglm.round %5 : tensor<4xf32>
  %6 = autoglm.relu %r : tensor<4xf32>
  %7 = autoglm.neg %6 : tensor<4xf32>
  %8 = autoglm.abs %7 : tensor<4xf32>
  return %8 : tensor<4xf32>
}

// -----

// sigmoid(x) = 1 / (1 + exp(-x))
// CHECK-LABEL: func.func @sigmoid
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[N:.*]] = arith.negf %[[X]]
// CHECK-NEXT: %[[E:.*]] = math.exp %[[N]]
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1.000000e+00
// CHECK-NEXT: %[[D:.*]] = arith.addf %[[ONE]], %[[E]]
// CHECK-NEXT: %[[ONE2:.*]] = arith.constant 1.000000e+00
// CHECK-NEXT: %[[R:.*]] = arith.divf %[[ONE2]], %[[D]]
// CHECK-NEXT: linalg.yield %[[R]]
func.func @sigmoid(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = autoglm.sigmoid %x : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @int_unary
// CHECK: ^bb0(%[[X0:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[Z0:.*]] = arith.constant 0 : i32
// CHECK-NEXT: arith.maxsi %[[X0]], %[[Z0]]
// CHECK: ^bb0(%[[X1:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[Z1:.*]] = arith.constant 0 : i32
// CHECK-NEXT: arith.subi %[[Z1]], %[[X1]]
// CHECK: math.absi
func.func @int_unary(%x: tensor<4xi32>) -> tensor<4xi32> {
  %0 = autoglm.relu %x : tensor<4xi32>
  %1 = autoglm.neg %0 : tensor<4xi32>
  %2 = autoglm.abs %1 : tensor<4xi32>
  return %2 : tensor<4xi32>
}

// -----

// Unsigned relu is a max against 0 as unsigned; unsigned abs is the identity.
// CHECK-LABEL: func.func @unsigned_unary
// CHECK: arith.maxui
// CHECK: ^bb0(%[[X:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: linalg.yield %[[X]] : i32
func.func @unsigned_unary(%x: tensor<4xui32>) -> tensor<4xui32> {
  %0 = autoglm.relu %x : tensor<4xui32>
  %1 = autoglm.abs %0 : tensor<4xui32>
  return %1 : tensor<4xui32>
}

// -----

// CHECK-LABEL: func.func @not
// CHECK: ^bb0(%[[X:.*]]: i1, %{{.*}}: i1):
// CHECK-NEXT: %[[T:.*]] = arith.constant true
// CHECK-NEXT: arith.xori %[[X]], %[[T]] : i1
func.func @not(%x: tensor<4xi1>) -> tensor<4xi1> {
  %0 = autoglm.not %x : tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

// CHECK-LABEL: func.func @clip
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[LO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[A:.*]] = arith.maximumf %[[X]], %[[LO]]
// CHECK-NEXT: %[[HI:.*]] = arith.constant 6.000000e+00 : f32
// CHECK-NEXT: %[[B:.*]] = arith.minimumf %[[A]], %[[HI]]
// CHECK-NEXT: linalg.yield %[[B]]
// A missing bound emits no comparison.
// CHECK: ^bb0(%[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: arith.constant 1.000000e+00 : f32
// CHECK-NEXT: arith.minimumf %[[Y]]
// CHECK-NOT: arith.maximumf
// CHECK: return
func.func @clip(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = autoglm.clip %x {min = 0.0 : f64, max = 6.0 : f64} : tensor<4xf32>
  %1 = autoglm.clip %x {max = 1.0 : f64} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// CHECK-LABEL: func.func @clip_unsigned
// CHECK: arith.constant 1 : i8
// CHECK-NEXT: arith.maxui
// CHECK: arith.constant -56 : i8
// CHECK-NEXT: arith.minui
func.func @clip_unsigned(%x: tensor<4xui8>) -> tensor<4xui8> {
  %0 = autoglm.clip %x {min = 1.0 : f64, max = 200.0 : f64} : tensor<4xui8>
  return %0 : tensor<4xui8>
}

// -----

// Cast follows ONNX: truncation toward zero, "!= 0" for bool, zero
// extension of unsigned and bool values.
// CHECK-LABEL: func.func @cast
// CHECK: arith.fptosi %{{.*}} : f32 to i32
// CHECK: arith.fptoui %{{.*}} : f32 to i8
// CHECK: arith.sitofp %{{.*}} : i64 to f32
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: %[[FZ:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: arith.cmpf une, %{{.*}}, %[[FZ]] : f32
// CHECK: %[[IZ:.*]] = arith.constant 0 : i64
// CHECK-NEXT: arith.cmpi ne, %{{.*}}, %[[IZ]] : i64
// CHECK: arith.trunci %{{.*}} : i64 to i32
// CHECK: arith.extui %{{.*}} : i8 to i64
// CHECK: arith.extsi %{{.*}} : i32 to i64
// CHECK: arith.extui %{{.*}} : i1 to i64
// CHECK: arith.uitofp %{{.*}} : i1 to f32
func.func @cast(%f: tensor<4xf32>, %i: tensor<4xi64>, %u: tensor<4xui8>, %s: tensor<4xi32>, %b: tensor<4xi1>)
    -> (tensor<4xi32>, tensor<4xui8>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>, tensor<4xf16>,
        tensor<4xi1>, tensor<4xi1>, tensor<4xi32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xf32>) {
  %0 = autoglm.cast %f {to = i32} : (tensor<4xf32>) -> tensor<4xi32>
  %1 = autoglm.cast %f {to = ui8} : (tensor<4xf32>) -> tensor<4xui8>
  %2 = autoglm.cast %i {to = f32} : (tensor<4xi64>) -> tensor<4xf32>
  %3 = autoglm.cast %u {to = f32} : (tensor<4xui8>) -> tensor<4xf32>
  %4 = autoglm.cast %f {to = f64} : (tensor<4xf32>) -> tensor<4xf64>
  %5 = autoglm.cast %f {to = f16} : (tensor<4xf32>) -> tensor<4xf16>
  %6 = autoglm.cast %f {to = i1} : (tensor<4xf32>) -> tensor<4xi1>
  %7 = autoglm.cast %i {to = i1} : (tensor<4xi64>) -> tensor<4xi1>
  %8 = autoglm.cast %i {to = i32} : (tensor<4xi64>) -> tensor<4xi32>
  %9 = autoglm.cast %u {to = i64} : (tensor<4xui8>) -> tensor<4xi64>
  %10 = autoglm.cast %s {to = i64} : (tensor<4xi32>) -> tensor<4xi64>
  %11 = autoglm.cast %b {to = i64} : (tensor<4xi1>) -> tensor<4xi64>
  %12 = autoglm.cast %b {to = f32} : (tensor<4xi1>) -> tensor<4xf32>
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12
      : tensor<4xi32>, tensor<4xui8>, tensor<4xf32>, tensor<4xf32>, tensor<4xf64>, tensor<4xf16>,
        tensor<4xi1>, tensor<4xi1>, tensor<4xi32>, tensor<4xi64>, tensor<4xi64>, tensor<4xi64>, tensor<4xf32>
}

// -----

// f16 and bf16 have the same width: convert through f32.
// CHECK-LABEL: func.func @cast_f16_to_bf16
// CHECK: %[[W:.*]] = arith.extf %{{.*}} : f16 to f32
// CHECK-NEXT: arith.truncf %[[W]] : f32 to bf16
func.func @cast_f16_to_bf16(%h: tensor<4xf16>) -> tensor<4xbf16> {
  %0 = autoglm.cast %h {to = bf16} : (tensor<4xf16>) -> tensor<4xbf16>
  return %0 : tensor<4xbf16>
}

// -----

// Constant exponents 2, 1 and 0.5 avoid powf.
// CHECK-LABEL: func.func @pow_special_exponents
// CHECK: ^bb0(%[[X2:.*]]: f32, %{{.*}}: i64, %{{.*}}: f32):
// CHECK-NEXT: %[[SQ:.*]] = arith.mulf %[[X2]], %[[X2]] : f32
// CHECK-NEXT: linalg.yield %[[SQ]]
// CHECK: ^bb0(%[[X1:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[X1]]
// CHECK: ^bb0(%[[XH:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: %[[RT:.*]] = math.sqrt %[[XH]]
// CHECK-NEXT: linalg.yield %[[RT]]
// CHECK-NOT: math.powf
// CHECK: return
func.func @pow_special_exponents(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %two = autoglm.constant dense<2> : tensor<i64>
  %one = autoglm.constant dense<1.0> : tensor<1xf32>
  %half = autoglm.constant dense<0.5> : tensor<f32>
  %0 = autoglm.pow %x, %two : (tensor<4xf32>, tensor<i64>) -> tensor<4xf32>
  %1 = autoglm.pow %x, %one : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  %2 = autoglm.pow %x, %half : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// -----

// Other exponents use powf; integer exponents are converted first.
// CHECK-LABEL: func.func @pow_general
// CHECK: ^bb0(%[[X:.*]]: f32, %[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: math.powf %[[X]], %[[Y]] : f32
// CHECK: ^bb0(%[[X2:.*]]: f32, %[[N:.*]]: i64, %{{.*}}: f32):
// CHECK-NEXT: %[[NF:.*]] = arith.sitofp %[[N]] : i64 to f32
// CHECK-NEXT: math.powf %[[X2]], %[[NF]] : f32
// CHECK: ^bb0(%[[X3:.*]]: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NEXT: math.powf %[[X3]]
func.func @pow_general(%x: tensor<4xf32>, %y: tensor<4xf32>, %n: tensor<4xi64>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %three = autoglm.constant dense<3.0> : tensor<f32>
  %0 = autoglm.pow %x, %y : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %1 = autoglm.pow %x, %n : (tensor<4xf32>, tensor<4xi64>) -> tensor<4xf32>
  %2 = autoglm.pow %x, %three : (tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
