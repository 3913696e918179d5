// The two JSON encodings autoglm-run needs; the rest is string assembly.
#ifndef AUTOGLM_RUN_JSON_H
#define AUTOGLM_RUN_JSON_H

#include <string>
#include <string_view>

namespace autoglm::run {

// A quoted, escaped JSON string.
std::string jsonString(std::string_view text);

// A JSON number, or null for NaN and infinities, which JSON cannot express.
std::string jsonNumber(double value);

} // namespace autoglm::run

#endif // AUTOGLM_RUN_JSON_H
