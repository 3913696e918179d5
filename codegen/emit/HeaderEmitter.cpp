//===- HeaderEmitter.cpp - the C header of a compiled model ---------------===//

#include "codegen/emit/HeaderEmitter.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

using namespace autoglm;

static void emitTensors(llvm::raw_ostream &os, const std::string &prefix,
                        const std::vector<TensorSignature> &tensors) {
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
  }
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
  emitTensors(os, upper + "_INPUT", sig.inputs);
  os << "\n";
  emitTensors(os, upper + "_OUTPUT", sig.outputs);
  os << "\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n"
     << "/* Descriptor for the runtime (agl_instance_create). */\n"
     << "const agl_model_desc *" << sig.name << "_model(void);\n"
     << "uint64_t " << sig.name << "_arena_size(void);\n"
     << "/* One inference. inputs[i] / outputs[i] point to dense row-major\n"
     << "   buffers of the shapes above; arena holds " << upper
     << "_ARENA_SIZE bytes" << (sig.weightsFile.empty() ? "" : ", weights the mapped weights file")
     << ".\n   Returns 0. Allocates nothing. */\n";
  if (sig.weightsFile.empty())
    os << "int32_t " << sig.name
       << "_run(void *arena, const void *const *inputs, void *const *outputs);\n";
  os << "int32_t " << sig.name
     << "_run_with_weights(void *arena, const void *weights,\n"
     << "    const void *const *inputs, void *const *outputs);\n"
     << "\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n";
  return text;
}
