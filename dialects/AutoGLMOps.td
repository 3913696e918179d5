//===- AutoGLMOps.td - autoglm operators -------------------*- tablegen -*-===//
//
// The operators, one file per family under ops/.
//
//===----------------------------------------------------------------------===//

#ifndef AUTOGLM_OPS_TD
#define AUTOGLM_OPS_TD

include "dialects/ops/Elementwise.td"
include "dialects/ops/Quantization.td"
include "dialects/ops/LinearAlgebra.td"
include "dialects/ops/Normalization.td"
include "dialects/ops/ConvPool.td"
include "dialects/ops/Shapes.td"
include "dialects/ops/Attention.td"

#endif // AUTOGLM_OPS_TD
