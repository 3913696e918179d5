// Tests of ONNX TensorProto reading.
#include "TensorProtoFile.h"
#include "TensorFile.h"
#include "autoglm/runtime.h"

#include <onnx/onnx_pb.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

namespace {

using namespace autoglm::run;
using ::testing::HasSubstr;

std::string parseError(const onnx::TensorProto &proto) {
  try {
    parseTensorProto(proto.SerializeAsString(), "t.pb");
  } catch (const TensorFileError &error) {
    return error.what();
  }
  return "";
}

onnx::TensorProto protoOf(int32_t dtype, std::initializer_list<int64_t> dims) {
  onnx::TensorProto proto;
  proto.set_data_type(dtype);
  for (int64_t dim : dims)
    proto.add_dims(dim);
  return proto;
}

TEST(TensorProtoFile, RawData) {
  onnx::TensorProto proto = protoOf(onnx::TensorProto::FLOAT, {2, 2});
  const float values[] = {1.5f, -2, 3, 4};
  proto.set_raw_data(values, sizeof values);
  const Tensor tensor = parseTensorProto(proto.SerializeAsString(), "t.pb");
  EXPECT_EQ(tensor.dtype, AGL_DTYPE_F32);
  EXPECT_EQ(tensor.shape, (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(std::memcmp(tensor.bytes.data(), values, sizeof values), 0);
}

TEST(TensorProtoFile, TypedFields) {
  onnx::TensorProto floats = protoOf(onnx::TensorProto::FLOAT, {3});
  for (float v : {1.0f, 2.0f, -3.0f})
    floats.add_float_data(v);
  EXPECT_EQ(
      parseTensorProto(floats.SerializeAsString(), "f.pb").elementAsDouble(2),
      -3.0);

  onnx::TensorProto doubles = protoOf(onnx::TensorProto::DOUBLE, {1});
  doubles.add_double_data(0.25);
  EXPECT_EQ(
      parseTensorProto(doubles.SerializeAsString(), "d.pb").elementAsDouble(0),
      0.25);

  onnx::TensorProto longs = protoOf(onnx::TensorProto::INT64, {2});
  longs.add_int64_data(-7);
  longs.add_int64_data(INT64_C(1) << 40);
  const Tensor i64 = parseTensorProto(longs.SerializeAsString(), "l.pb");
  EXPECT_EQ(i64.elementAsDouble(0), -7.0);
  EXPECT_EQ(i64.elementAsDouble(1), std::ldexp(1.0, 40));

  onnx::TensorProto unsignedInts = protoOf(onnx::TensorProto::UINT32, {1});
  unsignedInts.add_uint64_data(4000000000u);
  EXPECT_EQ(parseTensorProto(unsignedInts.SerializeAsString(), "u.pb")
                .elementAsDouble(0),
            4000000000.0);
}

TEST(TensorProtoFile, NarrowTypesArePackedInInt32Data) {
  onnx::TensorProto bytes = protoOf(onnx::TensorProto::INT8, {2});
  bytes.add_int32_data(-5);
  bytes.add_int32_data(100);
  const Tensor i8 = parseTensorProto(bytes.SerializeAsString(), "b.pb");
  EXPECT_EQ(i8.elementAsDouble(0), -5.0);
  EXPECT_EQ(i8.elementAsDouble(1), 100.0);

  onnx::TensorProto halves = protoOf(onnx::TensorProto::FLOAT16, {1});
  halves.add_int32_data(0x3c00); // 1.0
  EXPECT_EQ(
      parseTensorProto(halves.SerializeAsString(), "h.pb").elementAsDouble(0),
      1.0);

  onnx::TensorProto bools = protoOf(onnx::TensorProto::BOOL, {3});
  for (int v : {0, 1, 5})
    bools.add_int32_data(v);
  const Tensor b = parseTensorProto(bools.SerializeAsString(), "bool.pb");
  EXPECT_EQ(b.bytes.data()[0], 0);
  EXPECT_EQ(b.bytes.data()[1], 1);
  EXPECT_EQ(b.bytes.data()[2], 1) << "any nonzero value is true";

  onnx::TensorProto shorts = protoOf(onnx::TensorProto::UINT16, {1});
  shorts.add_int32_data(65535);
  EXPECT_EQ(
      parseTensorProto(shorts.SerializeAsString(), "s.pb").elementAsDouble(0),
      65535.0);
}

TEST(TensorProtoFile, RejectsInconsistentTensors) {
  onnx::TensorProto shortRaw = protoOf(onnx::TensorProto::FLOAT, {4});
  shortRaw.set_raw_data(std::string(8, '\0'));
  EXPECT_THAT(parseError(shortRaw),
              HasSubstr("raw_data holds 8 bytes, but float32[4] needs 16"));

  onnx::TensorProto fewValues = protoOf(onnx::TensorProto::INT32, {3});
  fewValues.add_int32_data(1);
  EXPECT_THAT(parseError(fewValues),
              HasSubstr("int32_data holds 1 values, but int32[3] has 3"));

  onnx::TensorProto strings = protoOf(onnx::TensorProto::STRING, {1});
  strings.add_string_data("x");
  EXPECT_THAT(parseError(strings),
              HasSubstr("element type STRING is not supported"));

  onnx::TensorProto external = protoOf(onnx::TensorProto::FLOAT, {1});
  external.set_data_location(onnx::TensorProto::EXTERNAL);
  EXPECT_THAT(parseError(external), HasSubstr("external data"));

  try {
    parseTensorProto("\xff\xff\xff garbage", "g.pb");
    FAIL() << "no error";
  } catch (const TensorFileError &error) {
    EXPECT_STREQ(error.what(), "g.pb: not an ONNX TensorProto");
  }
}

TEST(TensorProtoFile, PackedSubByteTypesUnpackToOneBytePerElement) {
  // int4 [-8, 7, -1]: low nibble first, the odd element padded.
  onnx::TensorProto int4 = protoOf(AGL_DTYPE_I4, {3});
  const char packed[] = {0x78, 0x0F};
  int4.set_raw_data(packed, sizeof packed);
  const Tensor t = parseTensorProto(int4.SerializeAsString(), "i4.pb");
  EXPECT_EQ(t.dtype, AGL_DTYPE_I4);
  ASSERT_EQ(t.bytes.size(), 3u);
  EXPECT_EQ(t.elementAsDouble(0), -8);
  EXPECT_EQ(t.elementAsDouble(1), 7);
  EXPECT_EQ(t.elementAsDouble(2), -1);
  EXPECT_EQ(t.bytes.data()[2], 0xFF) << "int4 bytes are sign-extended";

  // uint2 [3, 0, 1, 2, 1] from int32_data, one packed byte per entry.
  onnx::TensorProto uint2 = protoOf(AGL_DTYPE_U2, {5});
  uint2.add_int32_data(0x93); // 0b10'01'00'11
  uint2.add_int32_data(0x01);
  const Tensor u = parseTensorProto(uint2.SerializeAsString(), "u2.pb");
  const uint8_t expected[] = {3, 0, 1, 2, 1};
  EXPECT_EQ(std::memcmp(u.bytes.data(), expected, 5), 0);

  onnx::TensorProto shortData = protoOf(AGL_DTYPE_U4, {3});
  shortData.set_raw_data(packed, 1);
  EXPECT_THAT(parseError(shortData),
              HasSubstr("holds 1 packed bytes, but uint4[3] needs 2"));
}

TEST(TensorProtoFile, Float8Encodings) {
  onnx::TensorProto f8 = protoOf(AGL_DTYPE_F8E4M3FN, {4});
  const unsigned char bytes[] = {0x38, 0xFE, 0x7F, 0x01}; // 1, -448, NaN, 2^-9
  f8.set_raw_data(bytes, sizeof bytes);
  const Tensor t = parseTensorProto(f8.SerializeAsString(), "f8.pb");
  EXPECT_EQ(t.elementAsDouble(0), 1.0);
  EXPECT_EQ(t.elementAsDouble(1), -448.0);
  EXPECT_TRUE(std::isnan(t.elementAsDouble(2)));
  EXPECT_EQ(t.elementAsDouble(3), std::ldexp(1.0, -9));

  onnx::TensorProto e5m2 = protoOf(AGL_DTYPE_F8E5M2, {2});
  e5m2.add_int32_data(0x7C); // +inf
  e5m2.add_int32_data(0xFB); // -57344
  const Tensor e = parseTensorProto(e5m2.SerializeAsString(), "e5m2.pb");
  EXPECT_TRUE(std::isinf(e.elementAsDouble(0)));
  EXPECT_EQ(e.elementAsDouble(1), -57344.0);

  onnx::TensorProto fnuz = protoOf(AGL_DTYPE_F8E4M3FNUZ, {1});
  fnuz.set_raw_data("\x80", 1);
  EXPECT_TRUE(std::isnan(
      parseTensorProto(fnuz.SerializeAsString(), "fnuz.pb").elementAsDouble(0)));
}

} // namespace
