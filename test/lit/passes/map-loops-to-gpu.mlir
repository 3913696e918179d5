// RUN: autoglm-opt %s --split-input-file --convert-linalg-to-parallel-loops --autoglm-map-loops-to-gpu --verify-diagnostics | FileCheck %s

// An elementwise loop nest: the innermost loop is tiled by the block size
// (128 of 300, guarded rather than clamped); the tile goes to thread x, the
// tiles to block x, the outer loop to block y.
// CHECK-LABEL: func.func @elementwise
// CHECK-DAG: %[[C128:.*]] = arith.constant 128 : index
// CHECK-DAG: %[[C300:.*]] = arith.constant 300 : index
// CHECK: %[[STEP:.*]] = arith.muli %{{.*}}, %[[C128]] : index
// CHECK: scf.parallel (%{{.*}}, %[[J:.*]]) = ({{.*}}) to (%c4, %[[C300]]) step (%{{.*}}, %[[STEP]])
// CHECK: scf.parallel (%{{.*}}, %[[TJ:.*]]) = ({{.*}}) to (%{{.*}}, %[[STEP]]) step
// CHECK: arith.cmpi ult, %{{.*}}, %[[C300]] : index
// CHECK: scf.if
// CHECK: arith.addf
// CHECK: {mapping = [#gpu.loop_dim_map<processor = sequential, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = thread_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_y, map = (d0) -> (d0), bound = (d0) -> (d0)>, #gpu.loop_dim_map<processor = block_x, map = (d0) -> (d0), bound = (d0) -> (d0)>]}
func.func @elementwise(%a: memref<4x300xf32>, %b: memref<4x300xf32>) {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>],
                  iterator_types = ["parallel", "parallel"]}
      ins(%a : memref<4x300xf32>) outs(%b : memref<4x300xf32>) {
  ^bb0(%x: f32, %y: f32):
    %z = arith.addf %x, %x : f32
    linalg.yield %z : f32
  }
  return
}

// -----

// A short innermost loop takes a block of its own extent; loops beyond the
// third from the inside run sequentially in each block.
// CHECK-LABEL: func.func @rank4
// CHECK: scf.parallel {{.*}} to (%c2, %c3, %c5, %c16)
// CHECK-NOT: scf.if
// CHECK: processor = sequential{{.*}}processor = sequential{{.*}}processor = sequential{{.*}}processor = thread_x
// CHECK: processor = sequential{{.*}}processor = block_z{{.*}}processor = block_y{{.*}}processor = block_x
func.func @rank4(%a: memref<2x3x5x16xf32>) {
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%a : memref<2x3x5x16xf32>)
  return
}

// -----

// CUDA grids have at most 65535 blocks along y and z: a longer loop runs
// sequentially in each block.
// CHECK-LABEL: func.func @long_rows
// CHECK: processor = sequential{{.*}}processor = block_x
func.func @long_rows(%a: memref<70000x4xf32>) {
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%a : memref<70000x4xf32>)
  return
}

// -----

// A full reduction has no parallel loop: it runs in a one-thread kernel,
// and says why for the placement report. The run's output extents are host
// memory and stay on the host.
// CHECK-LABEL: func.func @full_reduction
// CHECK: scf.parallel (%{{.*}}) = (%c0{{.*}}) to (%c1{{.*}}) step (%c1{{.*}})
// CHECK-NEXT: scf.for
// CHECK: } {autoglm.one_thread = "a loop nest with no parallel dimension"}
// CHECK: processor = block_x
// CHECK: memref.store %{{.*}}, %arg2[%{{.*}}] : memref<1xi64>
// CHECK-NEXT: return
func.func @full_reduction(%a: memref<64xf32>, %out: memref<f32>, %dims: memref<1xi64> {autoglm.output_dims}) {
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> ()>],
                  iterator_types = ["reduction"]}
      ins(%a : memref<64xf32>) outs(%out : memref<f32>) {
  ^bb0(%x: f32, %acc: f32):
    %s = arith.addf %x, %acc : f32
    linalg.yield %s : f32
  }
  %c0 = arith.constant 0 : index
  %one = arith.constant 1 : i64
  memref.store %one, %dims[%c0] : memref<1xi64>
  return
}

// -----

// A value read from tensor data for host code cannot move into a kernel.
func.func @host_read(%a: memref<4xindex>, %b: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' computes a value from tensor data that host code would use after it}}
  %n = memref.load %a[%c0] : memref<4xindex>
  %v = memref.subview %b[0] [%n] [1] : memref<8xf32> to memref<?xf32, strided<[1]>>
  %c = arith.constant 1.0 : f32
  linalg.fill ins(%c : f32) outs(%v : memref<?xf32, strided<[1]>>)
  return
}

// -----

// Scalar code on tensor data (a dynamic quantization's scale, say): the
// load, the arithmetic on its value and the store run together in one
// one-thread kernel; the constants, which the loop nest after it uses too,
// stay on the host.
// CHECK-LABEL: func.func @scalar_code
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[TWO:.*]] = arith.constant 2.000000e+00 : f32
// CHECK: scf.parallel (%{{.*}}) = (%{{.*}}) to (%{{.*}}) step
// CHECK-NEXT: %[[X:.*]] = memref.load %arg0[%[[C0]]] {autoglm.one_thread = "3 ops outside any parallel loop"}
// CHECK-NEXT: %[[Y:.*]] = arith.mulf %[[X]], %[[TWO]]
// CHECK-NEXT: memref.store %[[Y]], %arg1[]
// CHECK-NEXT: scf.reduce
// CHECK-NEXT: } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK: memref.store %[[TWO]], %arg2
func.func @scalar_code(%a: memref<4xf32>, %s: memref<f32>, %b: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %two = arith.constant 2.0 : f32
  %x = memref.load %a[%c0] : memref<4xf32>
  %y = arith.mulf %x, %two : f32
  memref.store %y, %s[] : memref<f32>
  linalg.fill ins(%two : f32) outs(%b : memref<4xf32>)
  return
}

// -----

// A loop of library calls (a product over outer batches) queues GPU work
// in order: the scalar code before it and after it stays on its side, in
// two kernels.
// CHECK-LABEL: func.func @around_library_loop
// CHECK: scf.parallel
// CHECK-NEXT: memref.store %{{.*}}, %arg0[] {autoglm.one_thread = "one element"}
// CHECK: scf.for
// CHECK-NEXT: func.call @agl_cuda_sgemm
// CHECK: scf.parallel
// CHECK-NEXT: %[[X:.*]] = memref.load %arg0[] {autoglm.one_thread = "2 ops outside any parallel loop"}
// CHECK-NEXT: memref.store %[[X]], %arg1[]
func.func private @agl_cuda_sgemm(index) attributes {autoglm.device_library}
func.func @around_library_loop(%s: memref<f32>, %t: memref<f32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %s[] : memref<f32>
  scf.for %b = %c0 to %c2 step %c1 {
    func.call @agl_cuda_sgemm(%b) : (index) -> ()
  }
  %x = memref.load %s[] : memref<f32>
  memref.store %x, %t[] : memref<f32>
  return
}

// -----

// A loop that queues library calls and also touches tensor data can run
// neither on the host nor in a kernel.
func.func private @agl_cuda_sgemm(index) attributes {autoglm.device_library}
func.func @library_and_data(%s: memref<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %one = arith.constant 1.0 : f32
  // expected-error @+1 {{'scf.for' both queues a library call and touches tensor data; the CUDA target cannot run it}}
  scf.for %b = %c0 to %c2 step %c1 {
    func.call @agl_cuda_sgemm(%b) : (index) -> ()
    memref.store %one, %s[%b] : memref<2xf32>
  }
  return
}

// -----

// A value from tensor data that the host would store (as an output
// extent) cannot move into a kernel.
func.func @to_host(%a: memref<4xi64>, %dims: memref<1xi64> {autoglm.output_dims}) {
  %c0 = arith.constant 0 : index
  // expected-error @+1 {{'memref.load' computes a value from tensor data that host code would use after it}}
  %n = memref.load %a[%c0] : memref<4xi64>
  memref.store %n, %dims[%c0] : memref<1xi64>
  return
}

// -----

// Host globals are out of a kernel's reach.
memref.global "private" constant @table : memref<4xf32> = dense<1.0>
func.func @global(%b: memref<4xf32>) {
  // expected-error @+1 {{constant 'table' is host memory, which a GPU kernel cannot read}}
  %t = memref.get_global @table : memref<4xf32>
  linalg.copy ins(%t : memref<4xf32>) outs(%b : memref<4xf32>)
  return
}

// -----

// A call of a library function that queues its own GPU work (a cuBLAS
// product, marked autoglm.device_library) stays in host code, also in a
// loop; any other call could touch device memory: a one-thread kernel.
// CHECK-LABEL: func.func @calls
// CHECK-NOT: scf.parallel
// CHECK: scf.for
// CHECK-NEXT: func.call @agl_cuda_sgemm(%arg0)
// CHECK-NEXT: }
// CHECK: scf.parallel
// CHECK-NEXT: func.call @opaque(%arg0) {autoglm.one_thread = "'func.call' outside any parallel loop"}
// CHECK: processor = block_x
func.func private @agl_cuda_sgemm(!llvm.ptr) attributes {autoglm.device_library}
func.func private @opaque(!llvm.ptr)
func.func @calls(%p: !llvm.ptr) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    func.call @agl_cuda_sgemm(%p) : (!llvm.ptr) -> ()
  }
  func.call @opaque(%p) : (!llvm.ptr) -> ()
  return
}

// -----

// A host section (autoglm-place-on-host) stays host code, and the scalar
// work on each side of it goes into a one-thread kernel of its own.
// CHECK-LABEL: func.func @host_section
// CHECK: scf.parallel
// CHECK: memref.store {{.*}} {autoglm.one_thread = "one element"}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK: scf.execute_region {
// CHECK-NEXT: memref.store
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {autoglm.host = "--device-hint reduction=host"}
// CHECK: scf.parallel
// CHECK: memref.store {{.*}} {autoglm.one_thread = "one element"}
// CHECK: } {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @host_section(%a: memref<4xf32>, %staging: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  memref.store %one, %a[%c0] : memref<4xf32>
  scf.execute_region {
    memref.store %one, %staging[%c0] : memref<4xf32>
    scf.yield
  } {autoglm.host = "--device-hint reduction=host"}
  memref.store %one, %a[%c0] : memref<4xf32>
  return
}

// -----

// A scalar the host computes (an extent) stored in an arena buffer of one
// element that a loop then reads: the loop reads the value itself and the
// store goes, so no kernel of one thread runs for it. A scalar loaded from
// device memory, and one stored in a model argument (seen outside), keep
// their one-thread kernels.
// CHECK-LABEL: func.func @host_scalar
// CHECK: %[[N:.*]] = memref.dim %arg0
// CHECK-NEXT: %[[W:.*]] = arith.index_cast %[[N]] : index to i64
// CHECK-NOT: memref.store %[[W]]
// CHECK: scf.parallel
// CHECK: arith.addi %{{.*}}, %[[W]] : i64
// CHECK: scf.parallel
// CHECK-NEXT: %[[F:.*]] = memref.load %arg0[%{{.*}}] {autoglm.one_thread = "5 ops outside any parallel loop"}
// CHECK-NEXT: memref.store %[[F]], %[[COPY:.*]][] : memref<i64>
// CHECK-NEXT: memref.store %[[W]], %arg2[] : memref<i64>
// CHECK-NEXT: memref.load %[[COPY]][]
// CHECK: return
func.func @host_scalar(%x: memref<?xi64>, %arena: memref<128xi8> {autoglm.arena}, %out: memref<i64>) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %n = memref.dim %x, %c0 : memref<?xi64>
  %w = arith.index_cast %n : index to i64
  %scalar = memref.view %arena[%c0][] : memref<128xi8> to memref<i64>
  memref.store %w, %scalar[] : memref<i64>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%x : memref<?xi64>) {
  ^bb0(%o: i64):
    %v = memref.load %scalar[] : memref<i64>
    %s = arith.addi %o, %v : i64
    linalg.yield %s : i64
  }
  %first = memref.load %x[%c0] : memref<?xi64>
  %copy = memref.view %arena[%c8][] : memref<128xi8> to memref<i64>
  memref.store %first, %copy[] : memref<i64>
  memref.store %w, %out[] : memref<i64>
  %again = memref.load %copy[] : memref<i64>
  %sum = memref.view %arena[%c16][] : memref<128xi8> to memref<i64>
  memref.store %again, %sum[] : memref<i64>
  return
}

// -----

// The same scalar, but a host section then copies its bytes to the host
// through another view of them: the store stays (a kernel of one thread
// writes it) and the loop still loads it. Bytes the planner gives to
// another buffer after the last load do not matter (the store at 8).
// CHECK-LABEL: func.func @host_scalar_read_elsewhere
// CHECK: memref.store %{{.*}}, %[[SCALAR:.*]][] {autoglm.one_thread = "one element"} : memref<i64>
// CHECK: scf.parallel
// CHECK: memref.load %[[SCALAR]][]
// CHECK: scf.execute_region
// CHECK: memref.view %arg1[%{{.*}}][] : memref<128xi8> to memref<8xi8>
// CHECK-LABEL: func.func @host_scalar_read_later
// CHECK-NOT: autoglm.one_thread
// CHECK-NOT: memref.load %{{.*}}[] : memref<i64>
// CHECK: return
func.func private @agl_cuda_copy_to_host(memref<8xi8>)
func.func @host_scalar_read_elsewhere(%x: memref<?xi64>, %arena: memref<128xi8> {autoglm.arena}) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %x, %c0 : memref<?xi64>
  %w = arith.index_cast %n : index to i64
  %scalar = memref.view %arena[%c0][] : memref<128xi8> to memref<i64>
  memref.store %w, %scalar[] : memref<i64>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%x : memref<?xi64>) {
  ^bb0(%o: i64):
    %v = memref.load %scalar[] : memref<i64>
    %s = arith.addi %o, %v : i64
    linalg.yield %s : i64
  }
  scf.execute_region {
    %bytes = memref.view %arena[%c0][] : memref<128xi8> to memref<8xi8>
    func.call @agl_cuda_copy_to_host(%bytes) : (memref<8xi8>) -> ()
    scf.yield
  } {autoglm.host = "--device-hint elementwise=host"}
  return
}
func.func @host_scalar_read_later(%x: memref<?xi64>, %arena: memref<128xi8> {autoglm.arena}) {
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %n = memref.dim %x, %c0 : memref<?xi64>
  %w = arith.index_cast %n : index to i64
  %scalar = memref.view %arena[%c0][] : memref<128xi8> to memref<i64>
  memref.store %w, %scalar[] : memref<i64>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%x : memref<?xi64>) {
  ^bb0(%o: i64):
    %v = memref.load %scalar[] : memref<i64>
    %s = arith.addi %o, %v : i64
    linalg.yield %s : i64
  }
  %reused = memref.view %arena[%c0][] : memref<128xi8> to memref<8xi8>
  linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} outs(%reused : memref<8xi8>) {
  ^bb0(%o: i8):
    %one = arith.constant 1 : i8
    linalg.yield %one : i8
  }
  return
}

// -----

// A choice on the host (the row count, known at run time) between two
// kinds of GPU work, as a weight-only product with symbolic rows makes:
// each branch's loop nest is mapped to blocks and threads as a top-level
// one would be, and the choice stays host code.
// CHECK-LABEL: func.func @choice
// CHECK: %[[DIM:.*]] = memref.dim %arg0, %c0
// CHECK: %[[FEW:.*]] = arith.cmpi ule, %[[DIM]], %c32
// CHECK: scf.if %[[FEW]] {
// CHECK: arith.addf
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x
// CHECK: } else {
// CHECK: arith.mulf
// CHECK: {mapping = [#gpu.loop_dim_map<processor = block_x
func.func @choice(%a: memref<?xf32>, %b: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %n = memref.dim %a, %c0 : memref<?xf32>
  %few = arith.cmpi ule, %n, %c32 : index
  scf.if %few {
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                    iterator_types = ["parallel"]}
        ins(%a : memref<?xf32>) outs(%b : memref<?xf32>) {
    ^bb0(%x: f32, %y: f32):
      %s = arith.addf %x, %x : f32
      linalg.yield %s : f32
    }
  } else {
    linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                    iterator_types = ["parallel"]}
        ins(%a : memref<?xf32>) outs(%b : memref<?xf32>) {
    ^bb0(%x: f32, %y: f32):
      %p = arith.mulf %x, %x : f32
      linalg.yield %p : f32
    }
  }
  return
}
