#include "SymbolBinding.h"

#include "Bindings.h"

namespace autoglm::run {

namespace {

int32_t symbolOf(const agl_tensor_info &info, int32_t d) {
  return info.dim_symbols ? info.dim_symbols[d] : AGL_DIM_STATIC;
}

} // namespace

std::string describeExpectedType(const agl_model_desc &model,
                                 const agl_tensor_info &info) {
  std::string text = std::string(agl_dtype_name(info.dtype)) + '[';
  for (int32_t d = 0; d < info.rank; ++d) {
    if (d > 0)
      text += ',';
    const int32_t symbol = symbolOf(info, d);
    if (symbol == AGL_DIM_STATIC)
      text += std::to_string(info.shape[d]);
    else if (symbol >= 0 && symbol < model.num_symbols)
      text += model.symbols[symbol].name;
    else
      text += '?';
  }
  return text + ']';
}

bool fitsType(const agl_tensor_info &info, const Tensor &tensor) {
  if (tensor.dtype != info.dtype ||
      tensor.shape.size() != static_cast<size_t>(info.rank))
    return false;
  for (int32_t d = 0; d < info.rank; ++d)
    if (symbolOf(info, d) == AGL_DIM_STATIC && tensor.shape[d] != info.shape[d])
      return false;
  return true;
}

std::vector<int64_t> bindSymbols(const agl_model_desc &model,
                                 const std::vector<Tensor> &inputs,
                                 const std::vector<std::string> &paths) {
  std::vector<int64_t> values(static_cast<size_t>(model.num_symbols), -1);
  std::vector<int32_t> source(values.size(), -1); // the input it came from
  for (int32_t i = 0; i < model.num_inputs; ++i) {
    const agl_tensor_info &info = model.inputs[i];
    for (int32_t d = 0; d < info.rank; ++d) {
      const int32_t k = symbolOf(info, d);
      if (k < 0)
        continue;
      const agl_symbol_info &symbol = model.symbols[k];
      const int64_t extent = inputs[i].shape[d];
      const std::string where = "input '" + std::string(info.name) +
                                "': dimension " + std::to_string(d) + " is " +
                                std::to_string(extent) + " in " + paths[i];
      if (source[k] < 0) {
        if (extent < symbol.min || extent > symbol.max)
          throw BindingError(where + ", outside the range " +
                             std::to_string(symbol.min) + ".." +
                             std::to_string(symbol.max) + " of symbol '" +
                             symbol.name + "'");
        values[k] = extent;
        source[k] = i;
      } else if (extent != values[k]) {
        throw BindingError(where + ", but symbol '" + symbol.name + "' is " +
                           std::to_string(values[k]) + " from input '" +
                           model.inputs[source[k]].name + "'");
      }
    }
  }
  return values;
}

std::string describeSymbols(const agl_model_desc &model,
                            const std::vector<int64_t> &values) {
  std::string text;
  for (int32_t k = 0; k < model.num_symbols; ++k)
    text += std::string(k ? " " : "") + model.symbols[k].name + "=" +
            std::to_string(values[k]);
  return text;
}

} // namespace autoglm::run
