//===- Passes.h - AutoGLM passes -------------------------------*- C++ -*-===//
#ifndef AUTOGLM_PASSES_PASSES_H
#define AUTOGLM_PASSES_PASSES_H

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/NVGPU/IR/NVGPUDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace autoglm {

#define GEN_PASS_DECL
#include "passes/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "passes/Passes.h.inc"

/// The lanes --autoglm-vectorize-loops gives `op`'s innermost loop: the
/// widest of `widest`, widest/2, ..., 4 that it can take, or 1 (scalar).
int64_t vectorLanesFor(mlir::linalg::GenericOp op, int64_t widest = 16);

/// The lanes the pass gives `op`'s innermost loop where a scalar rest may
/// follow the whole vectors: vectorLanesFor's, else the width that leaves
/// the fewest iterations (4 lanes for a 14-wide loop: 3 vectors and 2
/// scalar iterations), or 1.
int64_t vectorLanesWithTail(mlir::linalg::GenericOp op, int64_t widest = 16);

/// The same after the pass folds the loops of `op` into one where it does
/// (an elementwise nest over whole contiguous buffers whose innermost
/// extent takes no full vector).
int64_t vectorLanesAfterFolding(mlir::linalg::GenericOp op,
                                int64_t widest = 16);

/// The loop of `op` that --autoglm-parallelize-loops splits across the
/// thread pool (with its `min-work`), or nothing if `op` stays serial.
std::optional<unsigned> loopSplitAcrossThreads(mlir::linalg::LinalgOp op,
                                               int64_t minWork = 32768);

} // namespace autoglm

#endif // AUTOGLM_PASSES_PASSES_H
