// Element-wise comparison of a result with its expected value.
#ifndef AUTOGLM_RUN_COMPARE_H
#define AUTOGLM_RUN_COMPARE_H

#include "Tensor.h"

#include <cstddef>
#include <vector>

namespace autoglm::run {

struct Tolerance {
  double rtol = 1e-4;
  double atol = 1e-5;
};

struct ElementMismatch {
  size_t index; // row-major
  double got;
  double expected;
};

struct Comparison {
  static constexpr size_t kReportedMismatches = 5;

  size_t elements = 0;
  size_t mismatches = 0;
  // Infinite when a NaN or an infinity disagrees.
  double maxAbsError = 0;
  // Relative to |expected|, over elements whose expected value is nonzero.
  double maxRelError = 0;
  // The first few mismatches, to show where results go wrong.
  std::vector<ElementMismatch> firstMismatches;

  bool ok() const { return mismatches == 0; }
};

// Compares tensors of the same dtype and shape. Floating-point elements match
// when |got - expected| <= atol + rtol * |expected|, NaN matches only NaN and
// an infinity only the same infinity; integers and booleans must be equal.
Comparison compareTensors(const Tensor &got, const Tensor &expected,
                          const Tolerance &tolerance);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_COMPARE_H
