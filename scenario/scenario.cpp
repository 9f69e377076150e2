#include "scenario/scenario.hpp"

#include <set>
#include <stdexcept>

#include "scenario/contagion_scenario.hpp"
#include "scenario/creature_scenario.hpp"
#include "scenario/default_scenario.hpp"
#include "scenario/fem_scenario.hpp"
#include "scenario/fluid_scenario.hpp"
#include "scenario/mpm_scenario.hpp"
#include "scenario/rigid_scenario.hpp"
#include "scenario/softbody_scenario.hpp"
#include "scenario/structure_scenario.hpp"
#include "scenario/tuned_parameter.hpp"
#include "scenario/vehicle_scenario.hpp"

namespace simgrad::scenario {

TuneOptions read_tune_options(const ScenarioNode& tune) {
  TuneOptions s;
  s.optimizer = tune.choice("optimizer", {"lbfgs", "adam", "normalized_gd", "levenberg_marquardt", "cmaes"},
                            s.optimizer);
  s.iterations = static_cast<int>(tune.integer("iterations", 1, 100000, s.iterations));
  s.learning_rate = tune.positive("learning_rate", s.learning_rate);
  s.target_loss = tune.number("target_loss", s.target_loss);
  s.baseline_budget = tune.integer("baseline_budget", 1, 100000000, s.baseline_budget);
  s.seed = static_cast<std::uint64_t>(tune.integer("seed", 0, 1LL << 53, 1));
  return s;
}

CheckpointPolicy read_checkpoint(const ScenarioNode& root, const ScenarioOverrides& overrides) {
  const std::string text = root.string("checkpoint", "all");
  try {
    const CheckpointPolicy policy = CheckpointPolicy::parse(text);
    return overrides.checkpoint ? *overrides.checkpoint : policy;
  } catch (const std::invalid_argument&) {
    root.fail("checkpoint", "expected one of \"all\", \"every:K\", \"binomial:S\", got \"" + text + "\"");
  }
}

RolloutOptions read_rollout_options(const ScenarioNode& root, const ScenarioOverrides& overrides, int steps) {
  RolloutOptions options;
  options.checkpoint = read_checkpoint(root, overrides);
  options.clip_adjoint_norm = root.non_negative("clip_adjoint_norm", 0.0);
  options.truncate_horizon = static_cast<int>(root.integer("truncate_horizon", 1, steps, 0));
  return options;
}

std::unique_ptr<Scenario> load_scenario(const std::filesystem::path& file, const ScenarioOverrides& overrides) {
  if (file.empty()) return load_scenario_text(kDefaultScenarioText, kDefaultScenarioName, overrides);
  return load_scenario_file(ScenarioFile::load(file), file.filename().string(), overrides);
}

std::unique_ptr<Scenario> load_scenario_text(std::string_view text, const std::string& name,
                                             const ScenarioOverrides& overrides) {
  return load_scenario_file(ScenarioFile::parse(text, name), name, overrides);
}

namespace {

// A parameter tuned twice is bad input; found by the fuzzer, where the parameter space's own
// check named neither the file nor the line. It looks at the raw json, so that it marks no field
// as known: a simulator whose loader takes no tune.parameters (creature) still rejects them.
void check_parameters_unique(const ScenarioNode& root) {
  const nlohmann::json& top = root.json();
  if (!top.contains("tune") || !top["tune"].is_object() || !top["tune"].contains("parameters")) return;
  const nlohmann::json& parameters = top["tune"]["parameters"];
  if (!parameters.is_array()) return;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < parameters.size(); ++i) {
    const nlohmann::json& p = parameters[i];
    if (!p.is_object() || !p.contains("name") || !p["name"].is_string()) continue;
    const std::string name = p["name"].get<std::string>();
    if (!seen.insert(name).second) root.child("tune").array("parameters")[i].fail("name", "\"" + name + "\" is tuned twice");
  }
}

}  // namespace

std::unique_ptr<Scenario> load_scenario_file(const ScenarioFile& scenario_file, const std::string& name,
                                             const ScenarioOverrides& overrides) {
  const ScenarioNode root = scenario_file.root();
  std::vector<std::string> names;
  for (const SimulatorInfo& s : simulators()) names.push_back(s.name);
  const std::string simulator = root.choice("simulator", names);
  check_parameters_unique(root);
  const std::string description = root.string("description", "");
  if (overrides.split && simulator != "contagion" && simulator != "softbody" && simulator != "fluid")
    throw std::invalid_argument("--split: the " + simulator +
                                " simulator does not split over processes (the contagion agent model, the "
                                "mass-spring soft body and the 2D smoke grid do)");
  std::unique_ptr<Scenario> scenario;
  for (const SimulatorInfo& s : simulators())
    if (s.name == simulator) scenario = s.load(root, overrides);
  root.finish();
  scenario->name = name;
  scenario->description = description;
  return scenario;
}

nlohmann::ordered_json with_tuned_parameter_schemas(nlohmann::ordered_json schema) {
  for (const SimulatorInfo& s : simulators())
    if (s.table_parameters) schema["$defs"][s.name]["properties"]["tune"]["properties"]["parameters"] = tuned_parameter_schema(s.tunables);
  return schema;
}

const std::vector<SimulatorInfo>& simulators() {
  static const std::vector<SimulatorInfo> registry = {softbody_info(),  fem_info(),      structure_info(), vehicle_info(),
                                                      contagion_info(), creature_info(), fluid_info(),     rigid_info(),
                                                      mpm_info()};
  return registry;
}

}  // namespace simgrad::scenario
