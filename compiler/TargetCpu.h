//===- TargetCpu.h - what the target CPU offers the cost models -*- C++ -*-===//
#ifndef AUTOGLM_COMPILER_TARGETCPU_H
#define AUTOGLM_COMPILER_TARGETCPU_H

#include "llvm/ADT/StringRef.h"

namespace autoglm {

/// Whether `mcpu` (an LLVM CPU name, or "native" for this machine) has
/// AVX-512 (avx512f): the runtime then runs its 512-bit kernels, whose
/// speeds some cost models were measured on.
bool targetHasAvx512(llvm::StringRef mcpu);

/// Whether `mcpu` has an instruction that converts f32 to bfloat16
/// (AVX512_BF16 or AVX-NE-CONVERT), which LLVM uses for the conversion
/// instead of a call of the compiler runtime.
bool targetConvertsBFloat16(llvm::StringRef mcpu);

} // namespace autoglm

#endif // AUTOGLM_COMPILER_TARGETCPU_H
