// RUN: autoglm-opt %s --split-input-file --autoglm-contractions-to-kernels --canonicalize --cse | FileCheck %s

// An integer product (autoglm.matmul_integer lowered) of a uint8 lhs with a
// constant zero point 128 (canonicalization moved it into the body) and a
// constant int8 weight, after a zero fill: one agl_kernel_gemm_u8s8 call.
// Arguments: batch, m, n, k; a, its batch/row strides, its zero point; the
// packed weight (column sums and 4-depth groups, 128 + 128 bytes per panel
// of 32 columns: 256 bytes for k = 4, n = 2); c, its batch/row strides;
// then the float epilogue, unused (alpha 1, no scale, bias, activation or
// residual), and the blocking.
// CHECK-LABEL: func.func @int8_product
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[W:.*]] = memref.get_global @weight_packed : memref<256xi8>
// CHECK: call @agl_kernel_gemm_u8s8(%c1_i64, %c3_i64, %c2_i64, %c4_i64, %{{.*}}, %c0_i64, %c4_i64, %c128_i32, %{{.*}}, %{{.*}}, %c0_i64, %c2_i64, %cst, %[[NULL:.*]], %[[NULL]], %c0_i32, %[[NULL]], %c0_i64, %c0_i64, %[[NULL]])
// CHECK-NOT: linalg.generic
// The panel: column sums 3 and -2 (little-endian int32), then for depths
// 0-3 column 0's bytes (1, 0, 2, 0) and column 1's (-2, -1, 1, 0).
// CHECK: memref.global "private" constant @weight_packed : memref<256xi8> = dense<"0x03000000FEFFFFFF{{0+}}01000200FEFF0100{{0+}}"> {alignment = 64 : i64}
memref.global "private" constant @weight : memref<4x2xi8> = dense<[[1, -2], [0, -1], [2, 1], [0, 0]]>
func.func @int8_product(%a: memref<3x4xi8>, %c: memref<3x2xi32>) {
  %c128 = arith.constant 128 : i32
  %zero = arith.constant 0 : i32
  %w = memref.get_global @weight : memref<4x2xi8>
  linalg.fill ins(%zero : i32) outs(%c : memref<3x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<3x4xi8>, memref<4x2xi8>) outs(%c : memref<3x2xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extui %x : i8 to i32
    %xz = arith.subi %xw, %c128 : i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xz, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// The same product written transposed (the output map (n, m): a
// convolution's sums in NCHW): agl_kernel_gemm_u8s8_transposed, whose C
// arguments are its batch stride and the stride between its columns (3,
// the rows of a column being contiguous); no epilogue, then the blocking.
// CHECK-LABEL: func.func @int8_product_transposed
// CHECK-NOT: linalg.fill
// CHECK-DAG: %[[W:.*]] = memref.get_global @weight_packed : memref<256xi8>
// CHECK: call @agl_kernel_gemm_u8s8_transposed(%c1_i64, %c3_i64, %c2_i64, %c4_i64, %{{.*}}, %c0_i64, %c4_i64, %c128_i32, %{{.*}}, %{{.*}}, %c0_i64, %c3_i64, %{{.*}}) : (i64, i64, i64, i64, !llvm.ptr, i64, i64, i32, !llvm.ptr, !llvm.ptr, i64, i64, !llvm.ptr) -> ()
// CHECK-NOT: linalg.generic
memref.global "private" constant @weight : memref<4x2xi8> = dense<[[1, -2], [0, -1], [2, 1], [0, 0]]>
func.func @int8_product_transposed(%a: memref<3x4xi8>, %c: memref<2x3xi32>) {
  %c128 = arith.constant 128 : i32
  %zero = arith.constant 0 : i32
  %w = memref.get_global @weight : memref<4x2xi8>
  linalg.fill ins(%zero : i32) outs(%c : memref<2x3xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (n, m)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<3x4xi8>, memref<4x2xi8>) outs(%c : memref<2x3xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extui %x : i8 to i32
    %xz = arith.subi %xw, %c128 : i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xz, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// The zero point as a scalar input (computed at run time, as
// DynamicQuantizeLinear does): loaded and widened at the call.
// CHECK-LABEL: func.func @runtime_zero_point
// CHECK: %[[Z:.*]] = memref.load %arg1[] : memref<i8>
// CHECK: %[[ZW:.*]] = arith.extui %[[Z]] : i8 to i32
// CHECK: call @agl_kernel_gemm_u8s8(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[ZW]],
memref.global "private" constant @weight : memref<4x2xi8> = dense<[[1, -2], [0, -1], [2, 1], [0, 0]]>
func.func @runtime_zero_point(%a: memref<3x4xi8>, %za: memref<i8>, %c: memref<3x2xi32>) {
  %zero = arith.constant 0 : i32
  %w = memref.get_global @weight : memref<4x2xi8>
  linalg.fill ins(%zero : i32) outs(%c : memref<3x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> ()>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w, %za : memref<3x4xi8>, memref<4x2xi8>, memref<i8>) outs(%c : memref<3x2xi32>) {
  ^bb0(%x: i8, %y: i8, %z: i8, %acc: i32):
    %xw = arith.extui %x : i8 to i32
    %zw = arith.extui %z : i8 to i32
    %xz = arith.subi %xw, %zw : i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xz, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}

// -----

// Stays loops: the weight is not a constant (nothing to pack), or the lhs
// is sign-extended (int8 activations; the kernel takes uint8).
// CHECK-LABEL: func.func @not_for_the_kernel
// CHECK-NOT: call
// CHECK-COUNT-2: linalg.generic
func.func @not_for_the_kernel(%a: memref<3x4xi8>, %w: memref<4x2xi8>, %c: memref<3x2xi32>, %d: memref<3x2xi32>) {
  %zero = arith.constant 0 : i32
  %cw = memref.get_global @weight : memref<4x2xi8>
  linalg.fill ins(%zero : i32) outs(%c : memref<3x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<3x4xi8>, memref<4x2xi8>) outs(%c : memref<3x2xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extui %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.fill ins(%zero : i32) outs(%d : memref<3x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %cw : memref<3x4xi8>, memref<4x2xi8>) outs(%d : memref<3x2xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xw = arith.extsi %x : i8 to i32
    %yw = arith.extsi %y : i8 to i32
    %p = arith.muli %xw, %yw : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  return
}
memref.global "private" constant @weight : memref<4x2xi8> = dense<[[1, -2], [0, -1], [2, 1], [0, 0]]>

// -----

// The dequantization that follows (float(sum) * scale per column, plus a
// bias) goes into the call: c is the float
// output, the scale and bias buffers are passed, the int32 buffer and its
// fill are gone.
// CHECK-LABEL: func.func @dequantized
// CHECK-NOT: linalg
// CHECK: call @agl_kernel_gemm_u8s8(%c1_i64, %c3_i64, %c2_i64, %c4_i64, %{{.*}}, %c0_i64, %c4_i64, %c128_i32, %{{.*}}, %[[OUT:.*]], %c0_i64, %c2_i64, %cst, %[[SCALE:.*]], %[[BIAS:.*]], %c0_i32, %{{.*}}, %c0_i64, %c0_i64, %{{.*}}) {autoglm.epilogue = "bias"}
// CHECK-NOT: linalg
memref.global "private" constant @weight : memref<4x2xi8> = dense<[[1, -2], [0, -1], [2, 1], [0, 0]]>
func.func @dequantized(%a: memref<3x4xi8>, %scale: memref<2xf32>, %bias: memref<2xf32>, %y: memref<3x2xf32>, %arena: memref<64xi8> {autoglm.arena}) {
  %c128 = arith.constant 128 : i32
  %zero = arith.constant 0 : i32
  %w = memref.get_global @weight : memref<4x2xi8>
  %c0 = arith.constant 0 : index
  %acc = memref.view %arena[%c0][] : memref<64xi8> to memref<3x2xi32>
  linalg.fill ins(%zero : i32) outs(%acc : memref<3x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<3x4xi8>, memref<4x2xi8>) outs(%acc : memref<3x2xi32>) {
  ^bb0(%x: i8, %v: i8, %s: i32):
    %xw = arith.extui %x : i8 to i32
    %xz = arith.subi %xw, %c128 : i32
    %vw = arith.extsi %v : i8 to i32
    %p = arith.muli %xz, %vw : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %scale, %bias : memref<3x2xi32>, memref<2xf32>, memref<2xf32>) outs(%y : memref<3x2xf32>) {
  ^bb0(%s: i32, %sc: f32, %b: f32, %o: f32):
    %f = arith.sitofp %s : i32 to f32
    %d = arith.mulf %f, %sc : f32
    %r = arith.addf %d, %b : f32
    linalg.yield %r : f32
  }
  return
}

// -----

// A scale computed at run time (a scalar buffer: DynamicQuantizeLinear's
// scale times the weight's) multiplies alpha; the column scale is a
// constant buffer of ones.
// CHECK-LABEL: func.func @runtime_scale
// CHECK-DAG: %[[ONES:.*]] = memref.get_global @agl_ones : memref<2xf32>
// CHECK-DAG: %[[S:.*]] = memref.load %arg1[] : memref<f32>
// CHECK: call @agl_kernel_gemm_u8s8(%{{.*}}, %[[S]], %{{.*}}) {autoglm.epilogue = ""}
// CHECK: memref.global "private" constant @agl_ones : memref<2xf32> = dense<1.000000e+00>
memref.global "private" constant @weight : memref<4x2xi8> = dense<[[1, -2], [0, -1], [2, 1], [0, 0]]>
func.func @runtime_scale(%a: memref<3x4xi8>, %scale: memref<f32>, %y: memref<3x2xf32>, %arena: memref<64xi8> {autoglm.arena}) {
  %zero = arith.constant 0 : i32
  %w = memref.get_global @weight : memref<4x2xi8>
  %c0 = arith.constant 0 : index
  %acc = memref.view %arena[%c0][] : memref<64xi8> to memref<3x2xi32>
  linalg.fill ins(%zero : i32) outs(%acc : memref<3x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<3x4xi8>, memref<4x2xi8>) outs(%acc : memref<3x2xi32>) {
  ^bb0(%x: i8, %v: i8, %s: i32):
    %xw = arith.extui %x : i8 to i32
    %vw = arith.extsi %v : i8 to i32
    %p = arith.muli %xw, %vw : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> ()>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %scale : memref<3x2xi32>, memref<f32>) outs(%y : memref<3x2xf32>) {
  ^bb0(%s: i32, %sc: f32, %o: f32):
    %f = arith.sitofp %s : i32 to f32
    %d = arith.mulf %sc, %f : f32
    linalg.yield %d : f32
  }
  return
}

// -----

// An epilogue that ends in the uint8 QuantizeLinear of the next product's
// input (x / 0.05, rounded to even, plus the zero point 3, clamped to
// 0..255): agl_kernel_gemm_u8s8_requantize writes those bytes, with the
// output's scale and zero point before the blocking; the ReLU before the
// quantization stays in the epilogue.
// CHECK-LABEL: func.func @requantized
// CHECK-NOT: linalg
// CHECK-DAG: %[[OS:.*]] = arith.constant 5.000000e-02 : f32
// CHECK-DAG: %[[OZ:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[RELU:.*]] = arith.constant 1 : i32
// CHECK: call @agl_kernel_gemm_u8s8_requantize(%c1_i64, %c3_i64, %c2_i64, %c4_i64, %{{.*}}, %c0_i64, %c4_i64, %c128_i32, %{{.*}}, %{{.*}}, %c0_i64, %c2_i64, %cst{{.*}}, %{{.*}}, %{{.*}}, %[[RELU]], %{{.*}}, %c0_i64, %c0_i64, %[[OS]], %[[OZ]], %{{.*}}) {autoglm.epilogue = "bias+relu+quantize"}
// CHECK-NOT: linalg
memref.global "private" constant @weight : memref<4x2xi8> = dense<[[1, -2], [0, -1], [2, 1], [0, 0]]>
func.func @requantized(%a: memref<3x4xi8>, %scale: memref<2xf32>, %bias: memref<2xf32>, %q: memref<3x2xi8>, %arena: memref<64xi8> {autoglm.arena}) {
  %c128 = arith.constant 128 : i32
  %zero = arith.constant 0 : i32
  %w = memref.get_global @weight : memref<4x2xi8>
  %c0 = arith.constant 0 : index
  %acc = memref.view %arena[%c0][] : memref<64xi8> to memref<3x2xi32>
  linalg.fill ins(%zero : i32) outs(%acc : memref<3x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<3x4xi8>, memref<4x2xi8>) outs(%acc : memref<3x2xi32>) {
  ^bb0(%x: i8, %v: i8, %s: i32):
    %xw = arith.extui %x : i8 to i32
    %xz = arith.subi %xw, %c128 : i32
    %vw = arith.extsi %v : i8 to i32
    %p = arith.muli %xz, %vw : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  %fzero = arith.constant 0.0 : f32
  %qscale = arith.constant 0.05 : f32
  %qzero = arith.constant 3.0 : f32
  %qmax = arith.constant 255.0 : f32
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %scale, %bias : memref<3x2xi32>, memref<2xf32>, memref<2xf32>) outs(%q : memref<3x2xi8>) {
  ^bb0(%s: i32, %sc: f32, %b: f32, %o: i8):
    %f = arith.sitofp %s : i32 to f32
    %d = arith.mulf %f, %sc : f32
    %r = arith.addf %d, %b : f32
    %relu = arith.maximumf %r, %fzero : f32
    %t = arith.divf %relu, %qscale : f32
    %n = math.roundeven %t : f32
    %z = arith.addf %n, %qzero : f32
    %lo = arith.maximumf %z, %fzero : f32
    %hi = arith.minimumf %lo, %qmax : f32
    %u = arith.fptoui %hi : f32 to i8
    linalg.yield %u : i8
  }
  return
}

// -----

// A quantization with a scale read at run time stays a loop after the call
// (the kernel takes the output's scale as a constant), as does one that
// clamps to int8 (-128..127, an int8 activation).
// CHECK-LABEL: func.func @requantization_kept_apart
// CHECK-NOT: requantize
// CHECK: call @agl_kernel_gemm_u8s8(
// CHECK-NOT: requantize
// CHECK: linalg.generic
// CHECK-NOT: requantize
// CHECK: call @agl_kernel_gemm_u8s8(
// CHECK-NOT: requantize
// CHECK: linalg.generic
// CHECK-NOT: requantize
// CHECK: return
memref.global "private" constant @weight : memref<4x2xi8> = dense<[[1, -2], [0, -1], [2, 1], [0, 0]]>
func.func @requantization_kept_apart(%a: memref<3x4xi8>, %scale: memref<2xf32>, %qs: memref<f32>, %q: memref<3x2xi8>, %q2: memref<3x2xi8>, %arena: memref<128xi8> {autoglm.arena}) {
  %zero = arith.constant 0 : i32
  %w = memref.get_global @weight : memref<4x2xi8>
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %acc = memref.view %arena[%c0][] : memref<128xi8> to memref<3x2xi32>
  %acc2 = memref.view %arena[%c64][] : memref<128xi8> to memref<3x2xi32>
  linalg.fill ins(%zero : i32) outs(%acc : memref<3x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<3x4xi8>, memref<4x2xi8>) outs(%acc : memref<3x2xi32>) {
  ^bb0(%x: i8, %v: i8, %s: i32):
    %xw = arith.extui %x : i8 to i32
    %vw = arith.extsi %v : i8 to i32
    %p = arith.muli %xw, %vw : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  %fzero = arith.constant 0.0 : f32
  %qmax = arith.constant 255.0 : f32
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> ()>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%acc, %scale, %qs : memref<3x2xi32>, memref<2xf32>, memref<f32>) outs(%q : memref<3x2xi8>) {
  ^bb0(%s: i32, %sc: f32, %os: f32, %o: i8):
    %f = arith.sitofp %s : i32 to f32
    %d = arith.mulf %f, %sc : f32
    %t = arith.divf %d, %os : f32
    %n = math.roundeven %t : f32
    %z = arith.addf %n, %fzero : f32
    %lo = arith.maximumf %z, %fzero : f32
    %hi = arith.minimumf %lo, %qmax : f32
    %u = arith.fptoui %hi : f32 to i8
    linalg.yield %u : i8
  }
  linalg.fill ins(%zero : i32) outs(%acc2 : memref<3x2xi32>)
  linalg.generic {indexing_maps = [affine_map<(m, k, n) -> (m, k)>, affine_map<(m, k, n) -> (k, n)>, affine_map<(m, k, n) -> (m, n)>], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<3x4xi8>, memref<4x2xi8>) outs(%acc2 : memref<3x2xi32>) {
  ^bb0(%x: i8, %v: i8, %s: i32):
    %xw = arith.extui %x : i8 to i32
    %vw = arith.extsi %v : i8 to i32
    %p = arith.muli %xw, %vw : i32
    %r = arith.addi %s, %p : i32
    linalg.yield %r : i32
  }
  %smin = arith.constant -128.0 : f32
  %smax = arith.constant 127.0 : f32
  %qscale = arith.constant 0.05 : f32
  linalg.generic {indexing_maps = [affine_map<(m, n) -> (m, n)>, affine_map<(m, n) -> (n)>, affine_map<(m, n) -> (m, n)>], iterator_types = ["parallel", "parallel"]} ins(%acc2, %scale : memref<3x2xi32>, memref<2xf32>) outs(%q2 : memref<3x2xi8>) {
  ^bb0(%s: i32, %sc: f32, %o: i8):
    %f = arith.sitofp %s : i32 to f32
    %d = arith.mulf %f, %sc : f32
    %t = arith.divf %d, %qscale : f32
    %n = math.roundeven %t : f32
    %lo = arith.maximumf %n, %smin : f32
    %hi = arith.minimumf %lo, %smax : f32
    %u = arith.fptosi %hi : f32 to i8
    linalg.yield %u : i8
  }
  return
}
