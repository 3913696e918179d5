//===- CudaPipeline.cpp - the GPU stage of --target=cuda ------------------===//
//
// Upstream MLIR does the work: linalg loops become scf.parallel nests,
// reductions accumulate in registers, autoglm-map-loops-to-gpu picks
// blocks and threads (a block per row for row reductions), the nests become
// gpu.launch ops that are outlined into gpu.modules, lowered to NVVM and
// compiled by the CUDA toolkit (ptxas, fatbinary) into gpu.binary ops. The
// host side keeps the CPU pipeline's calling convention (bare pointers,
// which here point to device memory) and launches the kernels through the
// runtime's mgpu* functions (runtime/src/cuda/).
//
//===----------------------------------------------------------------------===//

#include "compiler/CudaPipeline.h"
#include "passes/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/GPUCommon/GPUCommonPass.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVM.h"
#include "mlir/Conversion/GPUToNVVM/GPUToNVVMPass.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/NVGPUToNVVM/NVGPUToNVVM.h"
#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/SCFToGPU/SCFToGPUPass.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassOptions.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

#include <cstdlib>

using namespace mlir;
using namespace autoglm;

llvm::ArrayRef<llvm::StringRef> autoglm::supportedGpuArchs() {
  // Ampere (A100), Ada (L4, L40) and Hopper (H100, H200).
  static const llvm::StringRef archs[] = {"sm_80", "sm_89", "sm_90"};
  return archs;
}

std::string autoglm::defaultCudaToolkit() {
  for (const char *variable : {"CUDA_HOME", "CUDA_PATH"})
    if (const char *path = std::getenv(variable); path && *path)
      return path;
  return "/usr/local/cuda";
}

void autoglm::buildGpuMappingPipeline(OpPassManager &pm,
                                      const CudaOptions &options) {
  // First, while the ops are still themselves: the families kept off the
  // GPU become host sections.
  if (!options.hostFamilies.empty()) {
    PlaceOnHostOptions host;
    host.families.assign(options.hostFamilies.begin(),
                         options.hostFamilies.end());
    pm.addPass(createPlaceOnHost(host));
  }
  pm.addNestedPass<func::FuncOp>(createContiguousReshapes());
  // Kernels: one per top-level loop nest.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  // Symbolic extents: one value per extent (each op read its own
  // memref.dim), so that nests over the same rows have the same bounds.
  pm.addNestedPass<func::FuncOp>(createCSEPass());
  pm.addNestedPass<func::FuncOp>(createAccumulateInRegisters());
  // Attention (fp16 and bf16 builds) is one kernel of its own, written
  // whole.
  AttentionToGpuOptions attention;
  attention.operandType = options.attentionOperands;
  pm.addNestedPass<func::FuncOp>(createAttentionToGpu(attention));
  MapLoopsToGpuOptions mapping;
  mapping.blockSize = options.blockSize;
  pm.addNestedPass<func::FuncOp>(createMapLoopsToGpu(mapping));
}

void autoglm::buildCudaStagePipeline(OpPassManager &pm,
                                     const CudaOptions &options) {
  buildGpuMappingPipeline(pm, options);
  pm.addNestedPass<func::FuncOp>(createConvertParallelLoopToGpuPass());
  pm.addPass(createGpuKernelOutliningPass());
  pm.addPass(createNameGpuKernels());
  pm.addPass(createAlignWorkgroupMemory());
  pm.addPass(createRecordGpuPlacement());
  if (options.profile)
    pm.addPass(createProfileGpuLaunches());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.arch;
  target.optLevel = 3;
  pm.addPass(createGpuNVVMAttachTarget(target));
  pm.addPass(createCanonicalizerPass());
  pm.addPass(createCSEPass());
  // Device code (and the host's view arithmetic) in the LLVM dialect.
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createSCFToControlFlowPass());
  // The attention kernel's warp-level products first.
  pm.addNestedPass<gpu::GPUModuleOp>(createBf16MmaToNvvm());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertNVGPUToNVVMPass());
  pm.addNestedPass<gpu::GPUModuleOp>(createConvertGpuOpsToNVVMOps());
  pm.addPass(createReconcileUnrealizedCastsPass());
  GpuModuleToBinaryPassOptions binary;
  binary.toolkitPath = options.toolkit;
  binary.compilationTarget = options.format;
  // Where cuobjdump and the CUDA tools look for device code in an object.
  binary.elfSection = ".nv_fatbin";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  // Host code: the entry function keeps the CPU target's bare-pointer
  // convention (the pointers are device memory), and kernels take memref
  // descriptors (their operands may be views with dynamic offsets). The
  // function is converted first: gpu-to-llvm with bare host pointers would
  // pass bare pointers to the kernels too. Launches go through the
  // runtime's mgpu* functions.
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  // Host sections compute with math ops too.
  pm.addPass(createConvertMathToLLVMPass());
  ConvertFuncToLLVMPassOptions functions;
  functions.useBarePtrCallConv = true;
  pm.addPass(createConvertFuncToLLVMPass(functions));
  pm.addPass(createGpuToLLVMConversionPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  pm.addPass(createCanonicalizerPass());
}

void autoglm::registerCudaDialects(DialectRegistry &registry) {
  registry.insert<gpu::GPUDialect, NVVM::NVVMDialect, nvgpu::NVGPUDialect>();
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  // convert-gpu-to-nvvm lowers every dialect it meets in a kernel through
  // the dialect's ConvertToLLVM interface.
  arith::registerConvertArithToLLVMInterface(registry);
  cf::registerConvertControlFlowToLLVMInterface(registry);
  registerConvertFuncToLLVMInterface(registry);
  index::registerConvertIndexToLLVMInterface(registry);
  registerConvertMathToLLVMInterface(registry);
  registerConvertMemRefToLLVMInterface(registry);
  ub::registerConvertUBToLLVMInterface(registry);
  // The GEMV's loads and sums are vector ops.
  vector::registerConvertVectorToLLVMInterface(registry);
  NVVM::registerConvertGpuToNVVMInterface(registry);
  registerConvertNVVMToLLVMInterface(registry);
  registerGPUDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
  gpu::registerOffloadingLLVMTranslationInterfaceExternalModels(registry);
}

namespace {
struct CudaStageOptions : PassPipelineOptions<CudaStageOptions> {
  Option<std::string> arch{*this, "arch", llvm::cl::desc("GPU architecture"),
                           llvm::cl::init("sm_90")};
  Option<std::string> format{
      *this, "format",
      llvm::cl::desc("fatbin, bin (cubin) or isa (PTX, no toolkit needed)"),
      llvm::cl::init("fatbin")};
  Option<std::string> attentionOperands{
      *this, "attention-operands",
      llvm::cl::desc("The attention kernel's 16-bit operands: f16 or bf16"),
      llvm::cl::init("f16")};
  Option<int64_t> blockSize{*this, "block-size",
                            llvm::cl::desc("Threads per block"),
                            llvm::cl::init(128)};
};
} // namespace

void autoglm::registerCudaPipeline() {
  PassPipelineRegistration<CudaStageOptions>(
      "autoglm-stage-cuda",
      "The GPU stage of autoglm-compile --target=cuda (after the memref "
      "stage)",
      [](OpPassManager &pm, const CudaStageOptions &stage) {
        CudaOptions options;
        options.arch = stage.arch;
        options.format = stage.format;
        options.blockSize = stage.blockSize;
        options.attentionOperands = stage.attentionOperands;
        options.toolkit = defaultCudaToolkit();
        buildCudaStagePipeline(pm, options);
      });
}
