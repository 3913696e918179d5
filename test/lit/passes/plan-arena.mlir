// RUN: autoglm-opt %s --split-input-file --autoglm-plan-arena="verify" --verify-diagnostics | FileCheck %s

// Buffers live at the same time get disjoint, 64-byte-aligned slots; the
// function gains the arena argument and allocates nothing.
// CHECK-LABEL: func.func @live_together
// CHECK-SAME: (%[[IN:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>, %[[ARENA:.*]]: memref<128xi8> {autoglm.arena})
// CHECK-SAME: autoglm.arena_lower_bound = 128 : i64
// CHECK-SAME: autoglm.arena_size = 128 : i64
// CHECK-NOT: memref.alloc
// CHECK-DAG: memref.view %[[ARENA]][%{{.*}}][] : memref<128xi8> to memref<4xf32>
// CHECK-DAG: memref.view %[[ARENA]][%{{.*}}][] : memref<128xi8> to memref<4xf32>
// CHECK-NOT: memref.dealloc
func.func @live_together(%in: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %in, %a : memref<4xf32> to memref<4xf32>
  memref.copy %in, %b : memref<4xf32> to memref<4xf32>
  linalg.add ins(%a, %b : memref<4xf32>, memref<4xf32>) outs(%out : memref<4xf32>)
  memref.dealloc %a : memref<4xf32>
  return
}

// -----

// %a dies before %b is first written: reuse is legal, both take offset 0.
// CHECK-LABEL: func.func @reuse_after_death
// CHECK-SAME: memref<64xi8> {autoglm.arena}
// CHECK-SAME: autoglm.arena_lower_bound = 64 : i64
// CHECK-SAME: autoglm.arena_size = 64 : i64
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[C0]]][] : memref<64xi8> to memref<4xf32>
// CHECK: %[[C0B:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[C0B]]][] : memref<64xi8> to memref<4xf32>
func.func @reuse_after_death(%in: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %in, %a : memref<4xf32> to memref<4xf32>
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  memref.copy %out, %b : memref<4xf32> to memref<4xf32>
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// An op that reads %a and writes %b keeps both live: no reuse, even though
// %a is never used afterwards. Uses through views count.
// CHECK-LABEL: func.func @read_and_write_same_op
// CHECK-SAME: autoglm.arena_size = 128 : i64
func.func @read_and_write_same_op(%in: memref<2x2xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<2x2xf32>
  %b = memref.alloc() : memref<4xf32>
  memref.copy %in, %a : memref<2x2xf32> to memref<2x2xf32>
  %flat = memref.collapse_shape %a [[0, 1]] : memref<2x2xf32> into memref<4xf32>
  memref.copy %flat, %b : memref<4xf32> to memref<4xf32>
  memref.copy %b, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// %r is born after %p died: it takes %p's slot while %q, live with both,
// keeps its own. The plan meets the lower bound.
// CHECK-LABEL: func.func @reuse_slot
// CHECK-SAME: autoglm.arena_lower_bound = 320 : i64
// CHECK-SAME: autoglm.arena_size = 320 : i64
// CHECK: %[[P:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[P]]][] : memref<320xi8> to memref<32xf32>
// CHECK: %[[Q:.*]] = arith.constant 128 : index
// CHECK: memref.view %{{.*}}[%[[Q]]][] : memref<320xi8> to memref<32xf32>
// CHECK: %[[U:.*]] = arith.constant 256 : index
// CHECK: memref.view %{{.*}}[%[[U]]][] : memref<320xi8> to memref<16xf32>
// CHECK: %[[R:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[R]]][] : memref<320xi8> to memref<32xf32>
func.func @reuse_slot(%in: memref<32xf32>, %small: memref<16xf32>, %out: memref<32xf32>) {
  %p = memref.alloc() : memref<32xf32>
  %q = memref.alloc() : memref<32xf32>
  %u = memref.alloc() : memref<16xf32>
  %r = memref.alloc() : memref<32xf32>
  memref.copy %in, %p : memref<32xf32> to memref<32xf32>
  memref.copy %in, %q : memref<32xf32> to memref<32xf32>
  memref.copy %small, %u : memref<16xf32> to memref<16xf32>
  linalg.add ins(%p, %q : memref<32xf32>, memref<32xf32>) outs(%out : memref<32xf32>)
  memref.copy %in, %r : memref<32xf32> to memref<32xf32>
  linalg.add ins(%r, %q : memref<32xf32>, memref<32xf32>) outs(%out : memref<32xf32>)
  memref.copy %u, %small : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Without intermediates the arena is empty.
// CHECK-LABEL: func.func @no_buffers
// CHECK-SAME: memref<0xi8> {autoglm.arena}
// CHECK-SAME: autoglm.arena_size = 0 : i64
func.func @no_buffers(%in: memref<4xf32>, %out: memref<4xf32>) {
  memref.copy %in, %out : memref<4xf32> to memref<4xf32>
  return
}

// -----

// Buffers whose size has no bound cannot be planned.
func.func @dynamic(%n: index) {
  // expected-error @+1 {{has no size bounded by the declared symbol ranges; it cannot be placed in the arena}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}
