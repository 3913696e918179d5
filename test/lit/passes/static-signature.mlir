// RUN: autoglm-opt %s --split-input-file --autoglm-static-signature --verify-diagnostics | FileCheck %s

// A symbolic input becomes the flat buffer of its largest size (4 * 16 * 8
// elements), viewed with the extents read from the symbol values; a symbolic
// output is viewed at the copy that writes it, with the extents of what is
// copied, and those extents are stored in output_dims (positions 0..2); a
// static output stores its constant extents after it (positions 3, 4). The
// two trailing arguments hold one i64 per symbol and one per output extent.
// CHECK-LABEL: func.func @symbolic_in_out
// CHECK-SAME: (%[[X:.*]]: memref<512xf32> {autoglm.dim_symbols = array<i32: 0, 1, -1>},
// CHECK-SAME: %[[Y:.*]]: memref<512xf32> {bufferize.result},
// CHECK-SAME: %[[Z:.*]]: memref<2x3xf32> {bufferize.result},
// CHECK-SAME: %[[SYMS:.*]]: memref<2xi64> {autoglm.symbol_values},
// CHECK-SAME: %[[DIMS:.*]]: memref<5xi64> {autoglm.output_dims})
// CHECK-SAME: autoglm.output_max_shapes = [array<i64: 4, 16, 8>, array<i64: 2, 3>]
// CHECK: %[[I0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[S0:.*]] = memref.load %[[SYMS]][%[[I0]]] : memref<2xi64>
// CHECK-NEXT: %[[BATCH:.*]] = arith.index_cast %[[S0]] : i64 to index
// CHECK-NEXT: %[[I1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[S1:.*]] = memref.load %[[SYMS]][%[[I1]]] : memref<2xi64>
// CHECK-NEXT: %[[SEQ:.*]] = arith.index_cast %[[S1]] : i64 to index
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK-NEXT: %[[STRIDE0:.*]] = arith.muli %[[C8]], %[[SEQ]] : index
// CHECK: %[[XV:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [%[[BATCH]], %[[SEQ]], 8], strides: [%[[STRIDE0]], 8, 1] : memref<512xf32> to memref<?x?x8xf32>
// The input's uses now read the view.
// CHECK: memref.dim %[[XV]], %{{.*}} : memref<?x?x8xf32>
// CHECK: %[[T:.*]] = memref.alloc(%{{.*}}, %{{.*}}) : memref<?x?x8xf32>
// CHECK-NEXT: linalg.copy ins(%[[XV]] : memref<?x?x8xf32>) outs(%[[T]] : memref<?x?x8xf32>)
// CHECK: %[[P0:.*]] = arith.constant 0 : index
// CHECK-NEXT: %[[E0:.*]] = memref.dim %[[T]], %[[P0]] : memref<?x?x8xf32>
// CHECK-NEXT: %[[W0:.*]] = arith.index_cast %[[E0]] : index to i64
// CHECK-NEXT: %[[Q0:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[W0]], %[[DIMS]][%[[Q0]]] : memref<5xi64>
// CHECK-NEXT: %[[P1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[E1:.*]] = memref.dim %[[T]], %[[P1]] : memref<?x?x8xf32>
// CHECK-NEXT: %[[W1:.*]] = arith.index_cast %[[E1]] : index to i64
// CHECK-NEXT: %[[Q1:.*]] = arith.constant 1 : index
// CHECK-NEXT: memref.store %[[W1]], %[[DIMS]][%[[Q1]]] : memref<5xi64>
// CHECK-NEXT: %[[P2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[E2:.*]] = memref.dim %[[T]], %[[P2]] : memref<?x?x8xf32>
// CHECK-NEXT: %[[W2:.*]] = arith.index_cast %[[E2]] : index to i64
// CHECK-NEXT: %[[Q2:.*]] = arith.constant 2 : index
// CHECK-NEXT: memref.store %[[W2]], %[[DIMS]][%[[Q2]]] : memref<5xi64>
// CHECK: %[[YSTRIDE:.*]] = arith.muli %{{.*}}, %[[E1]] : index
// CHECK: %[[YV:.*]] = memref.reinterpret_cast %[[Y]] to offset: [0], sizes: [%[[E0]], %[[E1]], 8], strides: [%[[YSTRIDE]], 8, 1] : memref<512xf32> to memref<?x?x8xf32>
// CHECK-NEXT: linalg.copy ins(%[[T]] : memref<?x?x8xf32>) outs(%[[YV]] : memref<?x?x8xf32>)
// CHECK-NEXT: %[[C2:.*]] = arith.constant 2 : index
// CHECK-NEXT: %[[W3:.*]] = arith.index_cast %[[C2]] : index to i64
// CHECK-NEXT: %[[Q3:.*]] = arith.constant 3 : index
// CHECK-NEXT: memref.store %[[W3]], %[[DIMS]][%[[Q3]]] : memref<5xi64>
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[W4:.*]] = arith.index_cast %[[C3]] : index to i64
// CHECK-NEXT: %[[Q4:.*]] = arith.constant 4 : index
// CHECK-NEXT: memref.store %[[W4]], %[[DIMS]][%[[Q4]]] : memref<5xi64>
// CHECK-NEXT: return
func.func @symbolic_in_out(%x: memref<?x?x8xf32> {autoglm.dim_symbols = array<i32: 0, 1, -1>},
                           %y: memref<?x?x8xf32> {bufferize.result},
                           %z: memref<2x3xf32> {bufferize.result})
    attributes {autoglm.symbols = [{max = 4 : i64, min = 1 : i64, name = "batch"},
                                   {max = 16 : i64, min = 2 : i64, name = "seq"}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %x, %c0 : memref<?x?x8xf32>
  %d1 = memref.dim %x, %c1 : memref<?x?x8xf32>
  %t = memref.alloc(%d0, %d1) : memref<?x?x8xf32>
  linalg.copy ins(%x : memref<?x?x8xf32>) outs(%t : memref<?x?x8xf32>)
  linalg.copy ins(%t : memref<?x?x8xf32>) outs(%y : memref<?x?x8xf32>)
  return
}

// -----

// The output's largest shape comes from the arithmetic on the extents
// (2 * seq <= 32): 32 x 4 elements. Static inputs keep their type; the
// symbol is used only through the input's view.
// CHECK-LABEL: func.func @computed_extent
// CHECK-SAME: (%[[X:.*]]: memref<64xf32> {autoglm.dim_symbols = array<i32: 0, -1>},
// CHECK-SAME: %{{.*}}: memref<3xf32>,
// CHECK-SAME: %[[Y:.*]]: memref<128xf32> {bufferize.result},
// CHECK-SAME: %{{.*}}: memref<1xi64> {autoglm.symbol_values},
// CHECK-SAME: %[[DIMS:.*]]: memref<2xi64> {autoglm.output_dims})
// CHECK-SAME: autoglm.output_max_shapes = [array<i64: 32, 4>]
// CHECK: memref.reinterpret_cast %[[X]] to offset: [0], sizes: [%{{.*}}, 4], strides: [4, 1] : memref<64xf32> to memref<?x4xf32>
// CHECK: %[[T:.*]] = memref.alloc(%{{.*}}) : memref<?x4xf32>
// CHECK: %[[E0:.*]] = memref.dim %[[T]], %{{.*}} : memref<?x4xf32>
// CHECK: memref.store %{{.*}}, %[[DIMS]][%{{.*}}] : memref<2xi64>
// CHECK: memref.store %{{.*}}, %[[DIMS]][%{{.*}}] : memref<2xi64>
// CHECK: %[[YV:.*]] = memref.reinterpret_cast %[[Y]] to offset: [0], sizes: [%[[E0]], 4], strides: [4, 1] : memref<128xf32> to memref<?x4xf32>
// CHECK-NEXT: linalg.copy ins(%[[T]] : memref<?x4xf32>) outs(%[[YV]] : memref<?x4xf32>)
func.func @computed_extent(%x: memref<?x4xf32> {autoglm.dim_symbols = array<i32: 0, -1>},
                           %w: memref<3xf32>,
                           %y: memref<?x4xf32> {bufferize.result})
    attributes {autoglm.symbols = [{max = 16 : i64, min = 2 : i64, name = "seq"}]} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %d0 = memref.dim %x, %c0 : memref<?x4xf32>
  %n = arith.muli %d0, %c2 : index
  %t = memref.alloc(%n) : memref<?x4xf32>
  linalg.copy ins(%t : memref<?x4xf32>) outs(%y : memref<?x4xf32>)
  return
}

// -----

// A static model still gets both trailing arguments: no symbols, and the
// output's constant extents.
// CHECK-LABEL: func.func @static_model
// CHECK-SAME: (%[[X:.*]]: memref<3xf32>, %[[Y:.*]]: memref<3xf32> {bufferize.result},
// CHECK-SAME: %{{.*}}: memref<0xi64> {autoglm.symbol_values}, %[[DIMS:.*]]: memref<1xi64> {autoglm.output_dims})
// CHECK-SAME: autoglm.output_max_shapes = [array<i64: 3>]
// CHECK-NEXT: linalg.copy ins(%[[X]] : memref<3xf32>) outs(%[[Y]] : memref<3xf32>)
// CHECK-NEXT: %[[C3:.*]] = arith.constant 3 : index
// CHECK-NEXT: %[[W:.*]] = arith.index_cast %[[C3]] : index to i64
// CHECK-NEXT: %[[Q:.*]] = arith.constant 0 : index
// CHECK-NEXT: memref.store %[[W]], %[[DIMS]][%[[Q]]] : memref<1xi64>
// CHECK-NEXT: return
func.func @static_model(%x: memref<3xf32>, %y: memref<3xf32> {bufferize.result}) {
  linalg.copy ins(%x : memref<3xf32>) outs(%y : memref<3xf32>)
  return
}

// -----

// A symbolic output must be written by exactly one copy into it.
// expected-error @+1 {{output 1 has symbolic extents but is not written by one copy}}
func.func @two_writers(%x: memref<?xf32> {autoglm.dim_symbols = array<i32: 0>},
                       %y: memref<?xf32> {bufferize.result})
    attributes {autoglm.symbols = [{max = 8 : i64, min = 1 : i64, name = "n"}]} {
  linalg.copy ins(%x : memref<?xf32>) outs(%y : memref<?xf32>)
  linalg.copy ins(%x : memref<?xf32>) outs(%y : memref<?xf32>)
  return
}

// -----

// expected-error @+1 {{output 1 has symbolic extents but is not written by one copy}}
func.func @computed_in_place(%x: memref<?xf32> {autoglm.dim_symbols = array<i32: 0>},
                             %y: memref<?xf32> {bufferize.result})
    attributes {autoglm.symbols = [{max = 8 : i64, min = 1 : i64, name = "n"}]} {
  linalg.exp ins(%x : memref<?xf32>) outs(%y : memref<?xf32>)
  return
}

// -----

// One copy, but it reads the output rather than writing it.
// expected-error @+1 {{output 1 has symbolic extents but is not written by one copy}}
func.func @read_by_copy(%x: memref<?xf32> {autoglm.dim_symbols = array<i32: 0>},
                        %y: memref<?xf32> {bufferize.result})
    attributes {autoglm.symbols = [{max = 8 : i64, min = 1 : i64, name = "n"}]} {
  linalg.copy ins(%y : memref<?xf32>) outs(%x : memref<?xf32>)
  return
}

// -----

// An extent read from tensor data has no bound.
func.func @unbounded(%n: memref<1xindex>, %y: memref<?xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %len = memref.load %n[%c0] : memref<1xindex>
  %t = memref.alloc(%len) : memref<?xf32>
  // expected-error @+1 {{the extents of this output cannot be bounded from the declared symbol ranges}}
  linalg.copy ins(%t : memref<?xf32>) outs(%y : memref<?xf32>)
  return
}

// -----

// A symbolic input needs the symbol of each extent and its range.
// expected-error @+1 {{input 0 has a symbolic extent without a declared range}}
func.func @no_dim_symbols(%x: memref<?xf32>, %y: memref<4xf32> {bufferize.result}) {
  return
}

// -----

// expected-error @+1 {{input 0 has a symbolic extent without a declared range}}
func.func @symbol_out_of_range(%x: memref<?xf32> {autoglm.dim_symbols = array<i32: 1>},
                               %y: memref<4xf32> {bufferize.result})
    attributes {autoglm.symbols = [{max = 8 : i64, min = 1 : i64, name = "n"}]} {
  return
}

// -----

// The result is computed in an arena view of its own and copied into the
// output last: it is computed in the output instead (a view of it with the
// arena view's extents, made right after it), and the copy goes.
// CHECK-LABEL: func.func @result_in_the_output
// CHECK-SAME: %[[Y:[a-z0-9]+]]: memref<512xf32> {bufferize.result}
// CHECK: %[[T:.*]] = memref.view %arg2[%{{.*}}][%[[B:.*]], %[[S:.*]]] : memref<4096xi8> to memref<?x?x8xf32>
// CHECK: %[[YV:.*]] = memref.reinterpret_cast %[[Y]] to offset: [0], sizes: [%[[B]], %[[S]], 8]
// CHECK-NEXT: linalg.copy ins(%{{.*}} : memref<?x?x8xf32>) outs(%[[YV]] : memref<?x?x8xf32>)
// CHECK-NOT: linalg.copy
// CHECK: %[[WB:.*]] = arith.index_cast %[[B]] : index to i64
// CHECK: memref.store %[[WB]], %{{.*}}[%{{.*}}] : memref<3xi64>
// CHECK: %[[WS:.*]] = arith.index_cast %[[S]] : index to i64
// CHECK: memref.store %[[WS]]
// CHECK: return
func.func @result_in_the_output(%x: memref<?x?x8xf32> {autoglm.dim_symbols = array<i32: 0, 1, -1>},
                                %y: memref<?x?x8xf32> {bufferize.result},
                                %arena: memref<4096xi8> {autoglm.arena})
    attributes {autoglm.symbols = [{max = 4 : i64, min = 1 : i64, name = "batch"},
                                   {max = 16 : i64, min = 2 : i64, name = "seq"}]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %d0 = memref.dim %x, %c0 : memref<?x?x8xf32>
  %d1 = memref.dim %x, %c1 : memref<?x?x8xf32>
  %t = memref.view %arena[%c0][%d0, %d1] : memref<4096xi8> to memref<?x?x8xf32>
  linalg.copy ins(%x : memref<?x?x8xf32>) outs(%t : memref<?x?x8xf32>)
  linalg.copy ins(%t : memref<?x?x8xf32>) outs(%y : memref<?x?x8xf32>)
  return
}

// -----

// A value read from a symbol slot (a GPU model's KV cache length, after the
// one symbol) leaves the signature: its load reads element 1 of the symbol
// values, which hold two values.
// CHECK-LABEL: func.func @length_after_the_symbols
// CHECK-SAME: (%[[X:[a-z0-9]+]]: memref<8xf32> {autoglm.dim_symbols = array<i32: 0>},
// CHECK-SAME: %[[Y:[a-z0-9]+]]: memref<4xf32> {bufferize.result},
// CHECK-SAME: %[[SYMS:[a-z0-9]+]]: memref<2xi64> {autoglm.symbol_values},
// CHECK-SAME: %{{[a-z0-9]+}}: memref<1xi64> {autoglm.output_dims})
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK-NEXT: %[[LEN:.*]] = memref.load %[[SYMS]][%[[C1]]] : memref<2xi64>
// CHECK-NEXT: %[[AT:.*]] = arith.index_cast %[[LEN]] : i64 to index
// CHECK: memref.store %{{.*}}, %[[Y]][%[[AT]]]
func.func @length_after_the_symbols(%x: memref<?xf32> {autoglm.dim_symbols = array<i32: 0>},
                                    %length: memref<1xi64> {autoglm.symbol_slot = 1 : i64},
                                    %y: memref<4xf32> {bufferize.result})
    attributes {autoglm.symbols = [{max = 8 : i64, min = 1 : i64, name = "n"}]} {
  %c0 = arith.constant 0 : index
  %v = memref.load %length[%c0] : memref<1xi64>
  %at = arith.index_cast %v : i64 to index
  %one = arith.constant 1.0 : f32
  memref.store %one, %y[%at] : memref<4xf32>
  return
}

// -----

// expected-error @+1 {{argument 1 read from a symbol slot is not a memref<1xi64>}}
func.func @slot_of_another_type(%x: memref<4xf32>,
                                %length: memref<2xi64> {autoglm.symbol_slot = 0 : i64},
                                %y: memref<4xf32> {bufferize.result}) {
  return
}

// -----

func.func @slot_stored_to(%length: memref<1xi64> {autoglm.symbol_slot = 0 : i64},
                          %y: memref<4xf32> {bufferize.result}) {
  %c0 = arith.constant 0 : index
  %v = arith.constant 3 : i64
  // expected-error @+1 {{a value read from a symbol slot is only loaded}}
  memref.store %v, %length[%c0] : memref<1xi64>
  return
}
