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

#include <optional>
#include <string>

namespace autoglm {

enum class Stage {
  Autoglm, // imported graph, folded and canonicalized
  Linalg,  // linalg/tensor/arith/math on tensors
  Memref,  // bufferized, every buffer in the arena
  LLVM,    // LLVM dialect, ready for translation
};

struct PipelineOptions {
  bool printIRAfterAll = false;
  /// Write one numbered .mlir file per pass into this folder.
  std::string dumpIRDir;
};

/// Adds the passes that take a module from the previous stage to `stage`.
void buildStagePipeline(mlir::OpPassManager &pm, Stage stage);

/// Runs stages Autoglm..`last` on `module`; the arena size, known once the
/// Memref stage ran, is stored in `arenaSize`.
mlir::LogicalResult runPipeline(mlir::ModuleOp module, Stage last,
                                const PipelineOptions &options,
                                uint64_t &arenaSize);

/// Dialects, interfaces and translations every tool needs.
void registerAutoGLMDialects(mlir::DialectRegistry &registry);
/// AutoGLM passes and the stage pipelines, e.g. `autoglm-stage-memref`
/// (for autoglm-opt).
void registerAutoGLMPipelines();

/// Printing flags of all IR the tools write: weights are elided.
mlir::OpPrintingFlags irPrintingFlags();

} // namespace autoglm

#endif // AUTOGLM_COMPILER_PIPELINE_H
