// Dense tensors held in memory: what autoglm-run reads from files, feeds to
// a model and compares.
#ifndef AUTOGLM_RUN_TENSOR_H
#define AUTOGLM_RUN_TENSOR_H

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

namespace autoglm::run {

// Bytes aligned to a cache line: compiled code may use wide vector loads on
// its inputs and outputs.
class AlignedBytes {
public:
  static constexpr size_t kAlignment = 64;

  AlignedBytes() = default;
  explicit AlignedBytes(size_t size); // zero-filled; never a null pointer

  uint8_t *data() { return data_.get(); }
  const uint8_t *data() const { return data_.get(); }
  size_t size() const { return size_; }

private:
  struct Free {
    void operator()(uint8_t *p) const { std::free(p); }
  };
  std::unique_ptr<uint8_t, Free> data_;
  size_t size_ = 0;
};

struct Tensor {
  int32_t dtype = 0; // agl_dtype code, the same as ONNX TensorProto.DataType
  std::vector<int64_t> shape;
  AlignedBytes bytes;

  Tensor() = default;
  // A zero-filled tensor; throws std::invalid_argument for an unknown dtype
  // or a negative extent.
  Tensor(int32_t dtype, std::vector<int64_t> shape);

  size_t numElements() const;
  size_t elementSize() const;

  // Element `index` (row-major) widened to double; bool reads as 0 or 1.
  double elementAsDouble(size_t index) const;
};

size_t numElements(const std::vector<int64_t> &shape);

bool isFloatingPoint(int32_t dtype);

// "float32[1,16]", the notation of every message about types.
std::string describeType(int32_t dtype, const std::vector<int64_t> &shape);

// "[1,2]": the multi-index of a row-major flat index.
std::string describeIndex(const std::vector<int64_t> &shape, size_t index);

float halfToFloat(uint16_t bits);
float bfloat16ToFloat(uint16_t bits);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_TENSOR_H
