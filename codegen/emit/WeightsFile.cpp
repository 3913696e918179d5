//===- WeightsFile.cpp - the weights file of a compiled model -------------===//

#include "codegen/emit/WeightsFile.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
using namespace autoglm;

static llvm::Error fail(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

/// Streams the bytes of one constant as they lie in memory at run time.
static void writeValue(llvm::raw_ostream &os, ElementsAttr value) {
  if (auto blob = dyn_cast<DenseResourceElementsAttr>(value)) {
    ArrayRef<char> data = blob.getData();
    os.write(data.data(), data.size());
    return;
  }
  auto dense = cast<DenseElementsAttr>(value);
  if (dense.getElementType().isInteger(1)) { // one byte per bool
    for (bool b : dense.getValues<bool>())
      os << char(b);
    return;
  }
  ArrayRef<char> raw = dense.getRawData();
  int64_t copies = dense.isSplat() ? dense.getNumElements() : 1;
  for (int64_t i = 0; i < copies; ++i)
    os.write(raw.data(), raw.size());
}

/// The weights' bytes as the runtime hands them to the code: each constant
/// at its offset, zeros between them and up to `size`.
static void writeWeights(llvm::raw_ostream &os, ArrayAttr records,
                         IntegerAttr size) {
  uint64_t start = os.tell();
  for (auto record : records.getAsRange<DictionaryAttr>()) {
    uint64_t offset = record.getAs<IntegerAttr>("offset").getInt();
    os.write_zeros(start + offset - os.tell());
    writeValue(os, record.getAs<ElementsAttr>("value"));
  }
  os.write_zeros(start + size.getInt() - os.tell());
}

std::string autoglm::takeWeightsBlob(ModuleOp module) {
  auto records = module->getAttrOfType<ArrayAttr>("autoglm.external_weights");
  auto size =
      module->getAttrOfType<IntegerAttr>("autoglm.external_weights_size");
  if (!records || !size)
    return {};
  std::string blob;
  blob.reserve(size.getInt());
  llvm::raw_string_ostream os(blob);
  writeWeights(os, records, size);
  os.flush();
  module->removeAttr("autoglm.external_weights");
  module->removeAttr("autoglm.external_weights_size");
  return blob;
}

llvm::Expected<uint64_t> autoglm::writeWeightsFile(ModuleOp module,
                                                   llvm::StringRef path) {
  auto records = module->getAttrOfType<ArrayAttr>("autoglm.external_weights");
  auto size = module->getAttrOfType<IntegerAttr>("autoglm.external_weights_size");
  if (!records || !size)
    return 0;
  llvm::SmallString<256> temp;
  int fd;
  llvm::SmallString<256> model(path);
  model += ".tmp-%%%%%%";
  if (auto ec = llvm::sys::fs::createUniqueFile(model, fd, temp))
    return fail("cannot create '" + path + "': " + ec.message());
  {
    llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
    writeWeights(os, records, size);
    os.close();
    if (os.has_error()) {
      llvm::sys::fs::remove(temp);
      return fail("cannot write '" + path + "': " + os.error().message());
    }
  }
  if (auto ec = llvm::sys::fs::rename(temp, path)) {
    llvm::sys::fs::remove(temp);
    return fail("cannot write '" + path + "': " + ec.message());
  }
  module->removeAttr("autoglm.external_weights");
  module->removeAttr("autoglm.external_weights_size");
  return size.getInt();
}
