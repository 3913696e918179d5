//===- OnnxModel.cpp - reading .onnx files and their external data --------===//

#include "compiler/importer/OnnxModel.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

using namespace autoglm;
using llvm::Expected;
using llvm::StringRef;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

Expected<std::unique_ptr<OnnxModel>> OnnxModel::load(StringRef path) {
  if (llvm::sys::fs::is_directory(path))
    return fail("'" + path + "' is a directory, not an ONNX model file");
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer)
    return fail("cannot read '" + path + "': " + buffer.getError().message());
  auto model = std::make_unique<OnnxModel>();
  model->path_ = path.str();
  StringRef bytes = (*buffer)->getBuffer();
  if (bytes.empty())
    return fail("'" + path + "' is empty, not an ONNX model");
  if (bytes.size() > INT32_MAX)
    return fail("'" + path + "' is larger than 2 GiB; store the weights as "
                "ONNX external data");
  if (!model->proto_.ParseFromArray(bytes.data(), (int)bytes.size()))
    return fail("'" + path +
                "' is not a valid ONNX model (truncated or corrupt protobuf)");
  if (!model->proto_.has_graph())
    return fail("'" + path + "' has no graph");
  if (model->proto_.ir_version() < 3)
    return fail("'" + path + "' declares IR version " +
                llvm::Twine(model->proto_.ir_version()) +
                "; IR versions 3 and newer are supported");
  for (const auto &opset : model->proto_.opset_import())
    if (opset.domain().empty() || opset.domain() == "ai.onnx")
      model->opset_ = opset.version();
  if (model->opset_ == 0) {
    std::string domains;
    for (const auto &opset : model->proto_.opset_import())
      domains += (domains.empty() ? "'" : ", '") + opset.domain() + "'";
    return fail("'" + path + "' uses only the operator domains " + domains +
                ", which are not supported (only the default ONNX domain is)");
  }
  return std::move(model);
}

Expected<llvm::ArrayRef<char>>
OnnxModel::externalData(const onnx::TensorProto &tensor) {
  std::string location;
  uint64_t offset = 0, length = 0;
  bool hasLength = false;
  for (const auto &entry : tensor.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset")
      offset = std::stoull(entry.value());
    else if (entry.key() == "length")
      length = std::stoull(entry.value()), hasLength = true;
  }
  std::string what = "external data of tensor '" + tensor.name() + "'";
  if (location.empty())
    return fail(what + " names no location");
  if (llvm::sys::path::is_absolute(location) ||
      StringRef(location).contains(".."))
    return fail(what + ": location '" + location +
                "' must be a path relative to the model's folder");
  llvm::SmallString<256> file(llvm::sys::path::parent_path(path_));
  llvm::sys::path::append(file, location);
  auto &mapped = externalFiles_[file];
  if (!mapped) {
    auto buffer = llvm::MemoryBuffer::getFile(file, false, false);
    if (!buffer)
      return fail("cannot read " + what + " from '" + file +
                  "': " + buffer.getError().message());
    mapped = std::move(*buffer);
  }
  uint64_t size = mapped->getBufferSize();
  if (!hasLength)
    length = offset <= size ? size - offset : 0;
  if (offset > size || length > size - offset)
    return fail(what + " lies outside '" + file + "' (offset " +
                llvm::Twine(offset) + ", length " + llvm::Twine(length) +
                ", file size " + llvm::Twine(size) + ")");
  return llvm::ArrayRef<char>(mapped->getBufferStart() + offset, length);
}

llvm::ArrayRef<char> OnnxModel::own(std::string bytes) {
  owned_.push_back(std::move(bytes));
  return {owned_.back().data(), owned_.back().size()};
}
