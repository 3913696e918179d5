// Tests of .npy reading and writing.
#include "NpyFile.h"
#include "TensorFile.h"
#include "autoglm/runtime.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <filesystem>

namespace {

using namespace autoglm::run;
using ::testing::HasSubstr;

// A .npy file as NumPy lays it out, with a hand-written header.
std::string npyFile(const std::string &header, const std::string &data,
                    int major = 1) {
  std::string file("\x93NUMPY", 6);
  file += static_cast<char>(major);
  file += '\0';
  const size_t length = header.size();
  file += static_cast<char>(length & 0xff);
  file += static_cast<char>((length >> 8) & 0xff);
  if (major > 1)
    file += std::string(2, '\0');
  return file + header + data;
}

std::string parseError(const std::string &bytes) {
  try {
    parseNpy(bytes, "t.npy");
  } catch (const TensorFileError &error) {
    return error.what();
  }
  return "";
}

TEST(NpyFile, RoundTripsEveryNumpyType) {
  for (int32_t dtype :
       {AGL_DTYPE_F16, AGL_DTYPE_F32, AGL_DTYPE_F64, AGL_DTYPE_I8, AGL_DTYPE_U8,
        AGL_DTYPE_I16, AGL_DTYPE_U16, AGL_DTYPE_I32, AGL_DTYPE_U32,
        AGL_DTYPE_I64, AGL_DTYPE_U64, AGL_DTYPE_BOOL}) {
    Tensor tensor(dtype, {2, 3});
    for (size_t i = 0; i < tensor.bytes.size(); ++i)
      tensor.bytes.data()[i] =
          dtype == AGL_DTYPE_BOOL ? i % 2 : static_cast<uint8_t>(i * 7);
    const std::string file = encodeNpy(tensor);
    EXPECT_EQ((file.size() - tensor.bytes.size()) % 64, 0u)
        << "data starts 64-byte aligned";
    const Tensor back = parseNpy(file, "t.npy");
    EXPECT_EQ(back.dtype, dtype);
    EXPECT_EQ(back.shape, tensor.shape);
    EXPECT_EQ(std::memcmp(back.bytes.data(), tensor.bytes.data(),
                          tensor.bytes.size()),
              0)
        << agl_dtype_name(dtype);
  }
}

TEST(NpyFile, ScalarsAndEmptyTensors) {
  const Tensor scalar = parseNpy(
      npyFile("{'descr': '<i4', 'fortran_order': False, 'shape': (), }\n",
              std::string("\x2a\0\0\0", 4)),
      "s.npy");
  EXPECT_TRUE(scalar.shape.empty());
  EXPECT_EQ(scalar.elementAsDouble(0), 42.0);

  const Tensor empty = parseNpy(
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (0, 5), }\n",
              ""),
      "e.npy");
  EXPECT_EQ(empty.numElements(), 0u);
  EXPECT_EQ(parseNpy(encodeNpy(empty), "e.npy").shape, empty.shape);
}

TEST(NpyFile, ReadsVersionTwoAndThreeHeaders) {
  const std::string header =
      "{\"descr\": \"<u2\", \"fortran_order\": False, \"shape\": (2,)}\n";
  for (int major : {2, 3}) {
    const Tensor tensor =
        parseNpy(npyFile(header, std::string("\1\0\2\0", 4), major), "v.npy");
    EXPECT_EQ(tensor.dtype, AGL_DTYPE_U16);
    EXPECT_EQ(tensor.elementAsDouble(1), 2.0);
  }
}

TEST(NpyFile, RejectsWhatItCannotRepresent) {
  EXPECT_THAT(parseError(npyFile(
                  "{'descr': '<f4', 'fortran_order': True, 'shape': (1,), }",
                  std::string(4, '\0'))),
              HasSubstr("Fortran-order arrays are not supported"));
  EXPECT_THAT(parseError(npyFile(
                  "{'descr': '>f4', 'fortran_order': False, 'shape': (1,), }",
                  std::string(4, '\0'))),
              HasSubstr("big-endian"));
  EXPECT_THAT(parseError(npyFile(
                  "{'descr': '<c8', 'fortran_order': False, 'shape': (1,), }",
                  std::string(8, '\0'))),
              HasSubstr("unsupported dtype '<c8'"));
  EXPECT_THAT(parseError(npyFile("{'descr': [('a', '<f4')], 'fortran_order': "
                                 "False, 'shape': (1,), }",
                                 std::string(4, '\0'))),
              HasSubstr("structured dtypes"));
}

TEST(NpyFile, RejectsDamagedFiles) {
  EXPECT_THAT(parseError("PK\3\4 not numpy"), HasSubstr("not a .npy file"));
  EXPECT_THAT(parseError(npyFile(
                  "{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                  std::string(4, '\0'))),
              HasSubstr("holds 4 data bytes, but float32[2] needs 8"));
  EXPECT_THAT(parseError(npyFile("{'descr': '<f4', 'shape': (2,), }", "")),
              HasSubstr("malformed .npy header"));
  EXPECT_THAT(parseError(npyFile("{'descr': '<f4', 'fortran_order': False, "
                                 "'shape': (2,",
                                 "")),
              HasSubstr("malformed .npy header"));
  std::string truncated = npyFile("{}", "");
  truncated.resize(9);
  EXPECT_THAT(parseError(truncated), HasSubstr("truncated"));
  EXPECT_THAT(parseError(npyFile("{}", "", 9)),
              HasSubstr("unsupported .npy format version 9.0"));
}

TEST(NpyFile, WritesThroughATemporaryFile) {
  namespace fs = std::filesystem;
  const fs::path directory =
      fs::temp_directory_path() /
      ("npyfile-test-" +
       std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
  fs::create_directories(directory);
  const std::string path = (directory / "out.npy").string();

  Tensor tensor(AGL_DTYPE_BF16, {2});
  tensor.bytes.data()[1] = 0x3f; // bfloat16 0x3f80 == 1.0
  tensor.bytes.data()[0] = 0x80;
  writeNpy(path, tensor);
  const Tensor back = readTensorFile(path);
  EXPECT_EQ(back.dtype, AGL_DTYPE_F32) << "NumPy has no bfloat16";
  EXPECT_EQ(back.elementAsDouble(0), 1.0);
  EXPECT_EQ(std::distance(fs::directory_iterator(directory),
                          fs::directory_iterator()),
            1)
      << "no temporary file left behind";

  EXPECT_THROW(writeNpy((directory / "missing" / "x.npy").string(), tensor),
               TensorFileError);
  fs::remove_all(directory);
}

TEST(TensorFile, MissingFileNamesIt) {
  try {
    readTensorFile("/nonexistent/x.npy");
    FAIL() << "no error";
  } catch (const TensorFileError &error) {
    EXPECT_STREQ(error.what(),
                 "cannot read '/nonexistent/x.npy': No such file or directory");
  }
}

TEST(Tensor, HalfPrecisionConversions) {
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0xc000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_TRUE(std::isinf(halfToFloat(0x7c00)));
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
  EXPECT_EQ(bfloat16ToFloat(0xbf80), -1.0f);
}

TEST(Tensor, Descriptions) {
  EXPECT_EQ(describeType(AGL_DTYPE_F32, {1, 16}), "float32[1,16]");
  EXPECT_EQ(describeType(AGL_DTYPE_I64, {}), "int64[]");
  EXPECT_EQ(describeIndex({2, 3}, 5), "[1,2]");
  EXPECT_EQ(describeIndex({}, 0), "[]");
}

} // namespace
