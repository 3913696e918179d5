//===- OnnxModel.h - a loaded ONNX model and the data it owns ---*- C++ -*-===//
#ifndef AUTOGLM_COMPILER_IMPORTER_ONNXMODEL_H
#define AUTOGLM_COMPILER_IMPORTER_ONNXMODEL_H

#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <onnx/onnx_pb.h>

#include <deque>
#include <memory>
#include <string>

namespace autoglm {

/// An ONNX ModelProto plus every byte its weights live in. Weight constants in
/// the imported IR point into this memory (no copies), so it must outlive the
/// MLIR module.
class OnnxModel {
public:
  /// Reads and parses `path`; errors name the file and what is wrong with it.
  static llvm::Expected<std::unique_ptr<OnnxModel>> load(llvm::StringRef path);

  const onnx::ModelProto &proto() const { return proto_; }
  const std::string &path() const { return path_; }
  /// Version of the default ("" / "ai.onnx") operator set.
  int64_t defaultOpset() const { return opset_; }

  /// The bytes of an initializer stored as external data (mapped, not read).
  llvm::Expected<llvm::ArrayRef<char>>
  externalData(const onnx::TensorProto &tensor);

  /// Keeps `bytes` alive for the model's lifetime and returns a view of it.
  llvm::ArrayRef<char> own(std::string bytes);

private:
  onnx::ModelProto proto_;
  std::string path_;
  int64_t opset_ = 0;
  llvm::StringMap<std::unique_ptr<llvm::MemoryBuffer>> externalFiles_;
  std::deque<std::string> owned_;
};

} // namespace autoglm

#endif // AUTOGLM_COMPILER_IMPORTER_ONNXMODEL_H
