#include "Tensor.h"

#include "NarrowTypes.h"
#include "autoglm/runtime.h"

#include <cmath>
#include <cstring>
#include <new>
#include <stdexcept>

namespace autoglm::run {

AlignedBytes::AlignedBytes(size_t size) : size_(size) {
  // aligned_alloc wants a multiple of the alignment, and at least one block
  // keeps empty tensors from handing a null pointer to the model.
  const size_t blocks = size / kAlignment + 1;
  data_.reset(static_cast<uint8_t *>(
      std::aligned_alloc(kAlignment, blocks * kAlignment)));
  if (!data_)
    throw std::bad_alloc();
  std::memset(data_.get(), 0, blocks * kAlignment);
}

size_t numElements(const std::vector<int64_t> &shape) {
  size_t count = 1;
  for (int64_t extent : shape)
    count *= static_cast<size_t>(extent);
  return count;
}

Tensor::Tensor(int32_t dtype, std::vector<int64_t> shape)
    : dtype(dtype), shape(std::move(shape)) {
  if (agl_dtype_size(dtype) == 0)
    throw std::invalid_argument("unsupported element type " +
                                std::to_string(dtype));
  for (int64_t extent : this->shape)
    if (extent < 0)
      throw std::invalid_argument("negative extent in " +
                                  describeType(dtype, this->shape));
  bytes = AlignedBytes(numElements() * elementSize());
}

size_t Tensor::numElements() const { return run::numElements(shape); }

size_t Tensor::elementSize() const { return agl_dtype_size(dtype); }

namespace {
template <typename T> T load(const uint8_t *data, size_t index) {
  T value;
  std::memcpy(&value, data + index * sizeof(T), sizeof(T));
  return value;
}
} // namespace

double Tensor::elementAsDouble(size_t index) const {
  const uint8_t *data = bytes.data();
  switch (dtype) {
  case AGL_DTYPE_F32:
    return load<float>(data, index);
  case AGL_DTYPE_F64:
    return load<double>(data, index);
  case AGL_DTYPE_F16:
    return halfToFloat(load<uint16_t>(data, index));
  case AGL_DTYPE_BF16:
    return bfloat16ToFloat(load<uint16_t>(data, index));
  case AGL_DTYPE_I8:
    return load<int8_t>(data, index);
  case AGL_DTYPE_U8:
    return load<uint8_t>(data, index);
  case AGL_DTYPE_I16:
    return load<int16_t>(data, index);
  case AGL_DTYPE_U16:
    return load<uint16_t>(data, index);
  case AGL_DTYPE_I32:
    return load<int32_t>(data, index);
  case AGL_DTYPE_U32:
    return load<uint32_t>(data, index);
  case AGL_DTYPE_I64:
    return static_cast<double>(load<int64_t>(data, index));
  case AGL_DTYPE_U64:
    return static_cast<double>(load<uint64_t>(data, index));
  case AGL_DTYPE_BOOL:
    return load<uint8_t>(data, index) != 0 ? 1.0 : 0.0;
  case AGL_DTYPE_I4:
  case AGL_DTYPE_I2:
    return load<int8_t>(data, index);
  case AGL_DTYPE_U4:
  case AGL_DTYPE_U2:
    return load<uint8_t>(data, index);
  default:
    if (isNarrowFloat(dtype))
      return narrowFloatToDouble(dtype, load<uint8_t>(data, index));
    return std::nan("");
  }
}

bool isFloatingPoint(int32_t dtype) {
  return dtype == AGL_DTYPE_F32 || dtype == AGL_DTYPE_F64 ||
         dtype == AGL_DTYPE_F16 || dtype == AGL_DTYPE_BF16 ||
         isNarrowFloat(dtype);
}

std::string describeType(int32_t dtype, const std::vector<int64_t> &shape) {
  std::string text = agl_dtype_name(dtype);
  text += '[';
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0)
      text += ',';
    text += std::to_string(shape[i]);
  }
  return text + ']';
}

std::string describeIndex(const std::vector<int64_t> &shape, size_t index) {
  std::vector<int64_t> position(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    const size_t extent = static_cast<size_t>(shape[d]);
    position[d] = static_cast<int64_t>(extent ? index % extent : 0);
    index = extent ? index / extent : 0;
  }
  std::string text = "[";
  for (size_t d = 0; d < position.size(); ++d) {
    if (d > 0)
      text += ',';
    text += std::to_string(position[d]);
  }
  return text + ']';
}

float halfToFloat(uint16_t bits) {
  const bool negative = (bits & 0x8000u) != 0;
  const unsigned exponent = (bits >> 10) & 0x1fu;
  const unsigned mantissa = bits & 0x3ffu;
  float magnitude;
  if (exponent == 0x1f)
    magnitude = mantissa ? std::nanf("") : INFINITY;
  else if (exponent == 0) // zero or subnormal: mantissa * 2^-24
    magnitude = std::ldexp(static_cast<float>(mantissa), -24);
  else
    magnitude = std::ldexp(static_cast<float>(mantissa | 0x400u),
                           static_cast<int>(exponent) - 25);
  return negative ? -magnitude : magnitude;
}

float bfloat16ToFloat(uint16_t bits) {
  const uint32_t wide = static_cast<uint32_t>(bits) << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

} // namespace autoglm::run
