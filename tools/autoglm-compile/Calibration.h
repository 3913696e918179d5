//===- Calibration.h - int8 calibration and its accuracy report -----------===//
//
// --precision int8 --calibrate DIR: the compiler builds the float32 model
// with the activations to quantize as extra outputs, runs it on the input
// sets in DIR, and takes each activation's range from what it saw. Then it
// runs the int8 build on the same sets and reports how far its outputs are
// from float32's.
//
//===----------------------------------------------------------------------===//

#ifndef AUTOGLM_COMPILE_CALIBRATION_H
#define AUTOGLM_COMPILE_CALIBRATION_H

#include "codegen/emit/ObjectEmitter.h"
#include "compiler/Pipeline.h"

#include "Tensor.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace autoglm {

/// One set of model inputs: the tensors of a folder, by file name without
/// its extension.
struct CalibrationSet {
  std::string name; // the folder, for messages
  std::map<std::string, run::Tensor> tensors;
};

/// The input sets in `dir`: each subfolder (in name order) is one set, or
/// `dir` itself when it has none; every .npy and .pb file in it is read.
/// A build takes, for its input NAME, NAME.npy or NAME.pb, or for its I-th
/// input input_I.npy / input_I.pb (the layouts of models/ and of ONNX's
/// test data), with its dtype and shape (within the ranges of symbolic
/// ones).
llvm::Expected<std::vector<CalibrationSet>>
readCalibrationSets(const std::string &dir);

/// What a build computed on the input sets.
struct BuildOutputs {
  std::vector<std::string> names;               // the outputs'
  std::vector<std::vector<run::Tensor>> sets;   // per set, in that order
};

/// Compiles (a clone of) `module` with `options` into a temporary shared
/// library and runs it on every set. `what` names the build in the
/// progress bar.
llvm::Expected<BuildOutputs>
compileAndRun(mlir::ModuleOp module, PipelineOptions options,
              const EmitOptions &emit, const std::vector<CalibrationSet> &sets,
              llvm::StringRef what);

/// How an activation's range is read from what calibration saw.
struct CalibrationMethod {
  /// "minmax": the smallest and largest values; "percentile": the values
  /// at `percentile` % and 100 - `percentile` % (outliers clipped);
  /// "entropy": the range of least KL divergence (ActivationRange.h).
  std::string name = "minmax";
  double percentile = 99.99;
};

/// The ranges (minimum, maximum per activation) that
/// autoglm-quantize-products takes, from the outputs named
/// autoglm.calibration.N of the calibration build.
llvm::Expected<std::vector<double>>
activationRanges(const BuildOutputs &calibration,
                 const CalibrationMethod &method);

/// Per output of `quantized`: largest and mean absolute error and cosine
/// similarity against the output of the same name of `reference`, over all
/// sets, as text or JSON.
std::string accuracyReport(const BuildOutputs &reference,
                           const BuildOutputs &quantized, bool json);

} // namespace autoglm

#endif // AUTOGLM_COMPILE_CALIBRATION_H
