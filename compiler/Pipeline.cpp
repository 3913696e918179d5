//===- Pipeline.cpp - the compilation pipeline, stage by stage ------------===//

#include "compiler/Pipeline.h"
#include "compiler/CudaPipeline.h"
#include "dialects/AutoGLMDialect.h"
#include "passes/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Affine/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Arith/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/FuncBufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/Linalg/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/AllocationOpInterfaceImpl.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/IR/ValueBoundsOpInterfaceImpl.h"
#include "mlir/Dialect/Tensor/Transforms/BufferizableOpInterfaceImpl.h"
#include "mlir/Dialect/Vector/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"

using namespace mlir;
using namespace autoglm;

void autoglm::buildStagePipeline(OpPassManager &pm, Stage stage,
                                 const PipelineOptions &options) {
  switch (stage) {
  case Stage::Autoglm: {
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    if (options.maxSeqLen > 0) {
      KVCacheOptions cache;
      cache.capacity = options.maxSeqLen;
      // Host code cannot read the GPU's arena: the runtime keeps the length.
      cache.lengthInSymbols = !options.gpuArch.empty() || options.emulateGpu;
      pm.addPass(createKVCache(cache));
    }
    pm.addPass(createRecognizeNorms());
    if (options.fuseAttention)
      pm.addPass(createRecognizeAttention());
    // After the recognitions: norms and attention move as one op.
    if (!options.lastTokenOutputs.empty()) {
      LastTokenOptions lastToken;
      lastToken.outputs.assign(options.lastTokenOutputs.begin(),
                               options.lastTokenOutputs.end());
      pm.addPass(createLastToken(lastToken));
    }
    // After --last-token, which changes which rows the products read.
    if (options.calibrationOutputs) {
      CalibrationOutputsOptions calibration;
      calibration.whole = options.wholeCalibrationOutputs;
      calibration.keep.assign(options.keepFp32.begin(),
                              options.keepFp32.end());
      pm.addPass(createCalibrationOutputs(calibration));
    } else if (!options.activationRanges.empty()) {
      QuantizeProductsOptions quantize;
      quantize.ranges.assign(options.activationRanges.begin(),
                             options.activationRanges.end());
      quantize.keep.assign(options.keepFp32.begin(), options.keepFp32.end());
      pm.addPass(createQuantizeProducts(quantize));
    }
    IntegerMatMulsOptions integer;
    // cuBLASLt's integer products take signed bytes and no zero points.
    integer.signedActivations = !options.gpuArch.empty() || options.emulateGpu;
    pm.addPass(createIntegerMatMuls(integer));
    pm.addPass(createCSEPass());
    return;
  }
  case Stage::Linalg: {
    LowerToLinalgOptions lowering;
    lowering.attentionKernel = options.runtimeKernels;
    // fp16 and bf16 GPU builds: attention as one tensor-core kernel (its
    // 16-bit operands are the precision's), unless ops are kept on the host.
    const bool gpu = !options.gpuArch.empty() || options.emulateGpu;
    lowering.gpuAttention =
        gpu &&
        options.float16Weights != PipelineOptions::Float16Weights::None &&
        options.hostFamilies.empty();
    pm.addPass(createLowerToLinalg(lowering));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createFuseElementwise());
    // While erf, tanh and exp are still themselves: the GEMM's epilogue
    // (the CPU kernel's, or cuBLASLt's) takes the activations that follow a
    // product (memref stage).
    if (options.runtimeKernels || options.cudaLibraries)
      pm.addPass(createMarkActivations());
    pm.addPass(createApproximateMath());
    // Symbolic extents: every tensor.dim becomes arithmetic on the inputs'
    // extents, which bufferization and the arena planner can follow.
    pm.addPass(memref::createResolveRankedShapeTypeResultDimsPass());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    return;
  }
  case Stage::Memref: {
    pm.addPass(createBufferize());
    pm.addPass(createCanonicalizerPass());
    // The kernel calls before the arena is planned: what they make unused
    // (im2col and padded copies, products' accumulators) then takes no
    // memory, and the plan sees each call use its buffers at the call.
    // Before the weights leave the module: packing reads their values,
    // and the weights file then holds the packed (or quantized) copies,
    // which the kernels read in place, as embedded ones.
    if (options.runtimeKernels) {
      // Convolutions first: they are matrix products too, but their own
      // kernel avoids the im2col copy. It needs the filters packed.
      ConvolutionsToKernelsOptions convolutions;
      convolutions.narrowVectors = options.narrowVectors;
      pm.addPass(createConvolutionsToKernels(convolutions));
      pm.addPass(createPoolingToKernels());
      pm.addPass(createTransposesToKernels());
      ContractionsToKernelsOptions kernels;
      kernels.packWeights = true;
      // 16-bit floats pad the last panel too, at half the bytes of the
      // float.
      using Float16Weights = PipelineOptions::Float16Weights;
      const bool float16 = options.float16Weights != Float16Weights::None;
      kernels.partialPanels = float16;
      // An int8 SwiGLU's loop reads both products' sums: its gate's factor
      // moves next to the gate projection, so that each product has a loop
      // of its own right after it, for its call's epilogue.
      pm.addPass(createSplitGatedLoops());
      pm.addPass(createContractionsToKernels(kernels));
      // Quantizes (or rounds to bfloat16 or half) the weights the previous
      // pass packed.
      if (options.weightOnlyBits || float16) {
        QuantizeWeightsOptions quantize;
        quantize.format =
            options.float16Weights == Float16Weights::BF16   ? "bf16"
            : options.float16Weights == Float16Weights::FP16 ? "fp16"
            : options.weightOnlyBits == 8                    ? "int8"
                                                             : "int4";
        quantize.groupSize = options.weightOnlyGroupSize;
        pm.addPass(createQuantizeWeights(quantize));
      }
      pm.addPass(createAttentionToKernels());
      // What the calls left unused (im2col and padded buffers, the
      // products' accumulators) goes, so that the plan has no room for it.
      pm.addPass(createCanonicalizerPass());
    }
    // The GPU's products and attention kernel read and write the
    // transposes around them in place.
    if (!options.gpuArch.empty() || options.emulateGpu) {
      pm.addNestedPass<func::FuncOp>(createFoldAttentionTransposes());
      pm.addNestedPass<func::FuncOp>(createFoldTransposes());
    }
    if (options.cudaLibraries) {
      // On a GPU, --precision fp16/bf16 is the products' arithmetic.
      using Float16Weights = PipelineOptions::Float16Weights;
      const std::string precision =
          options.float16Weights == Float16Weights::BF16   ? "bf16"
          : options.float16Weights == Float16Weights::FP16 ? "fp16"
                                                           : "fp32";
      // Products with constant weights: a generated GEMV where the GPU's
      // peaks rate it faster than cuBLAS (decode steps), reading the
      // weights in 8 or 4 bits with --weight-only, else in the precision's
      // type; with --weight-only, a dequantizing loop before a larger
      // product's cuBLAS call.
      WeightProductsToGpuOptions weightProducts;
      weightProducts.weightFormat = options.weightOnlyBits == 8   ? "int8"
                                    : options.weightOnlyBits == 4 ? "int4"
                                    : precision == "fp32"         ? "f32"
                                    : precision == "fp16"         ? "f16"
                                                                  : "bf16";
      weightProducts.groupSize = options.weightOnlyGroupSize;
      weightProducts.maxGemvRows = options.gemvMaxRows;
      if (!options.gpuArch.empty())
        weightProducts.gpuArch = options.gpuArch;
      pm.addPass(createWeightProductsToGpu(weightProducts));
      ContractionsToKernelsOptions cublas;
      cublas.cuda = true;
      cublas.cudaPrecision = precision;
      pm.addPass(createContractionsToKernels(cublas));
      pm.addPass(createCanonicalizerPass());
    }
    PlanArenaOptions plan;
    plan.verify = options.verifyMemoryPlan;
    pm.addNestedPass<func::FuncOp>(createPlanArena(plan));
    const bool gpuKernels = !options.gpuArch.empty() || options.emulateGpu;
    if (options.externalWeights || gpuKernels) {
      ExternalizeWeightsOptions external;
      // Scalars and shape constants stay inline, except on a GPU, whose
      // kernels cannot read host memory: there all go to device memory.
      external.minBytes = gpuKernels ? 0 : 1024;
      pm.addPass(createExternalizeWeights(external));
    }
    // Last, so that the symbol values and output extents trail the arena
    // and weights arguments.
    pm.addNestedPass<func::FuncOp>(createStaticSignature());
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createCSEPass());
    // After folding, so that the GEMM calls' sizes are constants. A GPU
    // model's work is timed once its kernels are outlined.
    if (options.profile && options.gpuArch.empty())
      pm.addPass(createInstrumentKernels());
    return;
  }
  case Stage::LLVM: {
    CudaOptions cuda;
    if (options.float16Weights == PipelineOptions::Float16Weights::BF16)
      cuda.attentionOperands = "bf16";
    if (!options.gpuArch.empty()) {
      cuda.arch = options.gpuArch;
      if (!options.cudaToolkit.empty())
        cuda.toolkit = options.cudaToolkit;
      cuda.hostFamilies = options.hostFamilies;
      cuda.profile = options.profile;
      buildCudaStagePipeline(pm, cuda);
      return;
    }
    if (options.emulateGpu) {
      // The CUDA stage's kernels, their threads in sequence, and the host
      // versions of its library calls; the rest of the CPU lowering runs
      // the other parallel loops in sequence.
      buildGpuMappingPipeline(pm, cuda);
      pm.addNestedPass<func::FuncOp>(createEmulateGpuLaunches());
      pm.addNestedPass<func::FuncOp>(createEmulateGpuThreads());
      pm.addPass(createEmulateGpuLibraries());
    }
    pm.addNestedPass<func::FuncOp>(createContiguousReshapes());
    pm.addPass(createFlattenConstants());
    // Before vectorization, which then sees each op's one-iteration slice.
    if (options.runtimeKernels && options.parallelLoops)
      pm.addPass(createParallelizeLoops());
    pm.addPass(createVectorizeLoops());
    pm.addPass(createCanonicalizerPass());
    pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
    // Reductions along the vector become horizontal vector reductions;
    // transfers with leading unit dimensions become 1-D loads and stores.
    pm.addNestedPass<func::FuncOp>(createLowerVectorMultiReductionPass(
        vector::VectorMultiReductionLowering::InnerReduction));
    pm.addPass(createConvertVectorToSCFPass(
        VectorTransferToSCFOptions().enableFullUnroll()));
    pm.addPass(createCanonicalizerPass());
    pm.addPass(createLowerAffinePass());
    pm.addPass(createSCFToControlFlowPass());
    pm.addPass(memref::createExpandStridedMetadataPass());
    pm.addPass(createLowerAffinePass());
    if (options.expandBFloat16)
      pm.addPass(createExpandBFloat16());
    // Math first: libm calls for vectors (acosh has no LLVM intrinsic) are
    // made per lane with vector.extract/insert, which the vector lowering
    // then converts.
    pm.addPass(createConvertMathToLLVMPass());
    pm.addPass(createConvertMathToLibmPass());
    ConvertVectorToLLVMPassOptions vectorOptions;
    vectorOptions.reassociateFPReductions = true;
    pm.addPass(createConvertVectorToLLVMPass(vectorOptions));
    pm.addPass(createUBToLLVMConversionPass());
    pm.addPass(createFinalizeMemRefToLLVMConversionPass());
    pm.addPass(createArithToLLVMConversionPass());
    ConvertFuncToLLVMPassOptions funcOptions;
    // Static shapes: every tensor crosses the ABI as one plain pointer.
    funcOptions.useBarePtrCallConv = true;
    pm.addPass(createConvertFuncToLLVMPass(funcOptions));
    pm.addPass(createConvertControlFlowToLLVMPass());
    pm.addPass(createReconcileUnrealizedCastsPass());
    pm.addPass(createCanonicalizerPass());
    return;
  }
  }
}

StringRef autoglm::stageName(Stage stage) {
  switch (stage) {
  case Stage::Autoglm:
    return "autoglm";
  case Stage::Linalg:
    return "linalg";
  case Stage::Memref:
    return "memref";
  case Stage::LLVM:
    return "llvm-dialect";
  }
  llvm_unreachable("unknown stage");
}

OpPrintingFlags autoglm::irPrintingFlags(bool locations) {
  OpPrintingFlags flags;
  flags.elideLargeElementsAttrs(16);
  flags.elideLargeResourceString(64);
  if (locations)
    flags.enableDebugInfo(/*enable=*/true, /*prettyForm=*/true);
  return flags;
}

namespace {

/// A nested pass also runs on function declarations (the runtime kernels
/// the model calls), where it has nothing to do: no dump or print for it.
bool isDeclaration(Operation *op) {
  auto function = dyn_cast<FunctionOpInterface>(op);
  return function && function.isExternal();
}

/// The adaptor that runs a nested pipeline (addNestedPass) is itself
/// reported as a pass; its IR is that of its last nested pass. (Its class
/// is not public, hence the name.)
bool isAdaptor(Pass *pass) {
  return pass->getName() == "mlir::detail::OpToOpPassAdaptor";
}

StringRef passName(Pass *pass) {
  return pass->getArgument().empty() ? pass->getName() : pass->getArgument();
}

/// Writes the module after each pass to DIR/NNN-<pass>.mlir, where NNN
/// counts every pass run: a pass that left the IR as it was has no file
/// (unless `all`), so the gaps in the numbers show them.
class IRDumper : public PassInstrumentation {
public:
  IRDumper(std::string dir, bool all, OpPrintingFlags flags, unsigned &counter)
      : dir_(std::move(dir)), all_(all), flags_(flags), counter_(counter) {}

  void dump(Operation *op, StringRef name) {
    while (op->getParentOp())
      op = op->getParentOp();
    llvm::SmallString<256> path(dir_);
    llvm::sys::path::append(path,
                            llvm::formatv("{0:d3}-{1}.mlir", counter_, name));
    std::error_code ec;
    llvm::raw_fd_ostream os(path, ec);
    if (ec) {
      llvm::errs() << "warning: cannot write IR dump '" << path
                   << "': " << ec.message() << "\n";
      return;
    }
    op->print(os, flags_);
  }

  void runBeforePass(Pass *pass, Operation *op) override {
    if (!all_ && !isAdaptor(pass) && !isDeclaration(op))
      before_.try_emplace(pass, op);
  }

  void runAfterPass(Pass *pass, Operation *op) override {
    if (isAdaptor(pass) || isDeclaration(op))
      return;
    ++counter_;
    if (!all_) {
      auto before = before_.find(pass);
      bool unchanged =
          before != before_.end() && before->second == OperationFingerPrint(op);
      if (before != before_.end())
        before_.erase(before);
      if (unchanged)
        return;
    }
    dump(op, passName(pass));
  }

private:
  std::string dir_;
  bool all_;
  OpPrintingFlags flags_;
  unsigned &counter_;
  DenseMap<Pass *, OperationFingerPrint> before_;
};

/// The pass names of a textual pipeline such as
/// `builtin.module(canonicalize{max-iterations=10},func.func(cse))`.
void collectPassNames(StringRef pipeline, std::vector<std::string> &names) {
  std::string plain; // without the options in braces
  int depth = 0;
  for (char c : pipeline) {
    if (c == '{')
      ++depth;
    else if (c == '}')
      --depth;
    else if (depth == 0 && !isspace(static_cast<unsigned char>(c)))
      plain += c;
  }
  // A word before '(' names the ops a nested pipeline runs on.
  std::string word;
  auto add = [&] {
    if (!word.empty() && !llvm::is_contained(names, word))
      names.push_back(word);
    word.clear();
  };
  for (char c : plain) {
    if (c == '(')
      word.clear();
    else if (c == ',' || c == ')')
      add();
    else
      word += c;
  }
  add();
}

} // namespace

std::vector<std::string>
autoglm::pipelinePassNames(const PipelineOptions &options) {
  std::vector<std::string> names;
  for (Stage stage : {Stage::Autoglm, Stage::Linalg, Stage::Memref, Stage::LLVM}) {
    OpPassManager pm(ModuleOp::getOperationName());
    buildStagePipeline(pm, stage, options);
    std::string text;
    llvm::raw_string_ostream os(text);
    pm.printAsTextualPipeline(os);
    collectPassNames(text, names);
  }
  return names;
}

LogicalResult autoglm::runPipeline(ModuleOp module, Stage last,
                                   const PipelineOptions &options) {
  OpPrintingFlags printing = irPrintingFlags(options.printLocations);
  unsigned dumpCounter = 0;
  if (!options.dumpIRDir.empty()) {
    if (auto ec = llvm::sys::fs::create_directories(options.dumpIRDir))
      return module.emitError("cannot create IR dump folder '")
             << options.dumpIRDir << "': " << ec.message();
    IRDumper(options.dumpIRDir, true, printing, dumpCounter)
        .dump(module, "import");
  }
  auto named = [](const std::vector<std::string> &names, Pass *pass) {
    return llvm::is_contained(names, pass->getArgument());
  };
  bool printsPasses = options.printIRAfterAll || !options.printIRBefore.empty() ||
                   !options.printIRAfter.empty();
  for (Stage stage : {Stage::Autoglm, Stage::Linalg, Stage::Memref, Stage::LLVM}) {
    PassManager pm(module.getContext());
    // Dumps and prints number and order the passes: one at a time.
    if (printsPasses || !options.dumpIRDir.empty())
      pm.getContext()->disableMultithreading();
    if (printsPasses) {
      pm.enableIRPrinting(
          [&](Pass *pass, Operation *op) {
            return named(options.printIRBefore, pass) && !isDeclaration(op);
          },
          [&](Pass *pass, Operation *op) {
            return (options.printIRAfterAll ||
                    named(options.printIRAfter, pass)) &&
                   !isDeclaration(op);
          },
          /*printModuleScope=*/true, /*printAfterOnlyOnChange=*/false,
          /*printAfterOnlyOnFailure=*/false, llvm::errs(), printing);
    }
    if (!options.dumpIRDir.empty())
      pm.addInstrumentation(std::make_unique<IRDumper>(
          options.dumpIRDir, options.dumpAll, printing, dumpCounter));
    std::optional<TimingScope> timing;
    if (options.timing) {
      timing = options.timing->nest(stageName(stage));
      pm.enableTiming(*timing);
    }
    buildStagePipeline(pm, stage, options);
    if (failed(pm.run(module)))
      return failure();
    if (options.printOpStats) {
      llvm::errs() << "// Operations after stage '" << stageName(stage)
                   << "':\n";
      PassManager stats(module.getContext());
      stats.addPass(createPrintOpStatsPass(llvm::errs()));
      if (failed(stats.run(module)))
        return failure();
    }
    if (options.afterStage)
      options.afterStage(stage, module);
    if (stage == last)
      break;
  }
  return success();
}

void autoglm::registerAutoGLMDialects(DialectRegistry &registry) {
  registry.insert<AutoGLMDialect, affine::AffineDialect, arith::ArithDialect,
                  bufferization::BufferizationDialect, func::FuncDialect,
                  linalg::LinalgDialect, LLVM::LLVMDialect, math::MathDialect,
                  memref::MemRefDialect, scf::SCFDialect, tensor::TensorDialect,
                  vector::VectorDialect>();
  arith::registerBufferizableOpInterfaceExternalModels(registry);
  linalg::registerBufferizableOpInterfaceExternalModels(registry);
  tensor::registerBufferizableOpInterfaceExternalModels(registry);
  scf::registerBufferizableOpInterfaceExternalModels(registry);
  bufferization::func_ext::registerBufferizableOpInterfaceExternalModels(
      registry);
  // Lets --autoglm-bufferize recognize memref.alloc as an allocation, so a
  // result buffer is replaced by the caller's output argument (no copy).
  memref::registerAllocationOpInterfaceExternalModels(registry);
  // Lets passes prove symbolic extents equal (autoglm-fuse-elementwise).
  affine::registerValueBoundsOpInterfaceExternalModels(registry);
  arith::registerValueBoundsOpInterfaceExternalModels(registry);
  linalg::registerValueBoundsOpInterfaceExternalModels(registry);
  tensor::registerValueBoundsOpInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerCudaDialects(registry);
}

void autoglm::registerAutoGLMPipelines() {
  registerAutoGLMPasses();
  registerCudaPipeline();
  static const std::pair<const char *, Stage> stages[] = {
      {"autoglm-stage-autoglm", Stage::Autoglm},
      {"autoglm-stage-linalg", Stage::Linalg},
      {"autoglm-stage-memref", Stage::Memref},
      {"autoglm-stage-llvm", Stage::LLVM}};
  for (const auto &[name, stage] : stages) {
    Stage s = stage;
    PassPipelineRegistration<>(name, "One stage of the autoglm-compile pipeline",
                               [s](OpPassManager &pm) {
                                 PipelineOptions checked;
                                 checked.verifyMemoryPlan = true;
                                 buildStagePipeline(pm, s, checked);
                               });
  }
}
