//===- ShapeUtils.h - shape arithmetic shared by ops and lowerings -*- C++ -*-===//
#ifndef AUTOGLM_DIALECTS_SHAPEUTILS_H
#define AUTOGLM_DIALECTS_SHAPEUTILS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace autoglm {

inline int64_t product(llvm::ArrayRef<int64_t> dims) {
  int64_t p = 1;
  for (int64_t d : dims)
    p *= d;
  return p;
}

/// Number of elements a slice start:end:step selects (end is exclusive).
inline int64_t sliceExtent(int64_t start, int64_t end, int64_t step) {
  int64_t n = step > 0 ? (end - start + step - 1) / step
                       : (start - end + (-step) - 1) / (-step);
  return n > 0 ? n : 0;
}

/// numpy matmul operands viewed as batch x [m, k] and batch x [k, n]; a 1-D
/// lhs is a row vector, a 1-D rhs a column vector.
struct MatMulShape {
  llvm::SmallVector<int64_t> lhsBatch, rhsBatch;
  int64_t m = 1, lhsK = 1, rhsK = 1, n = 1;
};

inline MatMulShape getMatMulShape(llvm::ArrayRef<int64_t> lhs,
                                  llvm::ArrayRef<int64_t> rhs) {
  MatMulShape s;
  if (lhs.size() == 1) {
    s.lhsK = lhs[0];
  } else {
    s.lhsBatch.assign(lhs.begin(), lhs.end() - 2);
    s.m = lhs[lhs.size() - 2];
    s.lhsK = lhs.back();
  }
  if (rhs.size() == 1) {
    s.rhsK = rhs[0];
  } else {
    s.rhsBatch.assign(rhs.begin(), rhs.end() - 2);
    s.rhsK = rhs[rhs.size() - 2];
    s.n = rhs.back();
  }
  return s;
}

} // namespace autoglm

#endif // AUTOGLM_DIALECTS_SHAPEUTILS_H
