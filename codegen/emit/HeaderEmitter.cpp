//===- HeaderEmitter.cpp - the C header of a compiled model ---------------===//

#include "codegen/emit/HeaderEmitter.h"

#include "codegen/emit/EntryPoints.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace autoglm;

static void emitTensors(llvm::raw_ostream &os, const std::string &prefix,
                        const std::vector<TensorSignature> &tensors,
                        bool symbolic) {
  os << "#define " << prefix << "S " << tensors.size() << "\n";
  for (auto [i, t] : llvm::enumerate(tensors)) {
    std::string id = prefix + "_" + std::to_string(i);
    int64_t count = 1;
    for (int64_t d : t.shape)
      count *= d;
    os << "#define " << id << "_NAME \"";
    llvm::printEscapedString(t.name, os);
    os << "\"\n#define " << id << "_DTYPE " << t.dtype << "\n"
       << "#define " << id << "_RANK " << t.shape.size() << "\n"
       << "#define " << id << "_NUM_ELEMENTS " << count << "\n"
       << "#define " << id << "_NUM_BYTES " << t.numBytes() << "\n"
       << "#define " << id << "_SHAPE {";
    for (auto [j, d] : llvm::enumerate(t.shape))
      os << (j ? ", " : "") << d;
    os << "}\n";
    if (!symbolic)
      continue;
    os << "#define " << id << "_DIM_SYMBOLS {";
    for (size_t j = 0; j < t.shape.size(); ++j)
      os << (j ? ", " : "") << (t.isStatic() ? kDimStatic : t.dimSymbols[j]);
    os << "}\n";
  }
}

static void emitSymbols(llvm::raw_ostream &os, const std::string &upper,
                        const ModelSignature &sig) {
  size_t outputDims = 0;
  for (const TensorSignature &t : sig.outputs)
    outputDims += t.shape.size();
  os << "/* Symbolic dimensions: each run chooses their values, in\n"
     << "   [MIN, MAX], through the shapes of its inputs. A tensor's\n"
     << "   _DIM_SYMBOLS says per dimension: -1 static, k symbol k, -2\n"
     << "   computed from the symbols (outputs). For dimensions that are\n"
     << "   not static, _SHAPE, _NUM_ELEMENTS and _NUM_BYTES below are the\n"
     << "   upper bounds, which buffers must hold. */\n"
     << "#define " << upper << "_SYMBOLS " << sig.symbols.size() << "\n";
  for (auto [k, symbol] : llvm::enumerate(sig.symbols)) {
    std::string id = upper + "_SYMBOL_" + std::to_string(k);
    os << "#define " << id << "_NAME \"";
    llvm::printEscapedString(symbol.name, os);
    os << "\"\n#define " << id << "_MIN " << symbol.min << "\n"
       << "#define " << id << "_MAX " << symbol.max << "\n";
  }
  os << "/* Extents " << sig.name << "_run_shaped writes to output_dims. */\n"
     << "#define " << upper << "_OUTPUT_DIMS " << outputDims << "\n\n";
}

std::string autoglm::emitHeader(const ModelSignature &sig,
                                llvm::StringRef sourceName) {
  std::string text;
  llvm::raw_string_ostream os(text);
  std::string upper = llvm::StringRef(sig.name).upper();
  os << "/* " << sig.name << ": compiled by autoglm-compile from "
     << sourceName << ". */\n"
     << "#ifndef " << upper << "_AUTOGLM_H\n#define " << upper
     << "_AUTOGLM_H\n\n#include <autoglm/runtime.h>\n\n";
  os << "/* Scratch memory one instance needs, 64-byte aligned. */\n"
     << "#define " << upper << "_ARENA_SIZE " << sig.arenaSize << "u\n"
     << (sig.weightsFile.empty()
             ? "/* Read-only weights embedded in the artifact. */\n"
             : "/* Read-only weights, in the file below (map it with "
               "agl_weights_map). */\n")
     << "#define " << upper << "_WEIGHTS_SIZE " << sig.weightsSize << "u\n";
  if (!sig.weightsFile.empty()) {
    os << "#define " << upper << "_WEIGHTS_FILE \"";
    llvm::printEscapedString(sig.weightsFile, os);
    os << "\"\n";
  }
  os << "\n";
  bool symbolic = sig.readsSymbolValues();
  if (symbolic)
    emitSymbols(os, upper, sig);
  emitTensors(os, upper + "_INPUT", sig.inputs, symbolic);
  os << "\n";
  emitTensors(os, upper + "_OUTPUT", sig.outputs, symbolic);
  os << "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* Descriptor for the runtime (agl_instance_create). */\n"
     << "const agl_model_desc *" << sig.name << "_model(void);\n"
     << "uint64_t " << sig.name << "_arena_size(void);\n";
  std::string arena =
      " arena holds " + upper + "_ARENA_SIZE bytes" +
      (!sig.weightsFile.empty() ? ", weights the mapped weights file"
       : !sig.weightsData.empty()
           ? ", weights the descriptor's weights_data (a GPU "
             "model: its device copy)"
           : std::string());
  if (symbolic) {
    os << "/* One inference. symbols[k] is the value of symbol k, within its\n"
       << "   range; inputs[i] / outputs[i] point to dense row-major buffers\n"
       << "   of the shapes above with those values (output buffers sized\n"
       << "   for the bounds);" << arena
       << (sig.takesWeights() ? "" : ", weights is null") << ".\n"
       << "   Unless output_dims is null, it receives the " << upper
       << "_OUTPUT_DIMS\n   actual extents of the outputs, one after the "
          "other.\n"
       << (sig.kvCache && sig.kvCache->lengthSlot >= 0
               ? "   symbols[" + upper +
                     "_SYMBOLS] is the KV cache length, which the caller\n"
                     "   keeps and advances by each run's new positions.\n"
               : std::string())
       << "   Returns 0, or " << kBadSymbolsCode
       << " when a symbol is out of range. Allocates nothing. */\n"
       << "int32_t " << sig.name
       << "_run_shaped(void *arena, const void *weights,\n"
       << "    const void *const *inputs, void *const *outputs,\n"
       << "    const int64_t *symbols, int64_t *output_dims);\n";
  } else {
    os << "/* One inference. inputs[i] / outputs[i] point to dense row-major\n"
       << "   buffers of the shapes above;" << arena
       << ".\n   Returns 0. Allocates nothing. */\n";
    if (!sig.takesWeights())
      os << "int32_t " << sig.name
         << "_run(void *arena, const void *const *inputs, void *const "
            "*outputs);\n";
    os << "int32_t " << sig.name
       << "_run_with_weights(void *arena, const void *weights,\n"
       << "    const void *const *inputs, void *const *outputs);\n";
  }
  os << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return text;
}
