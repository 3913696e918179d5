//===- RowKernels.h - row-wise loop nests as one GPU kernel -*- C++ -*-===//
//
// Normalizations and softmax are short sequences of loop nests over the
// same rows: a fill of a per-row accumulator, a reduction along the row,
// arithmetic on the per-row result, an elementwise loop over the row that
// reads it. On a GPU they run as one kernel with a block per row, whose
// threads stride through the row in every step.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_PASSES_ROWKERNELS_H
#define AUTOGLM_PASSES_ROWKERNELS_H

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"

namespace autoglm {

/// A mapping of one parallel loop to `processor`.
mlir::gpu::ParallelLoopDimMappingAttr mapTo(mlir::MLIRContext *context,
                                            mlir::gpu::Processor processor);

/// Replaces each run of top-level `scf.parallel` nests of `func` around a
/// row reduction, over the same rows and with no other memory access in
/// between, by one nest mapped to a block per row and threads along the
/// row (see autoglm-map-loops-to-gpu's description). Nests that share
/// bytes with another row's, or access memory other than by loads and
/// stores, end a run. The nests it makes carry their GPU mapping.
void fuseRowKernels(mlir::func::FuncOp func);

} // namespace autoglm

#endif // AUTOGLM_PASSES_ROWKERNELS_H
