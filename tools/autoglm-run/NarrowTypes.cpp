#include "NarrowTypes.h"

#include "autoglm/runtime.h"

#include <cmath>

namespace autoglm::run {

bool isNarrowFloat(int32_t dtype) {
  switch (dtype) {
  case AGL_DTYPE_F8E4M3FN:
  case AGL_DTYPE_F8E4M3FNUZ:
  case AGL_DTYPE_F8E5M2:
  case AGL_DTYPE_F8E5M2FNUZ:
  case AGL_DTYPE_F4E2M1:
  case AGL_DTYPE_F8E8M0:
    return true;
  default:
    return false;
  }
}

unsigned packedBits(int32_t dtype) {
  switch (dtype) {
  case AGL_DTYPE_U4:
  case AGL_DTYPE_I4:
  case AGL_DTYPE_F4E2M1:
    return 4;
  case AGL_DTYPE_U2:
  case AGL_DTYPE_I2:
    return 2;
  default:
    return 0;
  }
}

namespace {

struct Format {
  unsigned exponentBits, mantissaBits;
  int bias;
};

double decode(const Format &f, unsigned magnitude, bool negative) {
  const unsigned exponent = magnitude >> f.mantissaBits;
  const unsigned mantissa = magnitude & ((1u << f.mantissaBits) - 1);
  const int m = static_cast<int>(f.mantissaBits);
  const double value =
      exponent == 0
          ? std::ldexp(mantissa, 1 - f.bias - m)
          : std::ldexp(mantissa | (1u << m), static_cast<int>(exponent) - f.bias - m);
  return negative ? -value : value;
}

} // namespace

double narrowFloatToDouble(int32_t dtype, uint8_t byte) {
  const bool negative = (byte & 0x80) != 0;
  const unsigned magnitude = byte & 0x7f;
  switch (dtype) {
  case AGL_DTYPE_F8E4M3FN:
    return magnitude == 0x7f ? NAN : decode({4, 3, 7}, magnitude, negative);
  case AGL_DTYPE_F8E4M3FNUZ:
    return byte == 0x80 ? NAN : decode({4, 3, 8}, magnitude, negative);
  case AGL_DTYPE_F8E5M2:
    if (magnitude > 0x7c)
      return NAN;
    if (magnitude == 0x7c)
      return negative ? -INFINITY : INFINITY;
    return decode({5, 2, 15}, magnitude, negative);
  case AGL_DTYPE_F8E5M2FNUZ:
    return byte == 0x80 ? NAN : decode({5, 2, 16}, magnitude, negative);
  case AGL_DTYPE_F4E2M1:
    return decode({2, 1, 1}, byte & 0x7, (byte & 0x8) != 0);
  case AGL_DTYPE_F8E8M0:
    return byte == 0xff ? NAN : std::ldexp(1.0, static_cast<int>(byte) - 127);
  default:
    return NAN;
  }
}

void unpackElements(int32_t dtype, const uint8_t *packed, size_t count,
                    uint8_t *out) {
  const unsigned bits = packedBits(dtype);
  const unsigned perByte = 8 / bits;
  const unsigned mask = (1u << bits) - 1;
  const bool isSigned = dtype == AGL_DTYPE_I4 || dtype == AGL_DTYPE_I2;
  for (size_t i = 0; i < count; ++i) {
    unsigned value = (packed[i / perByte] >> (bits * (i % perByte))) & mask;
    if (isSigned && (value >> (bits - 1)) != 0)
      value |= ~mask; // sign-extend into the byte
    out[i] = static_cast<uint8_t>(value);
  }
}

} // namespace autoglm::run
