//===- ObjectEmitter.cpp - LLVM dialect to native artifacts ---------------===//

#include "codegen/emit/ObjectEmitter.h"
#include "codegen/emit/EntryPoints.h"
#include "codegen/emit/WeightsFile.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"

using namespace autoglm;
using llvm::Error;

static Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

Error autoglm::writeFileAtomically(llvm::StringRef path,
                                   llvm::StringRef contents) {
  if (path == "-") {
    llvm::outs() << contents;
    return Error::success();
  }
  llvm::SmallString<256> temp;
  int fd;
  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%";
  if (auto ec = llvm::sys::fs::createUniqueFile(model, fd, temp))
    return fail("cannot create '" + path + "': " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    os << contents;
    os.close();
    if (os.has_error()) {
      llvm::sys::fs::remove(temp);
      return fail("cannot write '" + path + "': " + os.error().message());
    }
  }
  if (auto ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return fail("cannot write '" + path + "': " + ec.message());
  }
  return Error::success();
}

static llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const EmitOptions &options) {
  static bool initialized = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    return true;
  }();
  (void)initialized;
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  std::string error;
  const llvm::Target *target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return fail(error);
  std::string cpu = options.cpu;
  std::string features;
  if (cpu == "native") {
    cpu = llvm::sys::getHostCPUName().str();
    for (const auto &f : llvm::sys::getHostCPUFeatures())
      features += (f.second ? "+" : "-") + f.first().str() + ",";
  } else if (!std::unique_ptr<llvm::MCSubtargetInfo>(
                  target->createMCSubtargetInfo(triple, cpu, ""))
                  ->isCPUStringValid(cpu)) {
    return fail("unknown CPU '" + cpu + "' for " + triple.str() +
                " (try --mcpu=native, x86-64-v3, skylake-avx512, ...)");
  }
  llvm::TargetOptions targetOptions;
  auto level = options.optLevel >= 2 ? llvm::CodeGenOptLevel::Aggressive
                                     : llvm::CodeGenOptLevel::None;
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      triple, cpu, features, targetOptions, llvm::Reloc::PIC_, std::nullopt,
      level));
  if (!machine)
    return fail("cannot create a target machine for " + triple.str());
  return machine;
}

static void optimize(llvm::Module &module, llvm::TargetMachine &machine,
                     unsigned level) {
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PipelineTuningOptions tuning;
  tuning.LoopVectorization = level >= 2;
  tuning.SLPVectorization = level >= 2;
  llvm::PassBuilder builder(&machine, tuning);
  builder.registerModuleAnalyses(mam);
  builder.registerCGSCCAnalyses(cgam);
  builder.registerFunctionAnalyses(fam);
  builder.registerLoopAnalyses(lam);
  builder.crossRegisterProxies(lam, fam, cgam, mam);
  llvm::OptimizationLevel opt = level == 0   ? llvm::OptimizationLevel::O0
                                : level == 1 ? llvm::OptimizationLevel::O1
                                : level == 2 ? llvm::OptimizationLevel::O2
                                             : llvm::OptimizationLevel::O3;
  llvm::ModulePassManager passes =
      level == 0 ? builder.buildO0DefaultPipeline(opt)
                 : builder.buildPerModuleDefaultPipeline(opt);
  passes.run(module, mam);
}

static llvm::Expected<std::string> machineCode(llvm::Module &module,
                                               llvm::TargetMachine &machine,
                                               llvm::CodeGenFileType type) {
  llvm::SmallString<0> buffer;
  llvm::raw_svector_ostream os(buffer);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, os, nullptr, type))
    return fail("the target cannot emit this kind of file");
  passes.run(module);
  return std::string(buffer.str());
}

/// Links an object into a shared library with the system C compiler.
static Error linkSharedLibrary(llvm::StringRef object, llvm::StringRef path) {
  auto cc = llvm::sys::findProgramByName("cc");
  if (!cc)
    return fail("cannot find the system C compiler 'cc' to link '" + path + "'");
  llvm::SmallString<256> temp(path);
  temp += ".tmp-link";
  // Report an output that cannot be created in our own words rather than
  // leaving it to the linker's multi-line diagnostics.
  {
    int probe;
    if (auto ec = llvm::sys::fs::openFileForWrite(temp, probe))
      return fail("cannot create '" + path + "': " + ec.message());
    llvm::sys::Process::SafelyCloseFileDescriptor(probe);
  }
  llvm::SmallString<256> objectFile;
  int fd;
  if (auto ec = llvm::sys::fs::createTemporaryFile("autoglm", "o", fd, objectFile)) {
    llvm::sys::fs::remove(temp);
    return fail("cannot create a temporary object file: " + ec.message());
  }
  {
    llvm::raw_fd_ostream os(fd, true);
    os << object;
  }
  std::string error;
  llvm::SmallVector<llvm::StringRef> args = {*cc, "-shared", "-o", temp,
                                             objectFile, "-lm"};
  int rc = llvm::sys::ExecuteAndWait(*cc, args, std::nullopt, {}, 0, 0, &error);
  llvm::sys::fs::remove(objectFile);
  if (rc != 0) {
    llvm::sys::fs::remove(temp);
    return fail("linking '" + path + "' failed" +
                (error.empty() ? "" : ": " + error));
  }
  if (auto ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return fail("cannot write '" + path + "': " + ec.message());
  }
  return Error::success();
}

Error autoglm::emitArtifact(mlir::ModuleOp module, ModelSignature &signature,
                            ArtifactKind kind, llvm::StringRef path,
                            const EmitOptions &options) {
  auto machine = createTargetMachine(options);
  if (!machine)
    return machine.takeError();
  std::string blob;
  llvm::Expected<uint64_t> externalSize = uint64_t(0);
  if (options.embedWeights)
    blob = takeWeightsBlob(module);
  else
    externalSize = writeWeightsFile(module, options.weightsPath);
  if (!externalSize)
    return externalSize.takeError();
  if (*externalSize > 0)
    signature.weightsFile = llvm::sys::path::filename(options.weightsPath).str();
  // Argument names served the signature; LLVM has no use for them.
  module.walk([](mlir::LLVM::LLVMFuncOp func) {
    func.setArgAttrsAttr(nullptr);
    func.setResAttrsAttr(nullptr);
  });
  llvm::LLVMContext context;
  std::unique_ptr<llvm::Module> llvmModule =
      mlir::translateModuleToLLVMIR(module, context, signature.name);
  if (!llvmModule)
    return fail("translation to LLVM IR failed");
  // No paths in the artifact: the same model gives the same bytes anywhere.
  llvmModule->setSourceFileName(signature.name);
  llvmModule->setDataLayout((*machine)->createDataLayout());
  llvmModule->setTargetTriple((*machine)->getTargetTriple());
  // A GPU model's code takes all its weights as a buffer: none, if no
  // file or data holds any (its host code's constants are no weights).
  signature.weightsSize = *externalSize > 0 ? *externalSize
                          : signature.device == kDeviceCuda
                              ? 0
                              : constantDataSize(*llvmModule);
  if (!blob.empty()) {
    signature.weightsData = signature.name + "_weights_data";
    auto *data = llvm::ConstantDataArray::getString(context, blob,
                                                    /*AddNull=*/false);
    auto *global = new llvm::GlobalVariable(
        *llvmModule, data->getType(), /*isConstant=*/true,
        llvm::GlobalValue::PrivateLinkage, data, signature.weightsData);
    global->setAlignment(llvm::Align(kArenaAlignment));
    signature.weightsSize = blob.size();
  }
  if (Error e = addEntryPoints(*llvmModule, "main", signature,
                               kind == ArtifactKind::SharedLibrary))
    return e;
  if (llvm::verifyModule(*llvmModule, &llvm::errs()))
    return fail("generated LLVM IR is invalid");
  optimize(*llvmModule, **machine, options.optLevel);

  if (kind == ArtifactKind::LLVMIR) {
    std::string text;
    llvm::raw_string_ostream os(text);
    llvmModule->print(os, nullptr);
    return writeFileAtomically(path, text);
  }
  auto code = machineCode(*llvmModule, **machine,
                          kind == ArtifactKind::Assembly
                              ? llvm::CodeGenFileType::AssemblyFile
                              : llvm::CodeGenFileType::ObjectFile);
  if (!code)
    return code.takeError();
  if (kind == ArtifactKind::SharedLibrary)
    return linkSharedLibrary(*code, path);
  return writeFileAtomically(path, *code);
}
