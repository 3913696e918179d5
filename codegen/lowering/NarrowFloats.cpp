//===- NarrowFloats.cpp - float8/float4 <-> float32 on integer bits -------===//
//
// LLVM has no float8 or float4 types, so below the autoglm dialect their
// elements are bytes (`signless`), and conversions to and from float32 are
// integer bit manipulation. Decoding is exact; encoding rounds to nearest
// even and handles overflow, infinities and NaN as ONNX Cast specifies for
// each format (OCP FP8/FP4, the "fnuz" variants, and E8M0 scales).
//
//===----------------------------------------------------------------------===//

#include "codegen/lowering/LoweringUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <cmath>

using namespace mlir;
using namespace autoglm;

namespace {

/// A sign-exponent-mantissa format with its special encodings. Magnitudes
/// (`*Mag`) are the encoding without the sign bit.
struct Format {
  unsigned exponentBits, mantissaBits;
  int bias;
  unsigned maxMag;      // largest finite value
  bool fnuz;            // no -0; 0x80 is the only NaN
  int infMag = -1;      // -1: no infinity
  int nanMag = -1;      // NaN magnitude of non-fnuz formats; -1: no NaN
  unsigned signShift() const { return exponentBits + mantissaBits; }
};

Format formatOf(Type t) {
  if (isa<Float8E4M3FNType>(t))
    return {4, 3, 7, 0x7E, false, -1, 0x7F};
  if (isa<Float8E4M3FNUZType>(t))
    return {4, 3, 8, 0x7F, true};
  if (isa<Float8E5M2Type>(t))
    return {5, 2, 15, 0x7B, false, 0x7C, 0x7E};
  if (isa<Float8E5M2FNUZType>(t))
    return {5, 2, 16, 0x7F, true};
  assert(isa<Float4E2M1FNType>(t) && "not a narrow float");
  return {2, 1, 1, 0x7, false};
}

/// Scalar integer arithmetic on i32, kept short.
struct Bits {
  OpBuilder &b;
  Location loc;
  Type i32 = b.getI32Type();

  Value c(int64_t v) {
    return arith::ConstantOp::create(b, loc, b.getI32IntegerAttr(v));
  }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value sub(Value x, Value y) { return arith::SubIOp::create(b, loc, x, y); }
  Value band(Value x, Value y) { return arith::AndIOp::create(b, loc, x, y); }
  Value bor(Value x, Value y) { return arith::OrIOp::create(b, loc, x, y); }
  Value shl(Value x, Value y) { return arith::ShLIOp::create(b, loc, x, y); }
  Value shr(Value x, Value y) { return arith::ShRUIOp::create(b, loc, x, y); }
  Value cmp(arith::CmpIPredicate p, Value x, Value y) {
    return arith::CmpIOp::create(b, loc, p, x, y);
  }
  Value eq(Value x, Value y) { return cmp(arith::CmpIPredicate::eq, x, y); }
  Value ugt(Value x, Value y) { return cmp(arith::CmpIPredicate::ugt, x, y); }
  Value ult(Value x, Value y) { return cmp(arith::CmpIPredicate::ult, x, y); }
  Value select(Value c, Value x, Value y) {
    return arith::SelectOp::create(b, loc, c, x, y);
  }
  Value toI32(Value byte) { return arith::ExtUIOp::create(b, loc, i32, byte); }
  Value toByte(Value x) {
    return arith::TruncIOp::create(b, loc, b.getI8Type(), x);
  }
  Value floatBits(Value f) { return arith::BitcastOp::create(b, loc, i32, f); }
  Value asFloat(Value x) {
    return arith::BitcastOp::create(b, loc, b.getF32Type(), x);
  }
};

/// |x| rounded to nearest even in units of 2^-`shift` (x = `m` * 2^-`shift`,
/// 1 <= shift <= 31): m >> shift plus the rounding increment.
Value roundShiftRight(Bits &i, Value m, Value shift) {
  Value r = i.shr(m, shift);
  Value rem = i.band(m, i.sub(i.shl(i.c(1), shift), i.c(1)));
  Value half = i.shl(i.c(1), i.sub(shift, i.c(1)));
  Value odd = i.eq(i.band(r, i.c(1)), i.c(1));
  Value up = arith::OrIOp::create(
      i.b, i.loc, i.ugt(rem, half),
      arith::AndIOp::create(i.b, i.loc, i.eq(rem, half), odd));
  return i.add(r, arith::ExtUIOp::create(i.b, i.loc, i.i32, up));
}

Value decodeE8M0(Bits &i, Value code) {
  // 2^(code - 127); code 0 is the float32 subnormal 2^-127, 0xFF is NaN.
  Value bits = i.select(i.eq(code, i.c(0)), i.c(0x00400000), i.shl(code, i.c(23)));
  return i.asFloat(i.select(i.eq(code, i.c(0xFF)), i.c(0x7FC00000), bits));
}

/// The exponent of |x| with the mantissa rounded away, as ONNX's reference
/// (onnx.numpy_helper.to_float8e8m0) does: `up` when any mantissa bit is
/// set, `nearest` on the guard bit, `down` truncates. With `saturate`
/// nothing rounds past 2^127 into the NaN encoding.
Value encodeE8M0(Bits &i, Value bits, bool saturate, StringRef roundMode) {
  Value exponent = i.band(i.shr(bits, i.c(23)), i.c(0xFF));
  Value special = i.eq(exponent, i.c(0xFF));
  Value roundUp;
  if (roundMode == "up") {
    roundUp = i.ugt(i.band(bits, i.c(0x7FFFFF)), i.c(0));
  } else if (roundMode == "nearest") {
    Value g = i.ugt(i.band(bits, i.c(0x400000)), i.c(0));
    Value r = i.ugt(i.band(bits, i.c(0x200000)), i.c(0));
    Value s = i.ugt(i.band(bits, i.c(0x1FFFFF)), i.c(0));
    Value lsb = i.ugt(exponent, i.c(0));
    Value any = arith::OrIOp::create(
        i.b, i.loc, arith::OrIOp::create(i.b, i.loc, r, s), lsb);
    roundUp = arith::AndIOp::create(i.b, i.loc, g, any);
  } else {
    roundUp = arith::ConstantOp::create(i.b, i.loc, i.b.getBoolAttr(false));
  }
  if (saturate) {
    Value atMax = i.eq(exponent, i.c(0xFE));
    Value notMax = arith::XOrIOp::create(
        i.b, i.loc, atMax,
        arith::ConstantOp::create(i.b, i.loc, i.b.getBoolAttr(true)));
    roundUp = arith::AndIOp::create(i.b, i.loc, roundUp, notMax);
  }
  Value rounded =
      i.add(exponent, arith::ExtUIOp::create(i.b, i.loc, i.i32, roundUp));
  return i.select(special, i.c(0xFF), rounded);
}

} // namespace

Value autoglm::emitNarrowFloatToF32(OpBuilder &b, Location loc, Value byte,
                                    Type format) {
  Bits i{b, loc};
  Value code = i.toI32(byte);
  if (isa<Float8E8M0FNUType>(format))
    return decodeE8M0(i, code);
  Format f = formatOf(format);
  unsigned m = f.mantissaBits;
  code = i.band(code, i.c((1 << (f.signShift() + 1)) - 1));
  Value sign = i.shl(i.shr(code, i.c(f.signShift())), i.c(31));
  Value mag = i.band(code, i.c((1 << f.signShift()) - 1));
  Value exponent = i.shr(mag, i.c(m));
  Value mantissa = i.band(mag, i.c((1 << m) - 1));
  // Normal: rebias the exponent, widen the mantissa.
  Value normal = i.bor(i.shl(i.add(exponent, i.c(127 - f.bias)), i.c(23)),
                       i.shl(mantissa, i.c(23 - m)));
  // Subnormal (exponent field 0): mantissa * 2^(1 - bias - m), exact.
  Value scaled = arith::MulFOp::create(
      b, loc, arith::UIToFPOp::create(b, loc, b.getF32Type(), mantissa),
      arith::ConstantOp::create(
          b, loc, b.getF32FloatAttr(std::ldexp(1.0f, 1 - f.bias - (int)m))));
  Value value = i.select(i.eq(exponent, i.c(0)), i.floatBits(scaled), normal);
  value = i.bor(value, sign);
  if (f.infMag >= 0) {
    value = i.select(i.eq(mag, i.c(f.infMag)), i.bor(i.c(0x7F800000), sign),
                     value);
    value = i.select(i.ugt(mag, i.c(f.infMag)), i.c(0x7FC00000), value);
  } else if (f.nanMag >= 0) {
    value = i.select(i.eq(mag, i.c(f.nanMag)), i.c(0x7FC00000), value);
  } else if (f.fnuz) {
    value = i.select(i.eq(code, i.c(0x80)), i.c(0x7FC00000), value);
  }
  return i.asFloat(value);
}

Value autoglm::emitF32ToNarrowFloat(OpBuilder &b, Location loc, Value x,
                                    Type format, bool saturate,
                                    StringRef roundMode) {
  Bits i{b, loc};
  Value bits = i.floatBits(x);
  if (isa<Float8E8M0FNUType>(format))
    return i.toByte(encodeE8M0(i, bits, saturate, roundMode));
  Format f = formatOf(format);
  unsigned m = f.mantissaBits;
  Value sign = i.shr(bits, i.c(31));
  Value abs = i.band(bits, i.c(0x7FFFFFFF));
  Value exponent = i.shr(abs, i.c(23));

  // Normal results: round the float32 encoding at the target's last mantissa
  // bit (a carry moves into the exponent), then rebias.
  unsigned drop = 23 - m;
  Value roundedAbs =
      i.add(i.add(abs, i.c((1 << (drop - 1)) - 1)),
            i.band(i.shr(abs, i.c(drop)), i.c(1)));
  Value normalMag =
      i.sub(i.shr(roundedAbs, i.c(drop)), i.c((127 - f.bias) << m));
  // Subnormal results: |x| in units of 2^(1 - bias - m), rounded; a carry
  // into exponent field 1 is again the right encoding. Shifts of 26 or more
  // give 0 (the significand has 24 bits); clamping to 1..31 keeps the shifts
  // defined where the normal path is taken instead.
  Value significand = i.bor(i.band(abs, i.c(0x7FFFFF)), i.c(0x800000));
  Value shift = i.sub(i.c(151 - f.bias - (int)m), exponent);
  shift = arith::MinUIOp::create(b, loc, shift, i.c(31));
  shift = arith::MaxUIOp::create(b, loc, shift, i.c(1));
  Value subnormalMag = roundShiftRight(i, significand, shift);
  Value isSubnormal = i.ult(exponent, i.c(128 - f.bias));
  Value mag = i.select(isSubnormal, subnormalMag, normalMag);

  Value signBit = i.shl(sign, i.c(f.signShift()));
  Value code = i.bor(signBit, mag);
  if (f.fnuz) // no negative zero
    code = i.select(i.eq(mag, i.c(0)), i.c(0), code);
  Value overflow = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, mag,
                                         i.c(f.maxMag));
  Value nanCode = f.fnuz ? i.c(0x80) : i.c(f.nanMag < 0 ? 0 : f.nanMag);
  Value overflowCode;
  bool hasSpecials = f.fnuz || f.nanMag >= 0 || f.infMag >= 0;
  if (saturate || !hasSpecials)
    overflowCode = i.bor(signBit, i.c(f.maxMag));
  else if (f.infMag >= 0)
    overflowCode = i.bor(signBit, i.c(f.infMag));
  else
    overflowCode = f.fnuz ? nanCode : i.bor(signBit, nanCode);
  code = i.select(overflow, overflowCode, code);
  // NaN: the format's NaN; float4 has none and, like ml_dtypes, gives -0.
  Value isNan = i.ugt(abs, i.c(0x7F800000));
  Value nanResult = hasSpecials ? nanCode : i.c(1 << f.signShift());
  code = i.select(isNan, nanResult, code);
  return i.toByte(code);
}
