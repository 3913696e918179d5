#include "compiler/TargetCpu.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/X86TargetParser.h"

bool autoglm::targetHasAvx512(llvm::StringRef mcpu) {
  if (mcpu == "native")
    return llvm::sys::getHostCPUFeatures().lookup("avx512f");
  llvm::SmallVector<llvm::StringRef> features;
  llvm::X86::getFeaturesForCPU(mcpu, features);
  return llvm::is_contained(features, "avx512f");
}
