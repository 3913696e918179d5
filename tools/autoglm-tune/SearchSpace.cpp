//===- SearchSpace.cpp - the knob values autoglm-tune tries ---------------===//

#include "SearchSpace.h"

#include "llvm/ADT/StringRef.h"

namespace autoglm::tune {

namespace {

std::vector<llvm::json::Value> integers(std::initializer_list<int64_t> list) {
  return std::vector<llvm::json::Value>(list.begin(), list.end());
}

// Around the cost model's kc 384 / nc 512 / mc 1120 for a 32 KiB L1d and a
// 1 MiB L2; small problems favour smaller blocks (more threads' tasks).
Knob kc() { return {"kc", integers({128, 192, 256, 512, 768})}; }
Knob nc() { return {"nc", integers({128, 256, 1024, 2048})}; }
Knob mc() { return {"mc", integers({112, 224, 448})}; }

} // namespace

std::vector<Knob> knobsToSearch(const std::string &key,
                                const llvm::json::Object &settled) {
  llvm::StringRef kind = llvm::StringRef(key).split(' ').first;
  if (kind == "sgemm")
    return {kc(), nc(), mc()};
  if (kind == "conv2d") {
    if (settled.getString("strategy") == "im2col")
      return {{"strategy", {"implicit-gemm"}}};
    // Every strategy: the cost model takes any, by the filter count and
    // the kernel (Winograd for 3x3 ones with unit strides, one group).
    llvm::StringRef k(key);
    Knob strategy = {"strategy", {"im2col", "implicit-gemm"}};
    if (k.contains(" g1 ") && k.contains(" k3x3 s1x1 "))
      strategy.values.push_back("winograd");
    return {strategy, kc(), nc(), mc()};
  }
  if (kind == "loop" || kind == "fill" || kind == "copy" || kind == "map" ||
      kind == "transpose" || kind == "broadcast" || kind == "reduce")
    return {{"vector_width", integers({8, 4, 1})}, {"parallel", {true, false}}};
  return {};
}

} // namespace autoglm::tune
