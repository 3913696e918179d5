// RUN: autoglm-opt %s --split-input-file --autoglm-lower-to-linalg --mlir-print-local-scope | FileCheck %s

// Sign keeps zero and NaN (the fall-through value is x itself); unsigned
// values are never negative.
// CHECK-LABEL: func.func @sign
// CHECK: ^bb0(%[[F:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[FPOS:.*]] = arith.cmpf ogt, %[[F]]
// CHECK: %[[FNEG:.*]] = arith.cmpf olt, %[[F]]
// CHECK: %[[FREST:.*]] = arith.select %[[FNEG]], %{{.*}}, %[[F]] : f32
// CHECK: arith.select %[[FPOS]], %{{.*}}, %[[FREST]] : f32
// CHECK: ^bb0(%[[I:.*]]: i8, %{{.*}}: i8):
// CHECK: arith.cmpi sgt, %[[I]]
// CHECK: arith.cmpi slt, %[[I]]
// CHECK: ^bb0(%[[U:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[NZ:.*]] = arith.cmpi ne, %[[U]]
// CHECK: arith.select %[[NZ]]
func.func @sign(%f: tensor<4xf32>, %i: tensor<4xi8>, %u: tensor<4xui8>) -> (tensor<4xf32>, tensor<4xi8>, tensor<4xui8>) {
  %0 = autoglm.sign %f : tensor<4xf32>
  %1 = autoglm.sign %i : tensor<4xi8>
  %2 = autoglm.sign %u : tensor<4xui8>
  return %0, %1, %2 : tensor<4xf32>, tensor<4xi8>, tensor<4xui8>
}

// -----

// Rounding and trigonometric ops map to the math dialect one to one.
// CHECK-LABEL: func.func @math_unary
// CHECK: math.ceil
// CHECK: math.floor
// CHECK: math.sin
// CHECK: math.cos
// CHECK: math.tan
// CHECK: math.asin
// CHECK: math.acos
// CHECK: math.atan
// CHECK: math.sinh
// CHECK: math.cosh
// CHECK: math.asinh
// CHECK: math.acosh
// CHECK: math.atanh
func.func @math_unary(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = autoglm.ceil %x : tensor<4xf32>
  %1 = autoglm.floor %0 : tensor<4xf32>
  %2 = autoglm.sin %1 : tensor<4xf32>
  %3 = autoglm.cos %2 : tensor<4xf32>
  %4 = autoglm.tan %3 : tensor<4xf32>
  %5 = autoglm.asin %4 : tensor<4xf32>
  %6 = autoglm.acos %5 : tensor<4xf32>
  %7 = autoglm.atan %6 : tensor<4xf32>
  %8 = autoglm.sinh %7 : tensor<4xf32>
  %9 = autoglm.cosh %8 : tensor<4xf32>
  %10 = autoglm.asinh %9 : tensor<4xf32>
  %11 = autoglm.acosh %10 : tensor<4xf32>
  %12 = autoglm.atanh %11 : tensor<4xf32>
  return %12 : tensor<4xf32>
}

// -----

// expm1 and log1p do not use math.expm1/math.log1p (LLVM expands those to
// exp(x) - 1 and log(1 + x)): Kahan's correction divides by log(u) or u - 1,
// and x itself is the answer where u rounds to 1.
// CHECK-LABEL: func.func @expm1_log1p
// CHECK: ^bb0(%[[X:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[U:.*]] = math.exp %[[X]] : f32
// CHECK: %[[UM1:.*]] = arith.subf %[[U]], %{{.*}} : f32
// CHECK: %[[LOG:.*]] = math.log %[[U]] : f32
// CHECK: %[[Q:.*]] = arith.divf %[[X]], %[[LOG]] : f32
// CHECK: %[[S:.*]] = arith.mulf %[[UM1]], %[[Q]] : f32
// CHECK: %[[R:.*]] = arith.select %{{.*}}, %[[UM1]], %[[S]] : f32
// CHECK: %[[ONE:.*]] = arith.cmpf oeq, %[[U]], %{{.*}} : f32
// CHECK: arith.select %[[ONE]], %[[X]], %[[R]] : f32
// CHECK-NOT: math.expm1
// CHECK: ^bb0(%[[Y:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[V:.*]] = arith.addf %{{.*}}, %[[Y]] : f32
// CHECK: math.log %[[V]] : f32
// CHECK-NOT: math.log1p
// CHECK: return
func.func @expm1_log1p(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = autoglm.expm1 %x : tensor<4xf32>
  %1 = autoglm.log1p %x : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

// -----

// Bitwise ops work on any integer width; not is xor with all ones.
// CHECK-LABEL: func.func @bitwise
// CHECK: arith.andi %{{.*}}, %{{.*}} : i8
// CHECK: arith.ori %{{.*}}, %{{.*}} : i8
// CHECK: arith.xori %{{.*}}, %{{.*}} : i8
// CHECK: %[[ONES:.*]] = arith.constant -1 : i8
// CHECK-NEXT: arith.xori %{{.*}}, %[[ONES]] : i8
// CHECK: %[[TRUE:.*]] = arith.constant true
// CHECK-NEXT: arith.xori %{{.*}}, %[[TRUE]] : i1
func.func @bitwise(%a: tensor<3x4xi8>, %b: tensor<4xi8>, %p: tensor<4xi1>) -> (tensor<3x4xi8>, tensor<4xi1>) {
  %0 = autoglm.and %a, %b : (tensor<3x4xi8>, tensor<4xi8>) -> tensor<3x4xi8>
  %1 = autoglm.or %0, %b : (tensor<3x4xi8>, tensor<4xi8>) -> tensor<3x4xi8>
  %2 = autoglm.xor %1, %b : (tensor<3x4xi8>, tensor<4xi8>) -> tensor<3x4xi8>
  %3 = autoglm.not %2 : tensor<3x4xi8>
  %4 = autoglm.not %p : tensor<4xi1>
  return %3, %4 : tensor<3x4xi8>, tensor<4xi1>
}

// -----

// Shift amounts are checked against the width with one unsigned compare
// (negative amounts are huge unsigned ones). Out of range, a left shift and
// an unsigned right shift give 0, a signed right shift shifts by width - 1.
// CHECK-LABEL: func.func @shifts
// CHECK: ^bb0(%[[X:.*]]: i8, %[[N:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[SHL:.*]] = arith.shli %[[X]], %[[N]] : i8
// CHECK: %[[W:.*]] = arith.constant 8 : i8
// CHECK: %[[OK:.*]] = arith.cmpi ult, %[[N]], %[[W]] : i8
// CHECK: arith.select %[[OK]], %[[SHL]], %{{.*}} : i8
// CHECK: ^bb0(%[[UX:.*]]: i8, %[[UN:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[UOK:.*]] = arith.cmpi ult, %[[UN]]
// CHECK: %[[SHR:.*]] = arith.shrui %[[UX]], %[[UN]] : i8
// CHECK: arith.select %[[UOK]], %[[SHR]], %{{.*}} : i8
// CHECK: ^bb0(%[[SX:.*]]: i8, %[[SN:.*]]: i8, %{{.*}}: i8):
// CHECK: %[[SOK:.*]] = arith.cmpi ult, %[[SN]]
// CHECK: %[[TOP:.*]] = arith.constant 7 : i8
// CHECK: %[[AMT:.*]] = arith.select %[[SOK]], %[[SN]], %[[TOP]] : i8
// CHECK: arith.shrsi %[[SX]], %[[AMT]] : i8
func.func @shifts(%u: tensor<3xui8>, %s: tensor<3xi8>) -> (tensor<3xui8>, tensor<3xui8>, tensor<3xi8>) {
  %0 = autoglm.shift_left %u, %u : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  %1 = autoglm.shift_right %u, %u : (tensor<3xui8>, tensor<3xui8>) -> tensor<3xui8>
  %2 = autoglm.shift_right %s, %s : (tensor<3xi8>, tensor<3xi8>) -> tensor<3xi8>
  return %0, %1, %2 : tensor<3xui8>, tensor<3xui8>, tensor<3xi8>
}

// -----

// fmod is the plain remainder; the Python-style remainder moves a nonzero
// remainder whose sign differs from the divisor's by the divisor, and for
// floats gives a zero result the divisor's sign.
// CHECK-LABEL: func.func @mod
// CHECK: ^bb0(%[[A:.*]]: i32, %[[B:.*]]: i32, %{{.*}}: i32):
// CHECK-NEXT: %[[R:.*]] = arith.remsi %[[A]], %[[B]] : i32
// CHECK-NEXT: linalg.yield %[[R]] : i32
// CHECK: ^bb0(%[[C:.*]]: i32, %[[D:.*]]: i32, %{{.*}}: i32):
// CHECK: %[[R2:.*]] = arith.remsi %[[C]], %[[D]] : i32
// CHECK: %[[SUM:.*]] = arith.addi %[[R2]], %[[D]] : i32
// CHECK: arith.select %{{.*}}, %[[SUM]], %[[R2]] : i32
// CHECK: ^bb0(%[[E:.*]]: i32, %[[F:.*]]: i32, %{{.*}}: i32):
// CHECK: arith.remui %[[E]], %[[F]] : i32
// CHECK: ^bb0(%[[G:.*]]: f32, %[[H:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[RF:.*]] = arith.remf %[[G]], %[[H]] : f32
// CHECK: %[[MOVED:.*]] = arith.select %{{.*}}, %{{.*}}, %[[RF]] : f32
// CHECK: %[[ZERO:.*]] = arith.cmpf oeq, %[[RF]]
// CHECK: %[[SIGNED:.*]] = math.copysign %[[RF]], %[[H]] : f32
// CHECK: arith.select %[[ZERO]], %[[SIGNED]], %[[MOVED]] : f32
func.func @mod(%a: tensor<4xi32>, %b: tensor<4xi32>, %u: tensor<4xui32>, %x: tensor<4xf32>) -> (tensor<4xi32>, tensor<4xi32>, tensor<4xui32>, tensor<4xf32>) {
  %0 = autoglm.mod %a, %b {fmod = true} : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %1 = autoglm.mod %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
  %2 = autoglm.mod %u, %u : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  %3 = autoglm.mod %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0, %1, %2, %3 : tensor<4xi32>, tensor<4xi32>, tensor<4xui32>, tensor<4xf32>
}

// -----

// Ordered float predicates (NaN compares false); unsigned predicates for ui.
// CHECK-LABEL: func.func @compare_or_equal
// CHECK: arith.cmpf ole
// CHECK: arith.cmpf oge
// CHECK: arith.cmpi ule
// CHECK: arith.cmpi sge
func.func @compare_or_equal(%x: tensor<4xf32>, %u: tensor<4xui16>, %s: tensor<4xi16>) -> (tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>) {
  %0 = autoglm.less_equal %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %1 = autoglm.greater_equal %x, %x : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  %2 = autoglm.less_equal %u, %u : (tensor<4xui16>, tensor<4xui16>) -> tensor<4xi1>
  %3 = autoglm.greater_equal %s, %s : (tensor<4xi16>, tensor<4xi16>) -> tensor<4xi1>
  return %0, %1, %2, %3 : tensor<4xi1>, tensor<4xi1>, tensor<4xi1>, tensor<4xi1>
}

// -----

// Formulas of several steps (sigmoid, expm1, log1p) run in f32 on 16-bit
// floats and round once.
// CHECK-LABEL: func.func @sigmoid_f16
// CHECK: ^bb0(%[[X:.*]]: bf16, %{{.*}}: bf16):
// CHECK-NEXT: %[[W:.*]] = arith.extf %[[X]] : bf16 to f32
// CHECK: math.exp %{{.*}} : f32
// CHECK: %[[S:.*]] = arith.divf %{{.*}} : f32
// CHECK-NEXT: %[[N:.*]] = arith.truncf %[[S]] : f32 to bf16
// CHECK-NEXT: linalg.yield %[[N]] : bf16
func.func @sigmoid_f16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  %0 = autoglm.sigmoid %x : tensor<4xbf16>
  return %0 : tensor<4xbf16>
}
