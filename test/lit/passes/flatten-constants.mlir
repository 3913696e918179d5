// RUN: autoglm-opt %s --autoglm-flatten-constants | FileCheck %s

// A multi-dimensional constant becomes one flat array with the same values
// in the same order; each read expands it back to the shape its users see.
// One-dimensional constants, variables and constants without a value stay
// as they are.
// CHECK-DAG: memref.global "private" constant @filter : memref<8xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00, 5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> {alignment = 64 : i64}
// CHECK-DAG: memref.global "private" constant @splat : memref<6xf32> = dense<5.000000e-01>
// CHECK-DAG: memref.global "private" constant @bias : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-DAG: memref.global "private" @state : memref<2x2xf32> = dense<0.000000e+00>
// CHECK-LABEL: func.func @reads
// CHECK: %[[F:.*]] = memref.get_global @filter : memref<8xf32>
// CHECK: %[[W:.*]] = memref.expand_shape %[[F]] {{\[}}[0, 1, 2, 3]] output_shape [2, 1, 2, 2] : memref<8xf32> into memref<2x1x2x2xf32>
// CHECK: %[[S:.*]] = memref.get_global @splat : memref<6xf32>
// CHECK: %[[SX:.*]] = memref.expand_shape %[[S]] {{\[}}[0, 1]] output_shape [2, 3] : memref<6xf32> into memref<2x3xf32>
// CHECK: %[[B:.*]] = memref.get_global @bias : memref<2xf32>
// CHECK: %[[V:.*]] = memref.get_global @state : memref<2x2xf32>
// CHECK: return %[[W]], %[[SX]], %[[B]], %[[V]]
memref.global "private" constant @filter : memref<2x1x2x2xf32> = dense<[[[[1.0, 2.0], [3.0, 4.0]]], [[[5.0, 6.0], [7.0, 8.0]]]]> {alignment = 64 : i64}
memref.global "private" constant @splat : memref<2x3xf32> = dense<0.5>
memref.global "private" constant @bias : memref<2xf32> = dense<[1.0, 2.0]>
memref.global "private" @state : memref<2x2xf32> = dense<0.0>
func.func @reads() -> (memref<2x1x2x2xf32>, memref<2x3xf32>, memref<2xf32>, memref<2x2xf32>) {
  %w = memref.get_global @filter : memref<2x1x2x2xf32>
  %s = memref.get_global @splat : memref<2x3xf32>
  %b = memref.get_global @bias : memref<2xf32>
  %v = memref.get_global @state : memref<2x2xf32>
  return %w, %s, %b, %v : memref<2x1x2x2xf32>, memref<2x3xf32>, memref<2xf32>, memref<2x2xf32>
}
