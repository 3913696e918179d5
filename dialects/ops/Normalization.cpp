//===- Normalization.cpp - type inference of Normalization ops ------------------------------===//
//
// Inference and verifiers of the ops in ops/Normalization.td that are not in
// AutoGLMOps.cpp.
//
//===----------------------------------------------------------------------===//

#include "dialects/AutoGLMDialect.h"
#include "dialects/InferenceUtils.h"
#include "dialects/ShapeUtils.h"

using namespace mlir;
using namespace autoglm;
using namespace autoglm::inference;
