//===- SearchSpace.h - the knob values autoglm-tune tries -------*- C++ -*-===//
//
// The tuner searches one knob at a time (coordinate descent): for each knob
// of a kernel's kind, in order, the values below are tried with the knobs
// already settled, and the fastest is kept. Values are those that change
// the code: cache blockings around the cost model's (the runtime fits them
// into its packing memory), the convolution strategies, vector widths,
// threads on or off.
//
//===----------------------------------------------------------------------===//
#ifndef AUTOGLM_TUNE_SEARCHSPACE_H
#define AUTOGLM_TUNE_SEARCHSPACE_H

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace autoglm::tune {

struct Knob {
  std::string name;
  std::vector<llvm::json::Value> values;
};

/// The knobs to search for a tuning key, in search order, given the knobs
/// settled so far (a convolution run as im2col has no blocking of its own:
/// its product is a GEMM with a key of its own); empty for a key of a kind
/// without knobs.
std::vector<Knob> knobsToSearch(const std::string &key,
                                const llvm::json::Object &settled = {});

} // namespace autoglm::tune

#endif // AUTOGLM_TUNE_SEARCHSPACE_H
