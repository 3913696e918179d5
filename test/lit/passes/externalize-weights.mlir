// RUN: autoglm-opt %s --autoglm-externalize-weights="min-bytes=32" | FileCheck %s

// Constants of at least min-bytes leave the code: each read becomes a view
// into one trailing weights argument, at 64-byte-aligned offsets in module
// order (@w1 at 0, 40 bytes; @w2 at 64), and the module records their
// values for the weights file. The small constant and the variable stay.
// CHECK: module attributes {autoglm.external_weights = [{offset = 0 : i64, value = dense<1.000000e+00> : tensor<10xf32>}, {offset = 64 : i64, value = dense<2.000000e+00> : tensor<8xf32>}], autoglm.external_weights_size = 96 : i64}
// CHECK-DAG: memref.global "private" constant @small : memref<2xf32>
// CHECK-DAG: memref.global "private" @state : memref<16xf32>
// CHECK-NOT: @w1
// CHECK-NOT: @w2
// CHECK-LABEL: func.func @reads
// CHECK-SAME: %[[WEIGHTS:.*]]: memref<96xi8> {autoglm.weights}
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C64:.*]] = arith.constant 64 : index
// CHECK-DAG: memref.view %[[WEIGHTS]][%[[C0]]][] : memref<96xi8> to memref<10xf32>
// CHECK-DAG: memref.view %[[WEIGHTS]][%[[C64]]][] : memref<96xi8> to memref<8xf32>
// CHECK-DAG: memref.get_global @small
// CHECK-DAG: memref.get_global @state
// CHECK-NOT: @w1
// CHECK-NOT: @w2
memref.global "private" constant @w1 : memref<10xf32> = dense<1.0> {alignment = 64 : i64}
memref.global "private" constant @small : memref<2xf32> = dense<[1.0, 2.0]>
memref.global "private" constant @w2 : memref<8xf32> = dense<2.0> {alignment = 64 : i64}
memref.global "private" @state : memref<16xf32> = dense<0.0>
func.func @reads() -> (memref<10xf32>, memref<2xf32>, memref<8xf32>, memref<16xf32>) {
  %a = memref.get_global @w1 : memref<10xf32>
  %b = memref.get_global @small : memref<2xf32>
  %c = memref.get_global @w2 : memref<8xf32>
  %d = memref.get_global @state : memref<16xf32>
  return %a, %b, %c, %d : memref<10xf32>, memref<2xf32>, memref<8xf32>, memref<16xf32>
}
