// RUN: autoglm-opt %s --split-input-file --autoglm-plan-arena="verify" --verify-diagnostics | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-plan-arena="alignment=4 verify" --verify-diagnostics | FileCheck %s --check-prefix=ALIGN4

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

// -----

// Symbolic extents (batch <= 4, seq <= 10): each slot holds the largest
// buffer, 4 * 10 * 8 * 4 = 1280 bytes for %p and %q and 10 * 8 * 4 = 320 for
// %t, while each view keeps the buffer's actual extents. %q is born after %p
// died and takes its slot; %t, live inside %p's range, is placed after it.
// CHECK-LABEL: func.func @symbolic
// CHECK-SAME: (%[[X:.*]]: memref<?x?x8xf32> {autoglm.dim_symbols = array<i32: 0, 1, -1>}, %{{.*}}: memref<?x?x8xf32> {bufferize.result}, %[[ARENA:.*]]: memref<1600xi8> {autoglm.arena})
// CHECK-SAME: autoglm.arena_buffers = [{bytes = 1280 : i64, live = array<i64: 7, 9>, offset = 0 : i64, producer = ""}, {bytes = 320 : i64, live = array<i64: 8, 8>, offset = 1280 : i64, producer = ""}, {bytes = 1280 : i64, live = array<i64: 11, 12>, offset = 0 : i64, producer = ""}]
// CHECK-SAME: autoglm.arena_lower_bound = 1600 : i64
// CHECK-SAME: autoglm.arena_size = 1600 : i64
// CHECK: %[[B:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x?x8xf32>
// CHECK-NEXT: %[[S:.*]] = memref.dim %[[X]], %{{.*}} : memref<?x?x8xf32>
// CHECK-NEXT: %[[P:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.view %[[ARENA]][%[[P]]][%[[B]], %[[S]]] : memref<1600xi8> to memref<?x?x8xf32>
// CHECK-NEXT: %[[T:.*]] = arith.constant 1280 : index
// CHECK-NEXT: memref.view %[[ARENA]][%[[T]]][%[[S]]] : memref<1600xi8> to memref<?x8xf32>
// CHECK: %[[Q:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.view %[[ARENA]][%[[Q]]][%[[B]], %[[S]]] : memref<1600xi8> to memref<?x?x8xf32>
// CHECK-NOT: memref.dealloc
func.func @symbolic(%x: memref<?x?x8xf32> {autoglm.dim_symbols = array<i32: 0, 1, -1>},
                    %y: memref<?x?x8xf32> {bufferize.result})
    attributes {autoglm.symbols = [{max = 4 : i64, min = 1 : i64, name = "batch"},
                                   {max = 10 : i64, min = 1 : i64, name = "seq"}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %b = memref.dim %x, %c0 : memref<?x?x8xf32>
  %s = memref.dim %x, %c1 : memref<?x?x8xf32>
  %p = memref.alloc(%b, %s) : memref<?x?x8xf32>
  %t = memref.alloc(%s) : memref<?x8xf32>
  linalg.copy ins(%x : memref<?x?x8xf32>) outs(%p : memref<?x?x8xf32>)
  linalg.fill ins(%zero : f32) outs(%t : memref<?x8xf32>)
  linalg.copy ins(%p : memref<?x?x8xf32>) outs(%y : memref<?x?x8xf32>)
  %q = memref.alloc(%b, %s) : memref<?x?x8xf32>
  linalg.copy ins(%y : memref<?x?x8xf32>) outs(%q : memref<?x?x8xf32>)
  linalg.copy ins(%q : memref<?x?x8xf32>) outs(%y : memref<?x?x8xf32>)
  memref.dealloc %q : memref<?x?x8xf32>
  return
}

// -----

// Sizes computed from the extents are bounded by interval arithmetic over
// batch in [1, 4] and seq in [2, 10]: (batch * seq) / 3 <= 13 elements
// (52 bytes), seq * 2 + batch ceildiv 3 <= 22 (88 bytes), seq - 1 <= 9
// (36 bytes). All three are live at one op. With the default alignment the
// slots are 64, 128 and 64 bytes; with alignment 4 the exact sizes.
// CHECK-LABEL: func.func @bounded_arithmetic
// CHECK-SAME: memref<256xi8> {autoglm.arena}
// CHECK-SAME: autoglm.arena_buffers = [{bytes = 64 : i64, live = array<i64: 12, 14>, offset = 128 : i64, producer = ""}, {bytes = 128 : i64, live = array<i64: 13, 13>, offset = 0 : i64, producer = ""}, {bytes = 64 : i64, live = array<i64: 13, 14>, offset = 192 : i64, producer = ""}]
// CHECK-SAME: autoglm.arena_lower_bound = 256 : i64
// CHECK-SAME: autoglm.arena_size = 256 : i64
// ALIGN4-LABEL: func.func @bounded_arithmetic
// ALIGN4-SAME: memref<176xi8> {autoglm.arena}
// ALIGN4-SAME: autoglm.arena_buffers = [{bytes = 52 : i64, live = array<i64: 12, 14>, offset = 88 : i64, producer = ""}, {bytes = 88 : i64, live = array<i64: 13, 13>, offset = 0 : i64, producer = ""}, {bytes = 36 : i64, live = array<i64: 13, 14>, offset = 140 : i64, producer = ""}]
// ALIGN4-SAME: autoglm.arena_lower_bound = 176 : i64
// ALIGN4-SAME: autoglm.arena_size = 176 : i64
// ALIGN4: %[[M:.*]] = arith.divsi
// ALIGN4: memref.view %{{.*}}[%{{.*}}][%[[M]]] : memref<176xi8> to memref<?xf32>
// ALIGN4: %[[K:.*]] = affine.apply
// ALIGN4: memref.view %{{.*}}[%{{.*}}][%[[K]]] : memref<176xi8> to memref<?xf32>
// ALIGN4: %[[L:.*]] = arith.subi
// ALIGN4: memref.view %{{.*}}[%{{.*}}][%[[L]]] : memref<176xi8> to memref<?xf32>
func.func @bounded_arithmetic(%x: memref<?x?xf32> {autoglm.dim_symbols = array<i32: 0, 1>},
                              %y: memref<?xf32> {bufferize.result})
    attributes {autoglm.symbols = [{max = 4 : i64, min = 1 : i64, name = "batch"},
                                   {max = 10 : i64, min = 2 : i64, name = "seq"}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %b = memref.dim %x, %c0 : memref<?x?xf32>
  %s = memref.dim %x, %c1 : memref<?x?xf32>
  %n = arith.muli %b, %s : index
  %m = arith.divsi %n, %c3 : index
  %a = memref.alloc(%m) : memref<?xf32>
  %k = affine.apply affine_map<(d0)[s0] -> (d0 * 2 + s0 ceildiv 3)>(%s)[%b]
  %c = memref.alloc(%k) : memref<?xf32>
  %l = arith.subi %s, %c1 : index
  %d = memref.alloc(%l) : memref<?xf32>
  linalg.copy ins(%a : memref<?xf32>) outs(%y : memref<?xf32>)
  linalg.copy ins(%c : memref<?xf32>) outs(%d : memref<?xf32>)
  linalg.copy ins(%d : memref<?xf32>) outs(%a : memref<?xf32>)
  return
}

// -----

// A select whose condition the bounds decide takes that branch: a slice
// bound that cannot be negative is not widened by its "from the end" case.
// CHECK-LABEL: func.func @decided_select
// CHECK-SAME: autoglm.arena_buffers = [{bytes = 64 : i64
func.func @decided_select(%x: memref<?xf32> {autoglm.dim_symbols = array<i32: 0>})
    attributes {autoglm.symbols = [{name = "n", min = 1 : i64, max = 16 : i64}]} {
  %c0 = arith.constant 0 : index
  %c1000 = arith.constant 1000 : index
  %n = memref.dim %x, %c0 : memref<?xf32>
  %neg = arith.cmpi slt, %n, %c0 : index
  %wide = arith.addi %n, %c1000 : index
  %size = arith.select %neg, %wide, %n : index
  %a = memref.alloc(%size) : memref<?xf32>
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%a : memref<?xf32>)
  return
}

// -----

// Model state goes first in the arena, where no buffer of a run goes, so
// that it persists from run to run; the run's buffers follow it and the
// state arguments leave the signature.
// CHECK-LABEL: func.func @state_first
// CHECK-SAME: (%[[X:.*]]: memref<16xf32>, %[[ARENA:.*]]: memref<256xi8> {autoglm.arena})
// CHECK-SAME: autoglm.arena_lower_bound = 256
// CHECK-SAME: autoglm.arena_size = 256
// CHECK-SAME: autoglm.state_offsets = [{bytes = 8 : i64, kind = "length", name = "len", offset = 0 : i64}, {bytes = 128 : i64, kind = "cache", name = "cache", offset = 64 : i64}]
// CHECK-DAG: memref.view %[[ARENA]][%c0{{.*}}][] : memref<256xi8> to memref<1xi64>
// CHECK-DAG: memref.view %[[ARENA]][%c64{{.*}}][] : memref<256xi8> to memref<8x4xf32>
// CHECK-DAG: memref.view %[[ARENA]][%c192{{.*}}][] : memref<256xi8> to memref<16xf32>
func.func @state_first(%x: memref<16xf32>,
                       %len: memref<1xi64> {autoglm.name = "len", autoglm.state = "length"},
                       %cache: memref<8x4xf32> {autoglm.name = "cache", autoglm.state = "cache"}) {
  %c0 = arith.constant 0 : index
  %tmp = memref.alloc() : memref<16xf32>
  linalg.copy ins(%x : memref<16xf32>) outs(%tmp : memref<16xf32>)
  %n = memref.load %len[%c0] : memref<1xi64>
  %f = arith.sitofp %n : i64 to f32
  memref.store %f, %cache[%c0, %c0] : memref<8x4xf32>
  linalg.copy ins(%tmp : memref<16xf32>) outs(%x : memref<16xf32>)
  return
}

// -----

// A kernel call made before planning reads %a through its address, taken
// before %b is first written: %a is live until the call, so the two do not
// share memory.
// CHECK-LABEL: func.func @address_used_by_a_call
// CHECK-SAME: autoglm.arena_size = 128 : i64
func.func private @kernel(index, index)
func.func @address_used_by_a_call(%in: memref<16xf32>, %out: memref<16xf32>) {
  %a = memref.alloc() : memref<16xf32>
  memref.copy %in, %a : memref<16xf32> to memref<16xf32>
  %pa = memref.extract_aligned_pointer_as_index %a : memref<16xf32> -> index
  %b = memref.alloc() : memref<16xf32>
  memref.copy %in, %b : memref<16xf32> to memref<16xf32>
  %pb = memref.extract_aligned_pointer_as_index %b : memref<16xf32> -> index
  func.call @kernel(%pa, %pb) : (index, index) -> ()
  memref.copy %b, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// A buffer's extents are no use of its contents: %a's size, read from its
// metadata and used after %b is written, does not keep %a live, so the two
// share memory.
// CHECK-LABEL: func.func @extents_are_no_use
// CHECK-SAME: autoglm.arena_size = 64 : i64
func.func @extents_are_no_use(%in: memref<16xf32>, %out: memref<16xf32>, %at: memref<1xindex>) {
  %c0 = arith.constant 0 : index
  %a = memref.alloc() : memref<16xf32>
  memref.copy %in, %a : memref<16xf32> to memref<16xf32>
  %base, %offset, %size, %stride = memref.extract_strided_metadata %a : memref<16xf32> -> memref<f32>, index, index, index
  memref.copy %a, %out : memref<16xf32> to memref<16xf32>
  %b = memref.alloc() : memref<16xf32>
  memref.copy %in, %b : memref<16xf32> to memref<16xf32>
  memref.copy %b, %out : memref<16xf32> to memref<16xf32>
  memref.store %size, %at[%c0] : memref<1xindex>
  return
}
