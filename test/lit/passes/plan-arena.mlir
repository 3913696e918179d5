// RUN: autoglm-opt %s --split-input-file --autoglm-plan-arena --verify-diagnostics | FileCheck %s

// Two buffers are placed one after another at 64-byte-aligned offsets; the
// function gains the arena argument and allocates nothing.
// CHECK-LABEL: func.func @two_buffers
// CHECK-SAME: (%[[IN:.*]]: memref<4xf32>, %[[OUT:.*]]: memref<4xf32>, %[[ARENA:.*]]: memref<128xi8> {autoglm.arena})
// CHECK-SAME: autoglm.arena_size = 128 : i64
// CHECK-NOT: memref.alloc
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: memref.view %[[ARENA]][%[[C0]]][] : memref<128xi8> to memref<4xf32>
// CHECK: %[[C64:.*]] = arith.constant 64 : index
// CHECK: memref.view %[[ARENA]][%[[C64]]][] : memref<128xi8> to memref<3xi64>
// CHECK-NOT: memref.dealloc
func.func @two_buffers(%in: memref<4xf32>, %out: memref<4xf32>) {
  %a = memref.alloc() : memref<4xf32>
  %b = memref.alloc() : memref<3xi64>
  memref.copy %in, %a : memref<4xf32> to memref<4xf32>
  memref.copy %a, %out : memref<4xf32> to memref<4xf32>
  memref.dealloc %b : memref<3xi64>
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

// Buffers without a static size cannot be planned.
func.func @dynamic(%n: index) {
  // expected-error @+1 {{has no static size; it cannot be placed in the arena}}
  %a = memref.alloc(%n) : memref<?xf32>
  return
}
