//===- AutoGLMBase.td - constraints and op base classes -----*- tablegen -*-===//

#ifndef AUTOGLM_BASE_TD
#define AUTOGLM_BASE_TD

include "dialects/AutoGLMDialect.td"
include "mlir/IR/BuiltinAttributes.td"
include "mlir/Interfaces/InferTypeOpInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Type constraints
//===----------------------------------------------------------------------===//

def AGL_Element : AnyTypeOf<[AnyFloat, AnyInteger]>;
def AGL_Tensor : RankedTensorOf<[AGL_Element]>;
def AGL_FloatTensor : RankedTensorOf<[AnyFloat]>;
def AGL_IndexTensor : RankedTensorOf<[I32, I64, SI32, SI64]>;
def AGL_BoolTensor : RankedTensorOf<[I1]>;

class AGL_Op<string mnemonic, list<Trait> traits = []>
    : Op<AutoGLM_Dialect, mnemonic, !listconcat(traits, [Pure])>;

// Ops whose result type follows from operands and attributes.
class AGL_InferredOp<string mnemonic, list<Trait> traits = []>
    : AGL_Op<mnemonic, !listconcat(traits, [InferTypeOpAdaptor])>;

// Ops whose lowering handles symbolic (`?`) extents; the importer rejects
// symbolic shapes on every other op with a clear error.
def AGL_SymbolicShapes : NativeOpTrait<"SymbolicShapes"> {
  let cppNamespace = "::autoglm::traits";
}

#endif // AUTOGLM_BASE_TD
