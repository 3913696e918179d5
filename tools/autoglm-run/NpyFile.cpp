#include "NpyFile.h"
#include "AtomicFile.h"

#include "NarrowTypes.h"
#include "TensorFile.h"
#include "autoglm/runtime.h"

#include <cctype>
#include <cstdint>
#include <cstring>

namespace autoglm::run {

namespace {

const std::string kMagic("\x93NUMPY", 6);

struct NpyHeader {
  std::string descr;
  bool fortranOrder = false;
  std::vector<int64_t> shape;
};

// Reads the Python dict literal that NumPy writes as the header, e.g.
//   {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
public:
  HeaderParser(const std::string &text, const std::string &origin)
      : text_(text), origin_(origin) {}

  NpyHeader parse() {
    NpyHeader header;
    bool sawDescr = false, sawOrder = false, sawShape = false;
    expect('{');
    while (!consume('}')) {
      const std::string key = parseString();
      expect(':');
      if (key == "descr") {
        if (peek() != '\'' && peek() != '"')
          throw TensorFileError(origin_ +
                                ": structured dtypes are not supported");
        header.descr = parseString();
        sawDescr = true;
      } else if (key == "fortran_order") {
        header.fortranOrder = parseBool();
        sawOrder = true;
      } else if (key == "shape") {
        header.shape = parseShape();
        sawShape = true;
      } else {
        fail("unexpected key '" + key + "'");
      }
      if (!consume(',')) {
        expect('}');
        break;
      }
    }
    if (!sawDescr || !sawOrder || !sawShape)
      fail("it needs descr, fortran_order and shape");
    return header;
  }

private:
  char peek() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }

  bool consume(char c) {
    if (peek() != c)
      return false;
    ++pos_;
    return true;
  }

  void expect(char c) {
    if (!consume(c))
      fail(std::string("expected '") + c + "'");
  }

  std::string parseString() {
    const char quote = peek();
    if (quote != '\'' && quote != '"')
      fail("expected a string");
    const size_t end = text_.find(quote, pos_ + 1);
    if (end == std::string::npos)
      fail("unterminated string");
    std::string value = text_.substr(pos_ + 1, end - pos_ - 1);
    pos_ = end + 1;
    return value;
  }

  bool parseBool() {
    peek();
    if (text_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      return true;
    }
    if (text_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      return false;
    }
    fail("expected True or False");
  }

  std::vector<int64_t> parseShape() {
    std::vector<int64_t> shape;
    expect('(');
    while (!consume(')')) {
      shape.push_back(parseExtent());
      if (!consume(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  int64_t parseExtent() {
    peek();
    int64_t value = 0;
    const size_t start = pos_;
    for (; pos_ < text_.size() &&
           std::isdigit(static_cast<unsigned char>(text_[pos_]));
         ++pos_) {
      if (value > (INT64_MAX - 9) / 10)
        fail("dimension too large");
      value = value * 10 + (text_[pos_] - '0');
    }
    if (pos_ == start)
      fail("expected a dimension");
    if (pos_ < text_.size() && text_[pos_] == 'L') // Python 2 long literal
      ++pos_;
    return value;
  }

  [[noreturn]] void fail(const std::string &why) {
    throw TensorFileError(origin_ + ": malformed .npy header: " + why);
  }

  const std::string &text_;
  const std::string &origin_;
  size_t pos_ = 0;
};

int32_t dtypeFromDescr(const std::string &descr, const std::string &origin) {
  static const std::pair<const char *, int32_t> kCodes[] = {
      {"f2", AGL_DTYPE_F16}, {"f4", AGL_DTYPE_F32}, {"f8", AGL_DTYPE_F64},
      {"i1", AGL_DTYPE_I8},  {"u1", AGL_DTYPE_U8},  {"i2", AGL_DTYPE_I16},
      {"u2", AGL_DTYPE_U16}, {"i4", AGL_DTYPE_I32}, {"u4", AGL_DTYPE_U32},
      {"i8", AGL_DTYPE_I64}, {"u8", AGL_DTYPE_U64}, {"b1", AGL_DTYPE_BOOL},
  };
  const char order = descr.empty() ? '\0' : descr[0];
  if (order == '<' || order == '>' || order == '|' || order == '=') {
    for (const auto &[code, dtype] : kCodes) {
      if (descr.compare(1, std::string::npos, code) != 0)
        continue;
      if (order == '>' && agl_dtype_size(dtype) > 1)
        throw TensorFileError(origin + ": big-endian data ('" + descr +
                              "') is not supported");
      return dtype;
    }
  }
  throw TensorFileError(origin + ": unsupported dtype '" + descr + "'");
}

uint32_t readLittleEndian(const std::string &bytes, size_t offset,
                          size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i)
    value |= static_cast<uint32_t>(static_cast<uint8_t>(bytes[offset + i]))
             << (8 * i);
  return value;
}

std::string shapeTuple(const std::vector<int64_t> &shape) {
  std::string text = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i > 0)
      text += ", ";
    text += std::to_string(shape[i]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

Tensor widenToFloat32(const Tensor &tensor) {
  Tensor wide(AGL_DTYPE_F32, tensor.shape);
  for (size_t i = 0; i < tensor.numElements(); ++i) {
    const float value = static_cast<float>(tensor.elementAsDouble(i));
    std::memcpy(wide.bytes.data() + i * sizeof value, &value, sizeof value);
  }
  return wide;
}

} // namespace

bool looksLikeNpy(const std::string &bytes) {
  return bytes.compare(0, kMagic.size(), kMagic) == 0;
}

Tensor parseNpy(const std::string &bytes, const std::string &origin) {
  if (!looksLikeNpy(bytes))
    throw TensorFileError(origin + ": not a .npy file");
  if (bytes.size() < 10)
    throw TensorFileError(origin + ": truncated .npy file");
  const unsigned major = static_cast<uint8_t>(bytes[6]);
  const unsigned minor = static_cast<uint8_t>(bytes[7]);
  // Version 1 stores the header length in 2 bytes, versions 2 and 3 in 4.
  const size_t lengthWidth = major == 1 ? 2 : 4;
  if (major < 1 || major > 3)
    throw TensorFileError(origin + ": unsupported .npy format version " +
                          std::to_string(major) + "." + std::to_string(minor));
  const size_t headerStart = 8 + lengthWidth;
  if (bytes.size() < headerStart)
    throw TensorFileError(origin + ": truncated .npy file");
  const size_t headerLength = readLittleEndian(bytes, 8, lengthWidth);
  if (bytes.size() - headerStart < headerLength)
    throw TensorFileError(origin + ": truncated .npy header");

  const std::string text = bytes.substr(headerStart, headerLength);
  const NpyHeader header = HeaderParser(text, origin).parse();
  const int32_t dtype = dtypeFromDescr(header.descr, origin);
  if (header.fortranOrder)
    throw TensorFileError(
        origin + ": Fortran-order arrays are not supported; save a C-order "
                 "array (numpy.ascontiguousarray)");

  const size_t available = bytes.size() - headerStart - headerLength;
  size_t needed = agl_dtype_size(dtype);
  for (int64_t extent : header.shape) {
    const size_t size = static_cast<size_t>(extent);
    if (size != 0 && needed > SIZE_MAX / size)
      throw TensorFileError(origin + ": shape " + shapeTuple(header.shape) +
                            " is too large");
    needed *= size;
  }
  if (needed != available)
    throw TensorFileError(
        origin + ": holds " + std::to_string(available) + " data bytes, but " +
        describeType(dtype, header.shape) + " needs " + std::to_string(needed));

  Tensor tensor(dtype, header.shape);
  std::memcpy(tensor.bytes.data(), bytes.data() + headerStart + headerLength,
              needed);
  return tensor;
}

std::string encodeNpy(const Tensor &tensor) {
  // NumPy has no bfloat16, float8 or float4: they are saved as float32
  // (exactly); 2-/4-bit integers as the int8/uint8 their bytes hold.
  if (tensor.dtype == AGL_DTYPE_BF16 || isNarrowFloat(tensor.dtype))
    return encodeNpy(widenToFloat32(tensor));

  static const std::pair<int32_t, const char *> kDescrs[] = {
      {AGL_DTYPE_F16, "<f2"}, {AGL_DTYPE_F32, "<f4"}, {AGL_DTYPE_F64, "<f8"},
      {AGL_DTYPE_I8, "|i1"},  {AGL_DTYPE_U8, "|u1"},  {AGL_DTYPE_I16, "<i2"},
      {AGL_DTYPE_U16, "<u2"}, {AGL_DTYPE_I32, "<i4"}, {AGL_DTYPE_U32, "<u4"},
      {AGL_DTYPE_I64, "<i8"}, {AGL_DTYPE_U64, "<u8"}, {AGL_DTYPE_BOOL, "|b1"},
      {AGL_DTYPE_I4, "|i1"},  {AGL_DTYPE_U4, "|u1"},  {AGL_DTYPE_I2, "|i1"},
      {AGL_DTYPE_U2, "|u1"},
  };
  const char *descr = nullptr;
  for (const auto &[dtype, code] : kDescrs)
    if (dtype == tensor.dtype)
      descr = code;
  if (!descr)
    throw TensorFileError(std::string("cannot save element type ") +
                          agl_dtype_name(tensor.dtype) + " as .npy");

  std::string header =
      std::string("{'descr': '") + descr +
      "', 'fortran_order': False, 'shape': " + shapeTuple(tensor.shape) + ", }";
  // NumPy pads the header with spaces so that the data starts 64-aligned.
  const size_t unpadded = 10 + header.size() + 1;
  header.append((64 - unpadded % 64) % 64, ' ');
  header += '\n';
  if (header.size() > 0xffff)
    throw TensorFileError("shape " + shapeTuple(tensor.shape) +
                          " does not fit a version 1.0 .npy header");

  std::string file = kMagic;
  file += '\x01';
  file += '\x00';
  file += static_cast<char>(header.size() & 0xff);
  file += static_cast<char>(header.size() >> 8);
  file += header;
  file.append(reinterpret_cast<const char *>(tensor.bytes.data()),
              tensor.numElements() * tensor.elementSize());
  return file;
}

void writeNpy(const std::string &path, const Tensor &tensor) {
  const std::string error = writeFileAtomically(path, encodeNpy(tensor));
  if (!error.empty())
    throw TensorFileError(error);
}

} // namespace autoglm::run
