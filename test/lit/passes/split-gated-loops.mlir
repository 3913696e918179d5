// RUN: autoglm-opt %s --split-input-file --autoglm-split-gated-loops | FileCheck %s

// SwiGLU after two int8 products: the loop reads both products' int32 sums.
// The gate's factor (its dequantization and SiLU, the marked activation)
// moves into a loop right after the gate's product, writing a float buffer;
// the loop left reads that buffer and the up product's sums, and quantizes.
// CHECK-LABEL: func.func @swiglu_int8
// CHECK-SAME: %{{.*}}: memref<4x8xi8>, %{{.*}}: memref<8x16xi8>, %{{.*}}: memref<8x16xi8>, %[[SG:[^:]*]]: memref<16xf32>, %[[SU:[^:]*]]: memref<16xf32>, %[[OUT:[^:]*]]: memref<4x16xi8>
// CHECK: linalg.generic {{.*}} outs(%[[GSUMS:[^ ]*]] : memref<4x16xi32>)
// CHECK: %[[GATE:.*]] = memref.alloc() {alignment = 64 : i64} : memref<4x16xf32>
// CHECK: linalg.generic {{.*}} ins(%[[SG]], %[[GSUMS]] : memref<16xf32>, memref<4x16xi32>) outs(%[[GATE]] : memref<4x16xf32>)
// CHECK: arith.mulf {{.*}} {autoglm.activation = "silu"}
// CHECK: linalg.generic {{.*}} outs(%[[USUMS:[^ ]*]] : memref<4x16xi32>)
// CHECK: linalg.generic {{.*}} ins(%[[USUMS]], %[[SU]], %[[GATE]] : memref<4x16xi32>, memref<16xf32>, memref<4x16xf32>) outs(%[[OUT]] : memref<4x16xi8>)
// CHECK-NOT: autoglm.activation
// CHECK: arith.fptoui
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
#col = affine_map<(m, n) -> (n)>
func.func @swiglu_int8(%a: memref<4x8xi8>, %wg: memref<8x16xi8>, %wu: memref<8x16xi8>, %sg: memref<16xf32>, %su: memref<16xf32>, %out: memref<4x16xi8>) {
  %c0 = arith.constant 0 : i32
  %g = memref.alloc() {alignment = 64 : i64} : memref<4x16xi32>
  linalg.fill ins(%c0 : i32) outs(%g : memref<4x16xi32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %wg : memref<4x8xi8>, memref<8x16xi8>) outs(%g : memref<4x16xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  %u = memref.alloc() {alignment = 64 : i64} : memref<4x16xi32>
  linalg.fill ins(%c0 : i32) outs(%u : memref<4x16xi32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %wu : memref<4x8xi8>, memref<8x16xi8>) outs(%u : memref<4x16xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#id, #col, #id, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%g, %sg, %u, %su : memref<4x16xi32>, memref<16xf32>, memref<4x16xi32>, memref<16xf32>) outs(%out : memref<4x16xi8>) {
  ^bb0(%gi: i32, %gs: f32, %ui: i32, %us: f32, %o: i8):
    %one = arith.constant 1.0 : f32
    %scale = arith.constant 0.05 : f32
    %zp = arith.constant 128.0 : f32
    %lo = arith.constant 0.0 : f32
    %hi = arith.constant 255.0 : f32
    %gf = arith.sitofp %gi : i32 to f32
    %gx = arith.mulf %gf, %gs {autoglm.activation_input} : f32
    %uf = arith.sitofp %ui : i32 to f32
    %ux = arith.mulf %uf, %us : f32
    %n = arith.negf %gx : f32
    %e = math.exp %n : f32
    %d = arith.addf %e, %one : f32
    %sig = arith.divf %one, %d : f32
    %silu = arith.mulf %gx, %sig {autoglm.activation = "silu"} : f32
    %y = arith.mulf %silu, %ux : f32
    %q = arith.divf %y, %scale : f32
    %r = math.roundeven %q : f32
    %z = arith.addf %r, %zp : f32
    %c = arith.maximumf %z, %lo : f32
    %c2 = arith.minimumf %c, %hi : f32
    %b = arith.fptoui %c2 : f32 to i8
    linalg.yield %b : i8
  }
  return
}

// -----

// Left as they are: a factor whose sums are written again after their
// product (the fill); a loop that is not the op right after a product
// (the last one, whose gate is a float buffer anyway: the later product's
// call would take it as it is).
// CHECK-LABEL: func.func @not_split
// CHECK-NOT: memref.alloc
// CHECK-COUNT-4: linalg.generic
// CHECK-NOT: linalg.generic
#mk = affine_map<(m, k, n) -> (m, k)>
#kn = affine_map<(m, k, n) -> (k, n)>
#mn = affine_map<(m, k, n) -> (m, n)>
#id = affine_map<(m, n) -> (m, n)>
func.func @not_split(%a: memref<4x8xi8>, %w: memref<8x16xi8>, %g: memref<4x16xi32>, %u: memref<4x16xi32>, %gf32: memref<4x16xf32>, %out: memref<4x16xf32>) {
  %c0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  // The gate's sums %g are written again after its product (the fill).
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<4x8xi8>, memref<8x16xi8>) outs(%g : memref<4x16xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.fill ins(%one : i32) outs(%g : memref<4x16xi32>)
  linalg.generic {indexing_maps = [#mk, #kn, #mn], iterator_types = ["parallel", "reduction", "parallel"]} ins(%a, %w : memref<4x8xi8>, memref<8x16xi8>) outs(%u : memref<4x16xi32>) {
  ^bb0(%x: i8, %y: i8, %acc: i32):
    %xe = arith.extui %x : i8 to i32
    %ye = arith.extsi %y : i8 to i32
    %p = arith.muli %xe, %ye : i32
    %s = arith.addi %acc, %p : i32
    linalg.yield %s : i32
  }
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%g, %u : memref<4x16xi32>, memref<4x16xi32>) outs(%out : memref<4x16xf32>) {
  ^bb0(%gi: i32, %ui: i32, %o: f32):
    %gx = arith.sitofp %gi : i32 to f32
    %ux = arith.sitofp %ui : i32 to f32
    %n = arith.negf %gx : f32
    %y = arith.mulf %n, %ux : f32
    linalg.yield %y : f32
  }
  // A float gate.
  linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%gf32, %u : memref<4x16xf32>, memref<4x16xi32>) outs(%out : memref<4x16xf32>) {
  ^bb0(%gx: f32, %ui: i32, %o: f32):
    %ux = arith.sitofp %ui : i32 to f32
    %n = arith.negf %gx : f32
    %y = arith.mulf %n, %ux : f32
    linalg.yield %y : f32
  }
  return
}
