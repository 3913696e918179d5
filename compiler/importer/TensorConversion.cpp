//===- TensorConversion.cpp - ONNX tensors and types to MLIR --------------===//

#include "compiler/importer/TensorConversion.h"
#include "dialects/ShapeUtils.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/DialectResourceBlobManager.h"

using namespace mlir;
using namespace autoglm;
using onnx::TensorProto;

std::string autoglm::onnxTypeName(int32_t dataType) {
  switch (dataType) {
  case TensorProto::FLOAT: return "float32";
  case TensorProto::UINT8: return "uint8";
  case TensorProto::INT8: return "int8";
  case TensorProto::UINT16: return "uint16";
  case TensorProto::INT16: return "int16";
  case TensorProto::INT32: return "int32";
  case TensorProto::INT64: return "int64";
  case TensorProto::STRING: return "string";
  case TensorProto::BOOL: return "bool";
  case TensorProto::FLOAT16: return "float16";
  case TensorProto::DOUBLE: return "float64";
  case TensorProto::UINT32: return "uint32";
  case TensorProto::UINT64: return "uint64";
  case TensorProto::COMPLEX64: return "complex64";
  case TensorProto::COMPLEX128: return "complex128";
  case TensorProto::BFLOAT16: return "bfloat16";
  case kFloat8E4M3FN: return "float8e4m3fn";
  case kFloat8E4M3FNUZ: return "float8e4m3fnuz";
  case kFloat8E5M2: return "float8e5m2";
  case kFloat8E5M2FNUZ: return "float8e5m2fnuz";
  case kUInt4: return "uint4";
  case kInt4: return "int4";
  case kFloat4E2M1: return "float4e2m1";
  case kFloat8E8M0: return "float8e8m0";
  case kUInt2: return "uint2";
  case kInt2: return "int2";
  default: return "data type " + std::to_string(dataType);
  }
}

Type autoglm::convertElementType(int32_t dataType, MLIRContext *ctx) {
  auto intType = [&](unsigned width, bool isUnsigned) -> Type {
    return IntegerType::get(ctx, width,
                            isUnsigned ? IntegerType::Unsigned
                                       : IntegerType::Signless);
  };
  switch (dataType) {
  case TensorProto::FLOAT: return Float32Type::get(ctx);
  case TensorProto::DOUBLE: return Float64Type::get(ctx);
  case TensorProto::FLOAT16: return Float16Type::get(ctx);
  case TensorProto::BFLOAT16: return BFloat16Type::get(ctx);
  case TensorProto::BOOL: return intType(1, false);
  case TensorProto::INT8: return intType(8, false);
  case TensorProto::INT16: return intType(16, false);
  case TensorProto::INT32: return intType(32, false);
  case TensorProto::INT64: return intType(64, false);
  case TensorProto::UINT8: return intType(8, true);
  case TensorProto::UINT16: return intType(16, true);
  case TensorProto::UINT32: return intType(32, true);
  case TensorProto::UINT64: return intType(64, true);
  case kFloat8E4M3FN: return Float8E4M3FNType::get(ctx);
  case kFloat8E4M3FNUZ: return Float8E4M3FNUZType::get(ctx);
  case kFloat8E5M2: return Float8E5M2Type::get(ctx);
  case kFloat8E5M2FNUZ: return Float8E5M2FNUZType::get(ctx);
  case kFloat8E8M0: return Float8E8M0FNUType::get(ctx);
  case kFloat4E2M1: return Float4E2M1FNType::get(ctx);
  case kInt4: return intType(4, false);
  case kUInt4: return intType(4, true);
  case kInt2: return intType(2, false);
  case kUInt2: return intType(2, true);
  default: return {};
  }
}

/// Little-endian bytes of a tensor stored in the typed repeated fields.
static std::string typedFieldBytes(const TensorProto &t, unsigned byteWidth) {
  std::string bytes;
  auto append = [&](auto values, auto narrow) {
    for (auto v : values) {
      auto n = narrow(v);
      bytes.append(reinterpret_cast<const char *>(&n), byteWidth);
    }
  };
  switch (t.data_type()) {
  case TensorProto::FLOAT:
    append(t.float_data(), [](float v) { return v; });
    break;
  case TensorProto::DOUBLE:
    append(t.double_data(), [](double v) { return v; });
    break;
  case TensorProto::INT64:
    append(t.int64_data(), [](int64_t v) { return v; });
    break;
  case TensorProto::UINT32:
  case TensorProto::UINT64:
    append(t.uint64_data(), [](uint64_t v) { return v; });
    break;
  default: // int32_data carries every narrower type, one value per entry.
    append(t.int32_data(), [](int32_t v) { return v; });
    break;
  }
  return bytes;
}

/// ONNX packs 4-bit (2-bit) elements two (four) to a byte, low bits first;
/// dense attributes hold one element per byte.
static SmallVector<APInt> unpackSubByte(ArrayRef<char> bytes, int64_t count,
                                        unsigned width) {
  SmallVector<APInt> values;
  unsigned perByte = 8 / width;
  for (int64_t i = 0; i < count; ++i) {
    unsigned byte = static_cast<unsigned char>(bytes[i / perByte]);
    unsigned bits = (byte >> (width * (i % perByte))) & ((1u << width) - 1);
    values.push_back(APInt(width, bits));
  }
  return values;
}

FailureOr<ElementsAttr> autoglm::convertTensor(const TensorProto &tensor,
                                               OnnxModel &model,
                                               MLIRContext *ctx, Location loc) {
  Type elementType = convertElementType(tensor.data_type(), ctx);
  if (!elementType)
    return emitError(loc) << "tensor '" << tensor.name() << "' has type "
                          << onnxTypeName(tensor.data_type())
                          << ", which is not supported";
  SmallVector<int64_t> shape(tensor.dims().begin(), tensor.dims().end());
  if (llvm::any_of(shape, [](int64_t d) { return d < 0; }))
    return emitError(loc) << "tensor '" << tensor.name()
                          << "' has a negative dimension";
  auto type = RankedTensorType::get(shape, elementType);
  int64_t count = product(shape);
  unsigned width = elementType.getIntOrFloatBitWidth();
  unsigned byteWidth = width < 8 ? 1 : width / 8;
  // Bytes the data takes: packed for 2- and 4-bit types (not for bool).
  int64_t storedBytes = count * byteWidth;
  if (width > 1 && width < 8)
    storedBytes = (count * width + 7) / 8;

  ArrayRef<char> bytes;
  if (tensor.data_location() == TensorProto::EXTERNAL) {
    auto data = model.externalData(tensor);
    if (!data)
      return emitError(loc) << llvm::toString(data.takeError());
    bytes = *data;
  } else if (tensor.has_raw_data()) {
    bytes = {tensor.raw_data().data(), tensor.raw_data().size()};
  } else {
    bytes = model.own(typedFieldBytes(tensor, byteWidth));
  }
  if ((int64_t)bytes.size() != storedBytes)
    return emitError(loc) << "tensor '" << tensor.name() << "' holds "
                          << bytes.size() << " bytes, but its shape and type "
                          << "need " << storedBytes;

  if (width == 1) {
    SmallVector<bool> values;
    for (char b : bytes)
      values.push_back(b != 0);
    return ElementsAttr(DenseElementsAttr::get(type, ArrayRef<bool>(values)));
  }
  if (width < 8) {
    SmallVector<APInt> values = unpackSubByte(bytes, count, width);
    if (isa<FloatType>(elementType)) {
      SmallVector<APFloat> floats;
      for (const APInt &v : values)
        floats.emplace_back(cast<FloatType>(elementType).getFloatSemantics(), v);
      return ElementsAttr(DenseElementsAttr::get(type, floats));
    }
    return ElementsAttr(DenseElementsAttr::get(type, values));
  }
  // Shape-like and scalar tensors stay inline where folders can read them;
  // weights become blobs that point at the model's own bytes.
  constexpr int64_t kInlineElements = 64;
  if (count <= kInlineElements)
    return ElementsAttr(DenseElementsAttr::getFromRawBuffer(type, bytes));
  std::string blobName = tensor.name().empty() ? "weight" : tensor.name();
  auto blob = UnmanagedAsmResourceBlob::allocateWithAlign(bytes, 1);
  return ElementsAttr(DenseResourceElementsAttr::get(type, blobName, std::move(blob)));
}
