#include "compiler/TargetCpu.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/X86TargetParser.h"

namespace {

/// Whether `mcpu` (or this machine, for "native") has `feature`.
bool targetHas(llvm::StringRef mcpu, llvm::StringRef feature) {
  if (mcpu == "native")
    return llvm::sys::getHostCPUFeatures().lookup(feature);
  llvm::SmallVector<llvm::StringRef> features;
  llvm::X86::getFeaturesForCPU(mcpu, features);
  return llvm::is_contained(features, feature);
}

} // namespace

bool autoglm::targetHasAvx512(llvm::StringRef mcpu) {
  return targetHas(mcpu, "avx512f");
}

bool autoglm::targetConvertsBFloat16(llvm::StringRef mcpu) {
  return targetHas(mcpu, "avx512bf16") || targetHas(mcpu, "avxneconvert");
}
