#include "app/json_output.hpp"

namespace simgrad::app {

void print_json(const nlohmann::json& value, std::ostream& out) {
  out << to_json_text(value) << '\n';
  out.flush();
}

}  // namespace simgrad::app
