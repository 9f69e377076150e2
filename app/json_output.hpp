// The JSON that --json commands print and result files hold.
#pragma once

#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

namespace simgrad::app {

// JSON text in which every double reads back bit for bit (nlohmann prints the shortest text
// that round-trips), non-finite numbers are null (JSON has no NaN or infinity), and strings
// that are not valid UTF-8 have the bad bytes replaced instead of throwing. indent < 0 gives
// one line.
std::string to_json_text(const nlohmann::json& value, int indent = 2);

// Prints `value` as the one JSON document of a --json command: the text of to_json_text,
// indented for people, a newline, and a flush so a reading process sees it whole.
void print_json(const nlohmann::json& value, std::ostream& out = std::cout);

// A double for a json field: the value itself, or null when it is not finite, so that readers
// see explicitly what the text would show anyway.
nlohmann::json finite_or_null(double value);

}  // namespace simgrad::app
