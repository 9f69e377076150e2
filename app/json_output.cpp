#include "app/json_output.hpp"

#include <cmath>

namespace simgrad::app {

std::string to_json_text(const nlohmann::json& value, int indent) {
  return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

void print_json(const nlohmann::json& value, std::ostream& out) {
  out << to_json_text(value) << '\n';
  out.flush();
}

nlohmann::json finite_or_null(double value) {
  return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

}  // namespace simgrad::app
