#include "TensorSummary.h"

#include <algorithm>
#include <cmath>

namespace autoglm::run {

TensorSummary summarize(const Tensor &tensor) {
  TensorSummary summary;
  summary.elements = tensor.numElements();
  double sum = 0;
  bool first = true;
  for (size_t i = 0; i < summary.elements; ++i) {
    const double value = tensor.elementAsDouble(i);
    if (std::isnan(value)) {
      ++summary.nans;
      continue;
    }
    summary.min = first ? value : std::min(summary.min, value);
    summary.max = first ? value : std::max(summary.max, value);
    first = false;
    sum += value;
  }
  if (summary.hasValues())
    summary.mean = sum / static_cast<double>(summary.elements - summary.nans);
  return summary;
}

} // namespace autoglm::run
