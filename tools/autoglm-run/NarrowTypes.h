// float8, float4 and 2-/4-bit integer elements at the file boundary: the
// runtime holds one element per byte, ONNX files pack 4-bit (2-bit) types
// two (four) to a byte.
#ifndef AUTOGLM_RUN_NARROWTYPES_H
#define AUTOGLM_RUN_NARROWTYPES_H

#include <cstddef>
#include <cstdint>

namespace autoglm::run {

bool isNarrowFloat(int32_t dtype);

// 2 or 4 for the packed integer and float4 types, 0 for every other type.
unsigned packedBits(int32_t dtype);

// The value a float8/float4 byte encodes (NaN for its NaN encodings).
double narrowFloatToDouble(int32_t dtype, uint8_t byte);

// Unpacks `count` elements of `packed` (low bits first) into one byte each;
// int4/int2 values are sign-extended.
void unpackElements(int32_t dtype, const uint8_t *packed, size_t count,
                    uint8_t *out);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_NARROWTYPES_H
