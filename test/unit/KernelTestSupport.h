//===- KernelTestSupport.h - shared pieces of the kernel unit tests -------===//
//
// The double-precision reference of the GEMM epilogue's activations and
// 64-byte aligned buffers, for the float, quantized and bfloat16 kernel
// tests.
//
//===----------------------------------------------------------------------===//

#ifndef AUTOGLM_TEST_UNIT_KERNELTESTSUPPORT_H
#define AUTOGLM_TEST_UNIT_KERNELTESTSUPPORT_H

#include "autoglm/kernels.h"

#include <cmath>
#include <cstddef>
#include <cstdlib>

namespace autoglm::test {

/// The activation `act` (AGL_ACT_*) of x, in double precision.
inline double activate(double x, int act) {
  switch (act) {
  case AGL_ACT_RELU:
    return x > 0 ? x : 0;
  case AGL_ACT_GELU_ERF:
    return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
  case AGL_ACT_GELU_TANH:
    return 0.5 * x *
           (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
  case AGL_ACT_SILU:
    return x / (1 + std::exp(-x));
  default:
    return x;
  }
}

/// 64-byte aligned bytes, as compiled models hold them.
struct Aligned {
  explicit Aligned(size_t bytes)
      : data(std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64)) {}
  ~Aligned() { std::free(data); }
  Aligned(const Aligned &) = delete;
  Aligned &operator=(const Aligned &) = delete;
  void *data;
};

} // namespace autoglm::test

#endif // AUTOGLM_TEST_UNIT_KERNELTESTSUPPORT_H
