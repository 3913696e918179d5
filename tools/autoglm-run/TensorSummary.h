// Statistics that tell at a glance whether an output is plausible.
#ifndef AUTOGLM_RUN_TENSORSUMMARY_H
#define AUTOGLM_RUN_TENSORSUMMARY_H

#include "Tensor.h"

#include <cstddef>

namespace autoglm::run {

struct TensorSummary {
  size_t elements = 0;
  size_t nans = 0;
  // Over the elements that are not NaN; meaningless when none is.
  double min = 0;
  double max = 0;
  double mean = 0;

  bool hasValues() const { return elements > nans; }
};

TensorSummary summarize(const Tensor &tensor);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_TENSORSUMMARY_H
