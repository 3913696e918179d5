#include "Compare.h"

#include "NarrowTypes.h"
#include "autoglm/runtime.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <utility>

namespace autoglm::run {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Returns whether the elements match, and their absolute difference.
std::pair<bool, double> compareFloats(double got, double expected,
                                      const Tolerance &tolerance) {
  if (std::isnan(got) || std::isnan(expected)) {
    const bool bothNan = std::isnan(got) && std::isnan(expected);
    return {bothNan, bothNan ? 0.0 : kInfinity};
  }
  if (std::isinf(got) || std::isinf(expected)) {
    const bool same = got == expected;
    return {same, same ? 0.0 : kInfinity};
  }
  const double error = std::fabs(got - expected);
  return {error <= tolerance.atol + tolerance.rtol * std::fabs(expected),
          error};
}

} // namespace

Comparison compareTensors(const Tensor &got, const Tensor &expected,
                          const Tolerance &tolerance) {
  Comparison result;
  result.elements = got.numElements();
  const bool floating = isFloatingPoint(got.dtype);
  const size_t size = got.elementSize();

  for (size_t i = 0; i < result.elements; ++i) {
    const double gotValue = got.elementAsDouble(i);
    const double expectedValue = expected.elementAsDouble(i);
    bool equal;
    double absError;
    if (isNarrowFloat(got.dtype)) {
      // Exact: a float8/float4 result is one rounding of the reference's.
      const bool bothNan = std::isnan(gotValue) && std::isnan(expectedValue);
      equal = bothNan || got.bytes.data()[i] == expected.bytes.data()[i];
      absError = equal ? 0.0
                 : std::isnan(gotValue) || std::isnan(expectedValue)
                     ? kInfinity
                     : std::fabs(gotValue - expectedValue);
    } else if (floating) {
      std::tie(equal, absError) =
          compareFloats(gotValue, expectedValue, tolerance);
    } else {
      // Bytes, not doubles: 64-bit integers do not all fit a double.
      equal = got.dtype == AGL_DTYPE_BOOL
                  ? gotValue == expectedValue
                  : std::memcmp(got.bytes.data() + i * size,
                                expected.bytes.data() + i * size, size) == 0;
      absError = equal ? 0.0 : std::fabs(gotValue - expectedValue);
    }

    result.maxAbsError = std::max(result.maxAbsError, absError);
    if (std::isinf(absError))
      result.maxRelError = kInfinity;
    else if (expectedValue != 0)
      result.maxRelError =
          std::max(result.maxRelError, absError / std::fabs(expectedValue));

    if (!equal) {
      ++result.mismatches;
      if (result.firstMismatches.size() < Comparison::kReportedMismatches)
        result.firstMismatches.push_back({i, gotValue, expectedValue});
    }
  }
  return result;
}

} // namespace autoglm::run
