// RUN: autoglm-opt %s --split-input-file --autoglm-recognize-attention --canonicalize | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-recognize-attention --mlir-print-debuginfo --mlir-print-local-scope | FileCheck %s --check-prefix=LOC

// Prefill as the GLM layer writes it: Q·Kᵀ with K transposed, Mul by the
// scale, Where with a constant causal mask and -1e9, Softmax, ·V. One op
// remains, causal; its location names every node.
// CHECK-LABEL: func.func @causal_where
// CHECK-NEXT: %[[A:.*]] = autoglm.attention %arg0, %arg1, %arg2 {causal = true, scale = 1.250000e-01 : f32}
// CHECK-NEXT: return %[[A]]
// LOC-LABEL: func.func @causal_where
// LOC: autoglm.attention {{.*}} loc(fused["kT", "scores", "scale", "mask", "softmax", "ctx"])
func.func @causal_where(%q: tensor<1x2x4x8xf32>, %k: tensor<1x2x4x8xf32>, %v: tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> {
  %keep = autoglm.constant dense<[[[[true, false, false, false], [true, true, false, false], [true, true, true, false], [true, true, true, true]]]]> : tensor<1x1x4x4xi1>
  %scale = autoglm.constant dense<0.125> : tensor<f32>
  %neg = autoglm.constant dense<-1.0e9> : tensor<f32>
  %kT = autoglm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32> loc("kT")
  %s = autoglm.matmul %q, %kT : (tensor<1x2x4x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x4x4xf32> loc("scores")
  %ss = autoglm.mul %s, %scale : (tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32> loc("scale")
  %m = autoglm.where %keep, %ss, %neg : (tensor<1x1x4x4xi1>, tensor<1x2x4x4xf32>, tensor<f32>) -> tensor<1x2x4x4xf32> loc("mask")
  %p = autoglm.softmax %m {axis = 3 : i64} : tensor<1x2x4x4xf32> loc("softmax")
  %y = autoglm.matmul %p, %v : (tensor<1x2x4x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x4x8xf32> loc("ctx")
  return %y : tensor<1x2x4x8xf32>
}

// -----

// Decode: one query against 3 cached positions and 1 new one, concatenated;
// the mask keeps every key, so there is none.
// CHECK-LABEL: func.func @decode_kv_cache
// CHECK: %[[K:.*]] = autoglm.concat %arg1, %arg2
// CHECK: %[[V:.*]] = autoglm.concat %arg3, %arg4
// CHECK: autoglm.attention %arg0, %[[K]], %[[V]] {scale = 1.250000e-01 : f32} :
// CHECK-NOT: autoglm.softmax
func.func @decode_kv_cache(%q: tensor<1x2x1x8xf32>, %pk: tensor<1x2x3x8xf32>, %k: tensor<1x2x1x8xf32>, %pv: tensor<1x2x3x8xf32>, %v: tensor<1x2x1x8xf32>) -> tensor<1x2x1x8xf32> {
  %keep = autoglm.constant dense<true> : tensor<1x1x1x4xi1>
  %scale = autoglm.constant dense<0.125> : tensor<f32>
  %neg = autoglm.constant dense<-1.0e9> : tensor<f32>
  %kk = autoglm.concat %pk, %k {axis = 2 : i64} : (tensor<1x2x3x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x4x8xf32>
  %vv = autoglm.concat %pv, %v {axis = 2 : i64} : (tensor<1x2x3x8xf32>, tensor<1x2x1x8xf32>) -> tensor<1x2x4x8xf32>
  %kT = autoglm.transpose %kk {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x4x8xf32>) -> tensor<1x2x8x4xf32>
  %s = autoglm.matmul %q, %kT : (tensor<1x2x1x8xf32>, tensor<1x2x8x4xf32>) -> tensor<1x2x1x4xf32>
  %ss = autoglm.mul %s, %scale : (tensor<1x2x1x4xf32>, tensor<f32>) -> tensor<1x2x1x4xf32>
  %m = autoglm.where %keep, %ss, %neg : (tensor<1x1x1x4xi1>, tensor<1x2x1x4xf32>, tensor<f32>) -> tensor<1x2x1x4xf32>
  %p = autoglm.softmax %m {axis = 3 : i64} : tensor<1x2x1x4xf32>
  %y = autoglm.matmul %p, %vv : (tensor<1x2x1x4xf32>, tensor<1x2x4x8xf32>) -> tensor<1x2x1x8xf32>
  return %y : tensor<1x2x1x8xf32>
}

// -----

// Causal with a cache: query i keeps keys j <= i + 2 (Sq = 2, Sk = 4).
// CHECK-LABEL: func.func @causal_offset
// CHECK: autoglm.attention %arg0, %arg1, %arg2 {causal = true, scale = 1.000000e+00 : f32}
func.func @causal_offset(%q: tensor<1x1x2x8xf32>, %k: tensor<1x1x4x8xf32>, %v: tensor<1x1x4x8xf32>) -> tensor<1x1x2x8xf32> {
  %keep = autoglm.constant dense<[[true, true, true, false], [true, true, true, true]]> : tensor<2x4xi1>
  %neg = autoglm.constant dense<-1.0e9> : tensor<f32>
  %kT = autoglm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x1x4x8xf32>) -> tensor<1x1x8x4xf32>
  %s = autoglm.matmul %q, %kT : (tensor<1x1x2x8xf32>, tensor<1x1x8x4xf32>) -> tensor<1x1x2x4xf32>
  %m = autoglm.where %keep, %s, %neg : (tensor<2x4xi1>, tensor<1x1x2x4xf32>, tensor<f32>) -> tensor<1x1x2x4xf32>
  %p = autoglm.softmax %m {axis = 3 : i64} : tensor<1x1x2x4xf32>
  %y = autoglm.matmul %p, %v : (tensor<1x1x2x4xf32>, tensor<1x1x4x8xf32>) -> tensor<1x1x2x8xf32>
  return %y : tensor<1x1x2x8xf32>
}

// -----

// Another constant pattern becomes a 0 / -inf additive mask.
// CHECK-LABEL: func.func @where_pattern_mask
// CHECK: %[[M:.*]] = autoglm.constant dense<{{\[\[}}0.000000e+00, 0xFF800000], [0xFF800000, 0.000000e+00]]> : tensor<2x2xf32>
// CHECK: autoglm.attention %arg0, %arg1, %arg2, %[[M]] {scale = 5.000000e-01 : f32}
func.func @where_pattern_mask(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32> {
  %keep = autoglm.constant dense<[[true, false], [false, true]]> : tensor<2x2xi1>
  %two = autoglm.constant dense<2.0> : tensor<f32>
  %neg = autoglm.constant dense<-1.0e9> : tensor<f32>
  %kT = autoglm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x1x2x4xf32>) -> tensor<1x1x4x2xf32>
  %s = autoglm.matmul %q, %kT : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %d = autoglm.div %s, %two : (tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  %m = autoglm.where %keep, %d, %neg : (tensor<2x2xi1>, tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  %p = autoglm.softmax %m {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %y = autoglm.matmul %p, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %y : tensor<1x1x2x4xf32>
}

// -----

// An additive mask (a graph input), the scale split between Q and K as the
// ONNX Attention importer writes it, and grouped-query heads repeated by
// Reshape, Expand, Reshape: K and V are read with their 2 heads.
// CHECK-LABEL: func.func @additive_mask_gqa
// CHECK: autoglm.attention %arg0, %arg1, %arg2, %arg3 {scale = 2.500000e-01 : f32} : (tensor<1x4x3x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x1x3x5xf32>) -> tensor<1x4x3x8xf32>
// CHECK-NOT: autoglm.expand
func.func @additive_mask_gqa(%q: tensor<1x4x3x8xf32>, %k: tensor<1x2x5x8xf32>, %v: tensor<1x2x5x8xf32>, %mask: tensor<1x1x3x5xf32>) -> tensor<1x4x3x8xf32> {
  %half = autoglm.constant dense<0.5> : tensor<f32>
  %k5 = autoglm.reshape %k : (tensor<1x2x5x8xf32>) -> tensor<1x2x1x5x8xf32>
  %ke = autoglm.expand %k5 {shape = array<i64: 1, 2, 2, 5, 8>} : (tensor<1x2x1x5x8xf32>) -> tensor<1x2x2x5x8xf32>
  %kr = autoglm.reshape %ke : (tensor<1x2x2x5x8xf32>) -> tensor<1x4x5x8xf32>
  %v5 = autoglm.reshape %v : (tensor<1x2x5x8xf32>) -> tensor<1x2x1x5x8xf32>
  %ve = autoglm.expand %v5 {shape = array<i64: 1, 2, 2, 5, 8>} : (tensor<1x2x1x5x8xf32>) -> tensor<1x2x2x5x8xf32>
  %vr = autoglm.reshape %ve : (tensor<1x2x2x5x8xf32>) -> tensor<1x4x5x8xf32>
  %qs = autoglm.mul %q, %half : (tensor<1x4x3x8xf32>, tensor<f32>) -> tensor<1x4x3x8xf32>
  %ks = autoglm.mul %kr, %half : (tensor<1x4x5x8xf32>, tensor<f32>) -> tensor<1x4x5x8xf32>
  %kT = autoglm.transpose %ks {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x4x5x8xf32>) -> tensor<1x4x8x5xf32>
  %s = autoglm.matmul %qs, %kT : (tensor<1x4x3x8xf32>, tensor<1x4x8x5xf32>) -> tensor<1x4x3x5xf32>
  %m = autoglm.add %s, %mask : (tensor<1x4x3x5xf32>, tensor<1x1x3x5xf32>) -> tensor<1x4x3x5xf32>
  %p = autoglm.softmax %m {axis = 3 : i64} : tensor<1x4x3x5xf32>
  %y = autoglm.matmul %p, %vr : (tensor<1x4x3x5xf32>, tensor<1x4x5x8xf32>) -> tensor<1x4x3x8xf32>
  return %y : tensor<1x4x3x8xf32>
}

// -----

// The ONNX Attention importer's spelling: the scale split as sqrt(scale)
// on Q and K, a constant bias added, and the rows the bias leaves with no
// key zeroed after the softmax; all of it is one op.
// CHECK-LABEL: func.func @importer_guard
// CHECK: %[[B:.*]] = autoglm.constant dense<{{.*}}> : tensor<2x3xf32>
// CHECK-NEXT: %[[A:.*]] = autoglm.attention %arg0, %arg1, %arg2, %[[B]] {scale = 2.500000e-01 : f32}
// CHECK-NEXT: return %[[A]]
func.func @importer_guard(%q: tensor<1x2x2x4xf32>, %k: tensor<1x2x3x4xf32>, %v: tensor<1x2x3x4xf32>) -> tensor<1x2x2x4xf32> {
  %zero = autoglm.constant dense<0.0> : tensor<f32>
  %ninf = autoglm.constant dense<0xFF800000> : tensor<f32>
  %root = autoglm.constant dense<0.5> : tensor<f32>
  %bias = autoglm.constant dense<[[0.0, 0xFF800000, 0.0], [0xFF800000, 0xFF800000, 0xFF800000]]> : tensor<2x3xf32>
  %ks = autoglm.mul %k, %root : (tensor<1x2x3x4xf32>, tensor<f32>) -> tensor<1x2x3x4xf32>
  %kT = autoglm.transpose %ks {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x2x3x4xf32>) -> tensor<1x2x4x3xf32>
  %qs = autoglm.mul %q, %root : (tensor<1x2x2x4xf32>, tensor<f32>) -> tensor<1x2x2x4xf32>
  %s = autoglm.matmul %qs, %kT : (tensor<1x2x2x4xf32>, tensor<1x2x4x3xf32>) -> tensor<1x2x2x3xf32>
  %m = autoglm.add %s, %bias : (tensor<1x2x2x3xf32>, tensor<2x3xf32>) -> tensor<1x2x2x3xf32>
  %p = autoglm.softmax %m {axis = 3 : i64} : tensor<1x2x2x3xf32>
  %top = autoglm.reduce_max %bias {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x1xf32>
  %empty = autoglm.equal %top, %ninf : (tensor<2x1xf32>, tensor<f32>) -> tensor<2x1xi1>
  %pz = autoglm.where %empty, %zero, %p : (tensor<2x1xi1>, tensor<f32>, tensor<1x2x2x3xf32>) -> tensor<1x2x2x3xf32>
  %y = autoglm.matmul %pz, %v : (tensor<1x2x2x3xf32>, tensor<1x2x3x4xf32>) -> tensor<1x2x2x4xf32>
  return %y : tensor<1x2x2x4xf32>
}

// -----

// Not recognized: a mask that leaves row 0 with no key (Where would give
// it uniform weights), a fill that does not exclude, softmax over another
// axis.
// CHECK-LABEL: func.func @not_attention
// CHECK-NOT: autoglm.attention
// CHECK-COUNT-3: autoglm.softmax
func.func @not_attention(%q: tensor<1x1x2x4xf32>, %k: tensor<1x1x2x4xf32>, %v: tensor<1x1x2x4xf32>) -> (tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>) {
  %empty_row = autoglm.constant dense<[[false, false], [true, true]]> : tensor<2x2xi1>
  %keep = autoglm.constant dense<[[true, false], [true, true]]> : tensor<2x2xi1>
  %neg = autoglm.constant dense<-1.0e9> : tensor<f32>
  %small = autoglm.constant dense<-1.0> : tensor<f32>
  %kT = autoglm.transpose %k {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x1x2x4xf32>) -> tensor<1x1x4x2xf32>
  %s = autoglm.matmul %q, %kT : (tensor<1x1x2x4xf32>, tensor<1x1x4x2xf32>) -> tensor<1x1x2x2xf32>
  %m1 = autoglm.where %empty_row, %s, %neg : (tensor<2x2xi1>, tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  %p1 = autoglm.softmax %m1 {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %y1 = autoglm.matmul %p1, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %m2 = autoglm.where %keep, %s, %small : (tensor<2x2xi1>, tensor<1x1x2x2xf32>, tensor<f32>) -> tensor<1x1x2x2xf32>
  %p2 = autoglm.softmax %m2 {axis = 3 : i64} : tensor<1x1x2x2xf32>
  %y2 = autoglm.matmul %p2, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  %p3 = autoglm.softmax %s {axis = 2 : i64} : tensor<1x1x2x2xf32>
  %y3 = autoglm.matmul %p3, %v : (tensor<1x1x2x2xf32>, tensor<1x1x2x4xf32>) -> tensor<1x1x2x4xf32>
  return %y1, %y2, %y3 : tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>, tensor<1x1x2x4xf32>
}

// -----

// A decoder compiled for any length: symbolic query and key lengths, K/V
// read from a cache up to its length with their heads repeated for
// grouped-query attention (Reshape, Expand, Reshape with symbolic extents),
// and an additive mask computed at run time. The repeats are read
// unrepeated; the mask is passed as it is.
// CHECK-LABEL: func.func @symbolic_grouped
// CHECK: %[[K:.*]] = tensor.extract_slice %arg1
// CHECK: %[[V:.*]] = tensor.extract_slice %arg2
// CHECK: %[[A:.*]] = autoglm.attention %arg0, %[[K]], %[[V]], %arg3 {scale = 1.250000e-01 : f32} : (tensor<1x4x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x2x?x8xf32>, tensor<1x1x?x?xf32>) -> tensor<1x4x?x8xf32>
// CHECK-NOT: autoglm.expand
// CHECK-NOT: autoglm.softmax
// CHECK: return %[[A]]
func.func @symbolic_grouped(%q: tensor<1x4x?x8xf32>, %kc: tensor<1x2x16x8xf32>, %vc: tensor<1x2x16x8xf32>, %mask: tensor<1x1x?x?xf32>, %len: index) -> tensor<1x4x?x8xf32> {
  %scale = autoglm.constant dense<0.125> : tensor<f32>
  %k = tensor.extract_slice %kc[0, 0, 0, 0] [1, 2, %len, 8] [1, 1, 1, 1] : tensor<1x2x16x8xf32> to tensor<1x2x?x8xf32>
  %v = tensor.extract_slice %vc[0, 0, 0, 0] [1, 2, %len, 8] [1, 1, 1, 1] : tensor<1x2x16x8xf32> to tensor<1x2x?x8xf32>
  %k5 = autoglm.reshape %k[%len] : (tensor<1x2x?x8xf32>) -> tensor<1x2x1x?x8xf32>
  %kx = autoglm.expand %k5[%len] {shape = array<i64: 1, 2, 2, -9223372036854775808, 8>} : (tensor<1x2x1x?x8xf32>) -> tensor<1x2x2x?x8xf32>
  %kr = autoglm.reshape %kx[%len] : (tensor<1x2x2x?x8xf32>) -> tensor<1x4x?x8xf32>
  %v5 = autoglm.reshape %v[%len] : (tensor<1x2x?x8xf32>) -> tensor<1x2x1x?x8xf32>
  %vx = autoglm.expand %v5[%len] {shape = array<i64: 1, 2, 2, -9223372036854775808, 8>} : (tensor<1x2x1x?x8xf32>) -> tensor<1x2x2x?x8xf32>
  %vr = autoglm.reshape %vx[%len] : (tensor<1x2x2x?x8xf32>) -> tensor<1x4x?x8xf32>
  %kT = autoglm.transpose %kr {perm = array<i64: 0, 1, 3, 2>} : (tensor<1x4x?x8xf32>) -> tensor<1x4x8x?xf32>
  %s = autoglm.matmul %q, %kT : (tensor<1x4x?x8xf32>, tensor<1x4x8x?xf32>) -> tensor<1x4x?x?xf32>
  %ss = autoglm.mul %s, %scale : (tensor<1x4x?x?xf32>, tensor<f32>) -> tensor<1x4x?x?xf32>
  %m = autoglm.add %ss, %mask : (tensor<1x4x?x?xf32>, tensor<1x1x?x?xf32>) -> tensor<1x4x?x?xf32>
  %p = autoglm.softmax %m {axis = 3 : i64} : tensor<1x4x?x?xf32>
  %y = autoglm.matmul %p, %vr : (tensor<1x4x?x?xf32>, tensor<1x4x?x8xf32>) -> tensor<1x4x?x8xf32>
  return %y : tensor<1x4x?x8xf32>
}
