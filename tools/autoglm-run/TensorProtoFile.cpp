#include "TensorProtoFile.h"

#include "NarrowTypes.h"
#include "TensorFile.h"
#include "autoglm/runtime.h"

#include <onnx/onnx_pb.h>

#include <cstring>

namespace autoglm::run {

namespace {

std::string typeName(int32_t dtype) {
  if (onnx::TensorProto::DataType_IsValid(dtype))
    return onnx::TensorProto::DataType_Name(
        static_cast<onnx::TensorProto::DataType>(dtype));
  return std::to_string(dtype);
}

// Stores each value of a typed field, converted to the element type
// `Element`; ONNX keeps narrow types (int8 ... float16) one per int32.
template <typename Element, typename Field>
void copyTypedField(const Field &field, const char *fieldName, Tensor &tensor,
                    const std::string &origin) {
  const size_t count = tensor.numElements();
  if (static_cast<size_t>(field.size()) != count)
    throw TensorFileError(origin + ": " + fieldName + " holds " +
                          std::to_string(field.size()) + " values, but " +
                          describeType(tensor.dtype, tensor.shape) + " has " +
                          std::to_string(count));
  for (size_t i = 0; i < count; ++i) {
    const auto value = static_cast<Element>(field.Get(static_cast<int>(i)));
    std::memcpy(tensor.bytes.data() + i * sizeof(Element), &value,
                sizeof(Element));
  }
}

void copyTypedData(const onnx::TensorProto &proto, Tensor &tensor,
                   const std::string &origin) {
  switch (tensor.dtype) {
  case AGL_DTYPE_F32:
    return copyTypedField<float>(proto.float_data(), "float_data", tensor,
                                 origin);
  case AGL_DTYPE_F64:
    return copyTypedField<double>(proto.double_data(), "double_data", tensor,
                                  origin);
  case AGL_DTYPE_I64:
    return copyTypedField<int64_t>(proto.int64_data(), "int64_data", tensor,
                                   origin);
  case AGL_DTYPE_U64:
    return copyTypedField<uint64_t>(proto.uint64_data(), "uint64_data", tensor,
                                    origin);
  case AGL_DTYPE_U32:
    return copyTypedField<uint32_t>(proto.uint64_data(), "uint64_data", tensor,
                                    origin);
  case AGL_DTYPE_I32:
    return copyTypedField<int32_t>(proto.int32_data(), "int32_data", tensor,
                                   origin);
  case AGL_DTYPE_I16:
  case AGL_DTYPE_U16:
  case AGL_DTYPE_F16: // the bit pattern, in the low 16 bits
  case AGL_DTYPE_BF16:
    return copyTypedField<uint16_t>(proto.int32_data(), "int32_data", tensor,
                                    origin);
  case AGL_DTYPE_I8:
  case AGL_DTYPE_U8:
    return copyTypedField<uint8_t>(proto.int32_data(), "int32_data", tensor,
                                   origin);
  case AGL_DTYPE_F8E4M3FN: // the encoding, in the low 8 bits
  case AGL_DTYPE_F8E4M3FNUZ:
  case AGL_DTYPE_F8E5M2:
  case AGL_DTYPE_F8E5M2FNUZ:
  case AGL_DTYPE_F8E8M0:
    return copyTypedField<uint8_t>(proto.int32_data(), "int32_data", tensor,
                                   origin);
  case AGL_DTYPE_BOOL: // any nonzero value is true; stored as 1
    static_assert(sizeof(bool) == 1, "bool tensors hold one byte per element");
    return copyTypedField<bool>(proto.int32_data(), "int32_data", tensor,
                                origin);
  }
}

// 4-bit (2-bit) elements packed two (four) to a byte, low bits first, in
// raw_data or one byte per int32_data entry; unpacked to one per byte.
Tensor parsePacked(const onnx::TensorProto &proto, int32_t dtype,
                   std::vector<int64_t> shape, const std::string &origin) {
  Tensor tensor(dtype, std::move(shape));
  const size_t count = tensor.numElements();
  const size_t needed = (count * packedBits(dtype) + 7) / 8;
  std::string packed;
  if (proto.has_raw_data()) {
    packed = proto.raw_data();
  } else {
    for (int32_t byte : proto.int32_data())
      packed.push_back(static_cast<char>(byte));
  }
  if (packed.size() != needed)
    throw TensorFileError(origin + ": holds " + std::to_string(packed.size()) +
                          " packed bytes, but " +
                          describeType(dtype, tensor.shape) + " needs " +
                          std::to_string(needed));
  unpackElements(dtype, reinterpret_cast<const uint8_t *>(packed.data()),
                 count, tensor.bytes.data());
  return tensor;
}

} // namespace

Tensor parseTensorProto(const std::string &bytes, const std::string &origin) {
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes))
    throw TensorFileError(origin + ": not an ONNX TensorProto");
  if (proto.data_location() == onnx::TensorProto::EXTERNAL)
    throw TensorFileError(origin + ": external data is not supported");
  if (proto.has_segment())
    throw TensorFileError(origin + ": segmented tensors are not supported");
  const int32_t dtype = proto.data_type();
  if (agl_dtype_size(dtype) == 0)
    throw TensorFileError(origin + ": element type " + typeName(dtype) +
                          " is not supported");

  std::vector<int64_t> shape(proto.dims().begin(), proto.dims().end());
  size_t needed = agl_dtype_size(dtype);
  for (int64_t extent : shape) {
    if (extent < 0)
      throw TensorFileError(origin + ": negative dimension in " +
                            describeType(dtype, shape));
    const size_t size = static_cast<size_t>(extent);
    if (size != 0 && needed > SIZE_MAX / size)
      throw TensorFileError(origin + ": " + describeType(dtype, shape) +
                            " is too large");
    needed *= size;
  }

  if (packedBits(dtype) != 0)
    return parsePacked(proto, dtype, std::move(shape), origin);
  if (proto.has_raw_data() && proto.raw_data().size() != needed)
    throw TensorFileError(origin + ": raw_data holds " +
                          std::to_string(proto.raw_data().size()) +
                          " bytes, but " + describeType(dtype, shape) +
                          " needs " + std::to_string(needed));
  Tensor tensor(dtype, std::move(shape));
  if (proto.has_raw_data())
    std::memcpy(tensor.bytes.data(), proto.raw_data().data(), needed);
  else
    copyTypedData(proto, tensor, origin);
  return tensor;
}

} // namespace autoglm::run
