// libFuzzer target for the scenario loader: any bytes either load as a scenario or raise
// ScenarioError naming file, line and field; nothing else may escape, crash or trip the
// sanitizers. Built in build-fuzz/ with clang (-DSIMGRAD_FUZZ=ON); see README "Fuzzing".
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "app/scenario.hpp"
#include "app/scenario_reader.hpp"

namespace {

// Scenarios whose construction simulates for long (a reference run of many steps, or of a large
// lattice) are valid input but would make the fuzzer crawl: they are skipped.
bool too_long(const simgrad::app::ScenarioFile& file) {
  const nlohmann::json& root = file.json();
  if (!root.is_object()) return false;
  const auto steps = root.find("steps");
  if (steps != root.end() && steps->is_number() && steps->get<double>() > 1100) return true;
  const nlohmann::json* node = &root;
  for (const char* key : {"body", "lattice", "size"}) {
    if (!node->is_object() || !node->contains(key)) return false;
    node = &(*node)[key];
  }
  double nodes = 1.0;
  if (node->is_array())
    for (const nlohmann::json& n : *node) nodes *= n.is_number() ? n.get<double>() : 1.0;
  return nodes > 125;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const simgrad::app::ScenarioFile file = simgrad::app::ScenarioFile::parse(text, "fuzz.json");
    if (too_long(file)) return 0;
    simgrad::app::load_scenario_file(file, "fuzz.json");
  } catch (const simgrad::app::ScenarioError&) {
    // The expected outcome for bad input.
  }
  return 0;
}
