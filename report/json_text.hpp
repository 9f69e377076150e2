// The JSON that result files hold and --json commands print.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace simgrad::report {

// JSON text in which every double reads back bit for bit (nlohmann prints the shortest text
// that round-trips), non-finite numbers are null (JSON has no NaN or infinity), and strings
// that are not valid UTF-8 have the bad bytes replaced instead of throwing. indent < 0 gives
// one line.
std::string to_json_text(const nlohmann::json& value, int indent = 2);

// A double for a json field: the value itself, or null when it is not finite, so that readers
// see explicitly what the text would show anyway.
nlohmann::json finite_or_null(double value);

}  // namespace simgrad::report
