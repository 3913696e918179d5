//===- TuningFile.cpp - reading autoglm-compile --tuning files ------------===//

#include "compiler/TuningFile.h"
#include "passes/Tuning.h"

#include "mlir/IR/Builders.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/TargetParser/Host.h"

#include "autoglm/kernels.h"

using namespace mlir;

namespace autoglm {

namespace {

llvm::Error failure(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// The largest blocking value that can take effect: the packing memory.
constexpr int64_t kMaxBlock = AGL_GEMM_SCRATCH_FLOATS;

llvm::Error checkKnob(const KnobSpec &spec, const llvm::json::Value &value,
                      const llvm::Twine &where) {
  switch (spec.type) {
  case KnobType::Bool:
    if (!value.getAsBoolean())
      return failure(where + ": expected true or false");
    return llvm::Error::success();
  case KnobType::Strategy: {
    std::optional<StringRef> text = value.getAsString();
    if (!text || !llvm::is_contained(convolutionStrategies(), *text))
      return failure(
          where + ": expected \"implicit-gemm\", \"im2col\" or \"winograd\"");
    return llvm::Error::success();
  }
  case KnobType::Lanes: {
    std::optional<int64_t> number = value.getAsInteger();
    if (!number || !llvm::is_contained({1, 4, 8, 16}, *number))
      return failure(where + ": expected 1, 4, 8 or 16 lanes");
    return llvm::Error::success();
  }
  case KnobType::Block: {
    std::optional<int64_t> number = value.getAsInteger();
    if (!number || *number < 1 || *number > kMaxBlock)
      return failure(where + llvm::formatv(": expected an integer from 1 to "
                                           "{0}",
                                           kMaxBlock));
    return llvm::Error::success();
  }

  }
  llvm_unreachable("knob type");
}

Attribute knobAttribute(Builder &b, const llvm::json::Value &value) {
  if (std::optional<bool> flag = value.getAsBoolean())
    return b.getBoolAttr(*flag);
  if (std::optional<StringRef> text = value.getAsString())
    return b.getStringAttr(*text);
  return b.getI64IntegerAttr(*value.getAsInteger());
}

} // namespace

llvm::Error checkTuningEntry(StringRef key, const llvm::json::Value &knobs,
                             StringRef where) {
  ArrayRef<KnobSpec> specs = knobsOfKind(key);
  if (specs.empty())
    return failure(llvm::formatv("{0}: \"{1}\" is not a tuning key (keys "
                                 "start with sgemm, conv2d, loop or a "
                                 "named op such as fill or copy)",
                                 where, key));
  const llvm::json::Object *object = knobs.getAsObject();
  if (!object)
    return failure(
        llvm::formatv("{0}: \"{1}\": expected an object of knobs", where, key));
  for (const auto &[name, value] : *object) {
    const KnobSpec *spec = llvm::find_if(
        specs, [&](const KnobSpec &s) { return s.name == name.str(); });
    if (spec == specs.end()) {
      std::string known;
      for (const KnobSpec &s : specs)
        known += (known.empty() ? "" : ", ") + s.name.str();
      return failure(llvm::formatv("{0}: \"{1}\": unknown knob \"{2}\" "
                                   "(this kind takes {3})",
                                   where, key, name.str(), known));
    }
    if (llvm::Error error =
            checkKnob(*spec, value,
                      llvm::formatv("{0}: \"{1}\": knob \"{2}\"", where, key,
                                    name.str())))
      return error;
  }
  return llvm::Error::success();
}

llvm::Expected<DictionaryAttr> readTuningFile(StringRef path, StringRef target,
                                              MLIRContext *context,
                                              std::string &note) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return failure(llvm::formatv("cannot read tuning file '{0}': {1}", path,
                                 buffer.getError().message()));
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return failure(llvm::formatv("tuning file '{0}' is not valid JSON: {1}",
                                 path, llvm::toString(json.takeError())));
  const llvm::json::Object *root = json->getAsObject();
  if (!root || root->getString("format") != "autoglm-tuning")
    return failure(llvm::formatv("'{0}' is not a tuning file (expected an "
                                 "object with \"format\": \"autoglm-tuning\")",
                                 path));
  if (root->getInteger("version") != 1)
    return failure(llvm::formatv("tuning file '{0}': version {1} is not "
                                 "supported (expected 1)",
                                 path,
                                 root->getInteger("version").value_or(0)));
  const llvm::json::Object *targets = root->getObject("targets");
  if (!targets)
    return failure(
        llvm::formatv("tuning file '{0}': no \"targets\" object", path));
  Builder b(context);
  // Check every section, not only the one used: a file is right or wrong.
  for (const auto &[name, section] : *targets) {
    const llvm::json::Object *entries = section.getAsObject();
    std::string where =
        llvm::formatv("tuning file '{0}', target \"{1}\"", path, name.str());
    if (!entries)
      return failure(where + ": expected an object of kernels");
    for (const auto &[key, knobs] : *entries)
      if (llvm::Error error = checkTuningEntry(key, knobs, where))
        return std::move(error);
  }
  const llvm::json::Object *entries = targets->getObject(target);
  if (!entries) {
    std::string known;
    for (const auto &[name, section] : *targets)
      known += (known.empty() ? "" : ", ") + name.str();
    note = llvm::formatv("tuning file '{0}' has no section for target \"{1}\" "
                         "(it has: {2}); every kernel takes the cost model's "
                         "choices",
                         path, target, known.empty() ? "none" : known);
    return b.getDictionaryAttr({});
  }
  SmallVector<NamedAttribute> kernels;
  for (const auto &[key, knobs] : *entries) {
    SmallVector<NamedAttribute> values;
    for (const auto &[name, value] : *knobs.getAsObject())
      values.push_back(b.getNamedAttr(name.str(), knobAttribute(b, value)));
    kernels.push_back(b.getNamedAttr(key.str(), b.getDictionaryAttr(values)));
  }
  return b.getDictionaryAttr(kernels);
}

std::string tuningTargetName(StringRef mcpu) {
  return mcpu == "native" ? llvm::sys::getHostCPUName().str() : mcpu.str();
}

} // namespace autoglm
