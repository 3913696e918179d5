//===- ActivationRange.h - an activation's int8 range from what it took ---===//
//
// Calibration sees every value an activation takes on the input sets; int8
// quantization then covers one range [lo, hi] (widened to hold 0) with 256
// uint8 levels. Taking the extremes wastes levels on rare outliers; the
// other estimators here clip them.
//
//===----------------------------------------------------------------------===//

#ifndef AUTOGLM_COMPILE_ACTIVATIONRANGE_H
#define AUTOGLM_COMPILE_ACTIVATIONRANGE_H

#include <vector>

namespace autoglm {

struct ActivationRange {
  double lo = 0, hi = 0;
};

/// The smallest and largest value (0, 0 for none).
ActivationRange minMaxRange(const std::vector<float> &values);

/// The values at `percentile` % and 100 - `percentile` % of the sorted
/// values (reorders `values`).
ActivationRange percentileRange(std::vector<float> &values, double percentile);

/// The range whose uint8 quantization loses the least information, as the
/// Kullback-Leibler divergence of the quantized distribution from the
/// observed one measures it (TensorRT's entropy calibration, for an
/// asymmetric range): a histogram of 2048 bins over the values and 0;
/// every window of whole bins that holds 0 and spans at least 256 bins
/// (its ends on a grid of 16 bins) is a candidate; the values outside it
/// are clipped into its end bins (P), its own bins merged into 256 levels
/// and spread back over their nonempty bins (Q); the window with the least
/// KL(P || Q) wins.
ActivationRange entropyRange(const std::vector<float> &values);

} // namespace autoglm

#endif // AUTOGLM_COMPILE_ACTIVATIONRANGE_H
