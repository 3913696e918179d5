//===- FloatValues.cpp - the pages of a constant weight -------------------===//

#include "dialects/FloatValues.h"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

void autoglm::releaseConstantPages(mlir::Attribute attr) {
#if defined(__linux__) && defined(MADV_PAGEOUT)
  auto blob = llvm::dyn_cast_or_null<mlir::DenseResourceElementsAttr>(attr);
  if (!blob)
    return;
  llvm::ArrayRef<char> data = blob.getData();
  // Whole pages inside the constant only: its neighbours may still be
  // read. MADV_PAGEOUT reclaims clean pages of a file mapping and leaves
  // anonymous memory its contents (it swaps them out, if anywhere).
  const uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
  uintptr_t begin = ((uintptr_t)data.data() + page - 1) / page * page;
  uintptr_t end = ((uintptr_t)data.data() + data.size()) / page * page;
  if (begin < end)
    (void)madvise((void *)begin, end - begin, MADV_PAGEOUT);
#else
  (void)attr;
#endif
}

void autoglm::dropOwnedBlob(mlir::Attribute attr) {
  auto blob = llvm::dyn_cast_or_null<mlir::DenseResourceElementsAttr>(attr);
  if (!blob)
    return;
  mlir::DenseResourceElementsHandle handle = blob.getRawHandle();
  mlir::AsmResourceBlob *bytes = handle.getBlob();
  if (bytes && bytes->getDeleter())
    handle.getResource()->setBlob(mlir::AsmResourceBlob());
}
