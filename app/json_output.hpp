// The JSON that --json commands print.
#pragma once

#include <nlohmann/json.hpp>

#include <iostream>

#include "report/json_text.hpp"

namespace simgrad::app {

// Result files and printed results share their text (report/json_text.hpp).
using report::finite_or_null;
using report::to_json_text;

// Prints `value` as the one JSON document of a --json command: the text of to_json_text,
// indented for people, a newline, and a flush so a reading process sees it whole.
void print_json(const nlohmann::json& value, std::ostream& out = std::cout);

}  // namespace simgrad::app
