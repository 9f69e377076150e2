// libFuzzer target for the scenario loader: any bytes either load as a scenario or raise
// ScenarioError naming file, line and field; nothing else may escape, crash or trip the
// sanitizers. Built with clang and -DSIMGRAD_FUZZ=ON (scripts/test.sh: in build-sanitize/); see docs/testing.md.
#include <cstddef>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>

#include "scenario/scenario.hpp"
#include "scenario/scenario_reader.hpp"

namespace {

// The number of cells, nodes or units a JSON value asks for: the product of a "cells" or "size"
// array (a lattice, a mesh, a grid), or a count such as "rings" or "hidden"; the largest found
// anywhere in the scenario.
double largest_size(const nlohmann::json& node) {
  double largest = 0.0;
  if (node.is_object()) {
    for (const auto& item : node.items()) {
      const nlohmann::json& value = item.value();
      const std::string& key = item.key();
      if ((key == "cells" || key == "size") && value.is_array()) {
        double product = 1.0;
        for (const nlohmann::json& n : value) product *= n.is_number() ? std::abs(n.get<double>()) : 1.0;
        largest = std::max(largest, product);
      } else if ((key == "cells_along" || key == "cells_across" || key == "rings" || key == "hidden" ||
                  key == "sine_inputs" || key == "copies") &&
                 value.is_number()) {
        largest = std::max(largest, std::abs(value.get<double>()));
      }
      largest = std::max(largest, largest_size(value));
    }
  } else if (node.is_array()) {
    for (const nlohmann::json& n : node) largest = std::max(largest, largest_size(n));
  }
  return largest;
}

// Scenarios whose construction simulates for long (a reference run of many steps, or of a large
// lattice, mesh or grid) are valid input but would make the fuzzer crawl: they are skipped.
bool too_long(const simgrad::scenario::ScenarioFile& file) {
  const nlohmann::json& root = file.json();
  if (!root.is_object()) return false;
  const auto steps = root.find("steps");
  if (steps != root.end() && steps->is_number() && steps->get<double>() > 1100) return true;
  // A soft-body lattice runs its reference motion at load: small ones only.
  if (root.contains("body") && root["body"].is_object() && largest_size(root["body"]) > 125) return true;
  // The other shipped examples stay in: the largest is DiffTaichi's 110 x 110 smoke grid.
  return largest_size(root) > 110.0 * 110.0;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const simgrad::scenario::ScenarioFile file = simgrad::scenario::ScenarioFile::parse(text, "fuzz.json");
    if (too_long(file)) return 0;
    simgrad::scenario::load_scenario_file(file, "fuzz.json");
  } catch (const simgrad::scenario::ScenarioError&) {
    // The expected outcome for bad input.
  }
  return 0;
}
