//===- Pipeline.h - the compilation pipeline, stage by stage ----*- C++ -*-===//
//
// The whole pipeline lives in Pipeline.cpp, in order, so a reader sees every
// pass a model goes through in one place. Each stage ends in IR that
// `--emit` can print.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_COMPILER_PIPELINE_H
#define AUTOGLM_COMPILER_PIPELINE_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/Timing.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace autoglm {

enum class Stage {
  Autoglm, // imported graph, folded and canonicalized
  Linalg,  // linalg/tensor/arith/math on tensors
  Memref,  // bufferized, every buffer in the arena
  LLVM,    // LLVM dialect, ready for translation
};

/// The stage's name as `--emit` spells it ("autoglm", "linalg", ...).
llvm::StringRef stageName(Stage stage);

struct PipelineOptions {
  bool printIRAfterAll = false;
  /// Print the IR before / after the passes with these command-line names
  /// (e.g. "autoglm-plan-arena") to stderr.
  std::vector<std::string> printIRBefore, printIRAfter;
  /// Print locations (the ONNX node names) in every IR output.
  bool printLocations = false;
  /// Print the number of operations of each kind after every stage.
  bool printOpStats = false;
  /// Time every pass, nested under this scope.
  mlir::TimingScope *timing = nullptr;
  /// Check the arena plan (no two live buffers overlap, all fit the arena).
  bool verifyMemoryPlan = false;
  /// Keep weights out of the code, in a weights file the runtime maps.
  bool externalWeights = false;
  /// Run f32 matrix multiplications with the runtime's GEMM kernel rather
  /// than generated loops.
  bool runtimeKernels = true;
  /// The target's widest vectors are 256-bit (no AVX-512), which changes
  /// which convolutions the cost model leaves to the GEMM call.
  bool narrowVectors = false;
  /// The target CPU has no bfloat16 conversion instructions: f32 <-> bf16
  /// conversions are written as integer arithmetic (LLVM would call the
  /// compiler runtime's __truncsfbf2, which a model cannot link).
  bool expandBFloat16 = false;
  /// Recognize attention written out in primitive ops as autoglm.attention
  /// (with runtimeKernels, the runtime's streaming attention kernel).
  bool fuseAttention = true;
  /// Keep past keys and values as a cache of this many positions, updated
  /// in place (0: the model's inputs and outputs as exported).
  int64_t maxSeqLen = 0;
  /// Outputs computed for the last token only (a generator's logits).
  std::vector<std::string> lastTokenOutputs;
  /// Weight-only quantization of the GEMMs with constant weights: 0 (off),
  /// 8 or 4 bits per weight, one scale per weightOnlyGroupSize depths.
  int weightOnlyBits = 0;
  int64_t weightOnlyGroupSize = 128;
  /// GPU products with a constant weight: the generated GEMV up to this
  /// many rows, cuBLAS above; -1: whichever the GPU's peaks rate faster.
  int64_t gemvMaxRows = -1;
  /// --precision bf16 / fp16: the same GEMM weights rounded to a 16-bit
  /// float, bfloat16 or IEEE half (widened to float32 in the kernels'
  /// registers); not with weightOnlyBits.
  enum class Float16Weights { None, BF16, FP16 };
  Float16Weights float16Weights = Float16Weights::None;
  /// --precision int8: return the extremes of the left operands of the
  /// products to quantize, or with wholeCalibrationOutputs the operands
  /// (calibration runs the model so compiled)...
  bool calibrationOutputs = false, wholeCalibrationOutputs = false;
  /// ...or quantize them, with these calibrated ranges (autoglm-quantize-
  /// products: minimum and maximum per operand).
  std::vector<double> activationRanges;
  /// ONNX node names of the products that stay float32 (--keep-fp32).
  std::vector<std::string> keepFp32;
  /// Time every kernel of the plan with the runtime's profiling hooks.
  bool profile = false;
  /// Split large loop nests across the runtime's thread pool (only with
  /// runtimeKernels: it calls the runtime).
  bool parallelLoops = true;
  /// Write one numbered .mlir file per pass that changed the IR (per pass,
  /// with dumpAll) into this folder.
  std::string dumpIRDir;
  bool dumpAll = false;
  /// Non-empty for --target=cuda: the GPU architecture ("sm_90"). The
  /// memref stage then keeps every constant in the weights argument (device
  /// memory) and the LLVM stage is the CUDA stage (CudaPipeline.h); the
  /// runtime's CPU kernels must be off (runtimeKernels = false).
  std::string gpuArch;
  /// With gpuArch: f32 matrix products whose layout cuBLAS takes become
  /// calls of the runtime's agl_cuda_sgemm (cuBLAS) instead of kernels;
  /// with float16Weights, of agl_cuda_gemm_half on 16-bit operands.
  bool cudaLibraries = false;
  /// The CUDA toolkit that compiles the kernels (with gpuArch).
  std::string cudaToolkit;
  /// With gpuArch: the op families that run on the host (--device-hint).
  std::vector<std::string> hostFamilies;
  /// --target=cuda-emulated: the CUDA target's code compiled for this
  /// CPU, each block's threads run one after another
  /// (autoglm-emulate-gpu-threads) and the library calls (cudaLibraries)
  /// going to the runtime's host versions (autoglm-emulate-gpu-libraries),
  /// to check it where there is no GPU. Like gpuArch, every constant goes
  /// to the weights argument; the runtime's CPU kernels are off.
  bool emulateGpu = false;
  /// Called with the module after each stage (for reports, sizes).
  std::function<void(Stage, mlir::ModuleOp)> afterStage;
};

/// Adds the passes that take a module from the previous stage to `stage`.
void buildStagePipeline(mlir::OpPassManager &pm, Stage stage,
                        const PipelineOptions &options = {});

/// The command-line names of the passes the pipeline runs, in order (each
/// once), for checking the names given to printIRBefore/printIRAfter.
std::vector<std::string> pipelinePassNames(const PipelineOptions &options);

/// Runs stages Autoglm..`last` on `module`.
mlir::LogicalResult runPipeline(mlir::ModuleOp module, Stage last,
                                const PipelineOptions &options);

/// Dialects, interfaces and translations every tool needs.
void registerAutoGLMDialects(mlir::DialectRegistry &registry);
/// AutoGLM passes and the stage pipelines, e.g. `autoglm-stage-memref`
/// (for autoglm-opt).
void registerAutoGLMPipelines();

/// Printing flags of all IR the tools write: weights are elided; with
/// `locations`, each op shows the ONNX nodes it came from.
mlir::OpPrintingFlags irPrintingFlags(bool locations = false);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_PIPELINE_H
