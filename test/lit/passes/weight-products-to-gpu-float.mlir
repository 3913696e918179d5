// RUN: autoglm-opt %s --split-input-file --autoglm-weight-products-to-gpu="weights=f16" --canonicalize | FileCheck %s
// RUN: autoglm-opt %s --split-input-file --autoglm-weight-products-to-gpu="weights=bf16" --canonicalize | FileCheck %s --check-prefix=BF16
// RUN: autoglm-opt %s --split-input-file --autoglm-weight-products-to-gpu="weights=f32" --canonicalize | FileCheck %s --check-prefix=F32
// RUN: autoglm-opt %s --split-input-file --autoglm-weight-products-to-gpu="weights=f16 gpu-arch=sm_80" --canonicalize | FileCheck %s --check-prefix=A100

// Float weights (the build's precision): a decode step of one row against
// a 64 x 24 weight. The estimates give it the GEMV (the weight's bytes
// once, where cuBLAS would also convert the row to 16 bits first, in a
// launch of its own). Its weight becomes 24 rows of 64 halves; each lane
// loads 8 of them (16 bytes) a step, widens them to floats and multiplies
// them with 8 floats of A, in order: a product and an FMA of 4 lanes each.
// CHECK-LABEL: func.func @decode
// CHECK: %[[ROWS:.*]] = memref.get_global @w_rows_f16 : memref<24x64xf16>
// CHECK: gpu.launch
// CHECK: %[[W:.*]] = vector.load %[[ROWS]][%{{.*}}, %{{.*}}] {alignment = 16 : i64} : memref<24x64xf16>, vector<8xf16>
// CHECK: %[[WIDE:.*]] = arith.extf %[[W]] : vector<8xf16> to vector<8xf32>
// CHECK: %[[A:.*]] = vector.load %arg0[%c0, %{{.*}}] {alignment = 16 : i64} : memref<1x64xf32>, vector<8xf32>
// CHECK: %[[W0:.*]] = vector.shuffle %[[WIDE]], %[[WIDE]] [0, 1, 2, 3]
// CHECK: %[[A0:.*]] = vector.shuffle %[[A]], %[[A]] [0, 1, 2, 3]
// CHECK: %[[P:.*]] = arith.mulf %[[W0]], %[[A0]] : vector<4xf32>
// CHECK: %[[W1:.*]] = vector.shuffle %[[WIDE]], %[[WIDE]] [4, 5, 6, 7]
// CHECK: %[[A1:.*]] = vector.shuffle %[[A]], %[[A]] [4, 5, 6, 7]
// CHECK: %[[S:.*]] = vector.fma %[[W1]], %[[A1]], %[[P]] : vector<4xf32>
// CHECK: vector.reduction <add>, %[[S]] : vector<4xf32> into f32
// CHECK: gpu.shuffle  xor {{.*}} {autoglm.choice = "generated GEMV (est. {{[0-9.]+}} us) over cuBLAS (est. {{[0-9.]+}} us) at 1 rows on H100 SXM (sm_90)", autoglm.flops = 3.072000e+03 : f64, autoglm.operand_type = "gemv-f16"}
// CHECK-NOT: memref.global "private" constant @w :
// CHECK: memref.global "private" constant @w_rows_f16 : memref<24x64xf16> = dense<5.000000e-01>
// A bf16 is the upper half of its float: the even depths' shifted up, the
// odd ones' masked, each multiplied with A's floats of that parity.
// BF16-LABEL: func.func @decode
// BF16: %[[W:.*]] = vector.load %{{.*}} : memref<24x64xbf16>, vector<8xbf16>
// BF16: %[[WORDS:.*]] = vector.bitcast %[[W]] : vector<8xbf16> to vector<4xi32>
// BF16: %[[EVEN:.*]] = arith.shli %[[WORDS]], %{{.*}} : vector<4xi32>
// BF16: %[[ODD:.*]] = arith.andi %[[WORDS]], %{{.*}} : vector<4xi32>
// BF16: vector.shuffle %{{.*}} [0, 2, 4, 6]
// BF16: vector.shuffle %{{.*}} [1, 3, 5, 7]
// BF16: autoglm.operand_type = "gemv-bf16"
// BF16: memref.global "private" constant @w_rows_bf16 : memref<24x64xbf16> = dense<5.000000e-01>
// Float32: four depths a step, the weight transposed into rows.
// F32-LABEL: func.func @decode
// F32: vector.load %{{.*}} : memref<24x64xf32>, vector<4xf32>
// F32: autoglm.operand_type = "gemv-f32"
// F32: memref.global "private" constant @w_rows_f32 : memref<24x64xf32>
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
memref.global "private" constant @w : memref<64x24xf32> = dense<0.5>
func.func @decode(%x: memref<1x64xf32>, %y: memref<1x24xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @w : memref<64x24xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x24xf32>)
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x64xf32>, memref<64x24xf32>) outs(%y : memref<1x24xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// 65536 rows: the GEMV would stream the weight once per 8 rows; cuBLAS
// wins, and the product says why. A float32 weight stored a row per column
// (n x k) would be the GEMV's as it is, but this one stays for cuBLAS.
// CHECK-LABEL: func.func @prefill
// CHECK-NOT: gpu.launch
// CHECK: memref.get_global @u : memref<64x64xf32>
// CHECK: linalg.generic {{.*}} attrs =  {autoglm.choice = "cuBLAS (est. {{[0-9.]+}} us) over generated GEMV (est. {{[0-9.]+}} us) at 65536 rows on H100 SXM (sm_90)"}
// CHECK-NOT: @u_rows
// F32-LABEL: func.func @prefill
// F32: memref.get_global @u : memref<64x64xf32>
// F32: autoglm.choice = "cuBLAS
// A100-LABEL: func.func @prefill
// A100: autoglm.choice = "cuBLAS (est. {{[0-9.]+}} us) over generated GEMV (est. {{[0-9.]+}} us) at 65536 rows on A100 SXM 80 GB (sm_80)"
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
memref.global "private" constant @u : memref<64x64xf32> = dense<0.25>
func.func @prefill(%x: memref<65536x64xf32>, %y: memref<65536x64xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @u : memref<64x64xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<65536x64xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<65536x64xf32>, memref<64x64xf32>) outs(%y : memref<65536x64xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// One weight, two readers: a decode-sized product the GEMV would win and a
// large one cuBLAS wins. The model keeps one copy of the weight, cuBLAS's:
// both stay. A float32 weight stored n x k is read in place by the GEMV,
// which takes the decode product then.
// CHECK-LABEL: func.func @shared
// CHECK-NOT: gpu.launch
// CHECK: autoglm.choice = "cuBLAS: other products that cuBLAS runs read the same weight (one copy of it)"
// CHECK: autoglm.choice = "cuBLAS (est.
// F32-LABEL: func.func @shared
// F32: %[[W:.*]] = memref.get_global @s : memref<32x64xf32>
// F32: gpu.launch
// F32: vector.load %{{.*}} : memref<32x64xf32>, vector<4xf32>
// F32: linalg.generic {{.*}} ins(%arg2, %[[W]] : memref<65536x64xf32>, memref<32x64xf32>)
// F32-NOT: @s_rows_f32
#a = affine_map<(m, n, k) -> (m, k)>
#bt = affine_map<(m, n, k) -> (n, k)>
#c = affine_map<(m, n, k) -> (m, n)>
memref.global "private" constant @s : memref<32x64xf32> = dense<0.25>
func.func @shared(%x: memref<1x64xf32>, %y: memref<1x32xf32>, %xs: memref<65536x64xf32>, %ys: memref<65536x32xf32>) {
  %zero = arith.constant 0.0 : f32
  %w = memref.get_global @s : memref<32x64xf32>
  linalg.fill ins(%zero : f32) outs(%y : memref<1x32xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<1x64xf32>, memref<32x64xf32>) outs(%y : memref<1x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  linalg.fill ins(%zero : f32) outs(%ys : memref<65536x32xf32>)
  linalg.generic {indexing_maps = [#a, #bt, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%xs, %w : memref<65536x64xf32>, memref<32x64xf32>) outs(%ys : memref<65536x32xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}

// -----

// A row count without a bound: float weights stay with cuBLAS (a choice at
// run time would hold the weight twice).
// CHECK-LABEL: func.func @unbounded
// CHECK-NOT: gpu.launch
// CHECK: autoglm.choice = "cuBLAS: no bound on the row count when compiling"
#a = affine_map<(m, n, k) -> (m, k)>
#b = affine_map<(m, n, k) -> (k, n)>
#c = affine_map<(m, n, k) -> (m, n)>
memref.global "private" constant @v : memref<64x8xf32> = dense<1.0>
func.func @unbounded(%x: memref<?x64xf32>, %y: memref<?x8xf32>) {
  %w = memref.get_global @v : memref<64x8xf32>
  linalg.generic {indexing_maps = [#a, #b, #c], iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%x, %w : memref<?x64xf32>, memref<64x8xf32>) outs(%y : memref<?x8xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %0 = arith.mulf %p, %q : f32
    %1 = arith.addf %acc, %0 : f32
    linalg.yield %1 : f32
  }
  return
}
