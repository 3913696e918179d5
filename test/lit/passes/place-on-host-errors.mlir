// RUN: not autoglm-opt %s --autoglm-place-on-host="families=convolution" 2>&1 | FileCheck %s --check-prefix=FAMILY
// RUN: not autoglm-opt %s --autoglm-place-on-host="families=elementwise" 2>&1 | FileCheck %s --check-prefix=OFFSET

// FAMILY: unknown op family 'convolution' for the host (known: matmul, reduction, elementwise, all)
// A view at an offset known only at run time: its bytes cannot be staged.
// OFFSET: error: cannot place 'linalg.fill' on the host: the device bytes of an operand are not known statically
func.func @dynamic_offset(%arena: memref<4096xi8>, %at: index) {
  %zero = arith.constant 0.0 : f32
  %a = memref.view %arena[%at][] : memref<4096xi8> to memref<32xf32>
  linalg.fill ins(%zero : f32) outs(%a : memref<32xf32>)
  return
}
