/* Element types and tensor sizes. */
#include "internal.h"

size_t agl_dtype_size(int32_t dtype) {
  switch (dtype) {
  case AGL_DTYPE_U8:
  case AGL_DTYPE_I8:
  case AGL_DTYPE_BOOL:
  case AGL_DTYPE_F8E4M3FN:
  case AGL_DTYPE_F8E4M3FNUZ:
  case AGL_DTYPE_F8E5M2:
  case AGL_DTYPE_F8E5M2FNUZ:
  case AGL_DTYPE_U4:
  case AGL_DTYPE_I4:
  case AGL_DTYPE_F4E2M1:
  case AGL_DTYPE_F8E8M0:
  case AGL_DTYPE_U2:
  case AGL_DTYPE_I2:
    return 1; /* sub-byte types too: one element per byte */
  case AGL_DTYPE_U16:
  case AGL_DTYPE_I16:
  case AGL_DTYPE_F16:
  case AGL_DTYPE_BF16:
    return 2;
  case AGL_DTYPE_F32:
  case AGL_DTYPE_I32:
  case AGL_DTYPE_U32:
    return 4;
  case AGL_DTYPE_I64:
  case AGL_DTYPE_F64:
  case AGL_DTYPE_U64:
    return 8;
  default:
    return 0;
  }
}

const char *agl_dtype_name(int32_t dtype) {
  switch (dtype) {
  case AGL_DTYPE_F32:
    return "float32";
  case AGL_DTYPE_U8:
    return "uint8";
  case AGL_DTYPE_I8:
    return "int8";
  case AGL_DTYPE_U16:
    return "uint16";
  case AGL_DTYPE_I16:
    return "int16";
  case AGL_DTYPE_I32:
    return "int32";
  case AGL_DTYPE_I64:
    return "int64";
  case AGL_DTYPE_BOOL:
    return "bool";
  case AGL_DTYPE_F16:
    return "float16";
  case AGL_DTYPE_F64:
    return "float64";
  case AGL_DTYPE_U32:
    return "uint32";
  case AGL_DTYPE_U64:
    return "uint64";
  case AGL_DTYPE_BF16:
    return "bfloat16";
  case AGL_DTYPE_F8E4M3FN:
    return "float8e4m3fn";
  case AGL_DTYPE_F8E4M3FNUZ:
    return "float8e4m3fnuz";
  case AGL_DTYPE_F8E5M2:
    return "float8e5m2";
  case AGL_DTYPE_F8E5M2FNUZ:
    return "float8e5m2fnuz";
  case AGL_DTYPE_U4:
    return "uint4";
  case AGL_DTYPE_I4:
    return "int4";
  case AGL_DTYPE_F4E2M1:
    return "float4e2m1";
  case AGL_DTYPE_F8E8M0:
    return "float8e8m0";
  case AGL_DTYPE_U2:
    return "uint2";
  case AGL_DTYPE_I2:
    return "int2";
  default:
    return "unknown";
  }
}

size_t agl_tensor_num_elements(const agl_tensor_info *info) {
  if (!info || info->rank < 0 || (info->rank > 0 && !info->shape))
    return 0;
  size_t count = 1; /* a rank-0 tensor is one scalar */
  for (int32_t i = 0; i < info->rank; ++i) {
    if (info->shape[i] < 0)
      return 0;
    count *= (size_t)info->shape[i];
  }
  return count;
}

size_t agl_tensor_num_bytes(const agl_tensor_info *info) {
  if (!info)
    return 0;
  return agl_tensor_num_elements(info) * agl_dtype_size(info->dtype);
}
