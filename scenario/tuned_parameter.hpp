// One entry of a scenario's "tune.parameters", read against its simulator's tunables table
// (tune/tunable.hpp): every simulator's tuned parameters accept the same fields and give the
// same errors, and the JSON Schema of those fields is made from the same table.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/scenario.hpp"
#include "scenario/scenario_reader.hpp"
#include "tune/problem.hpp"
#include "tune/tunable.hpp"

namespace simgrad::scenario {

// What a simulator adds to the common reading.
struct TunedParameterRules {
  // "entries" when the scenario leaves it out: > 0 tunes only the first entries (the contagion
  // model's R for the weeks its data can see); null: all.
  std::function<int(const std::string& name)> default_entries;
};

// Reads p: "name" (a row of the table), "sharing" ("each", "uniform", "groups" with "groups";
// "uniform": true is the same as "sharing": "uniform"), the picked items of a per-item quantity
// ("sources", "vents"), "entries", "lower", "upper", "transform" and "initial" (a starting value
// for every entry covered); binds it. Errors name p's file, line and field.
tune::BoundParameter read_tuned_parameter(const ScenarioNode& p, const std::vector<tune::TunableInfo>& table,
                                          const std::function<tune::TunableStorage(std::string_view name)>& locate,
                                          const TunedParameterRules& rules = {});

// The same, for a table and the model it binds into (which must outlive the binding).
template <class Model>
tune::BoundParameter read_tuned_parameter(const ScenarioNode& p, const tune::TunableTable<Model>& table, Model& model,
                                          const TunedParameterRules& rules = {}) {
  auto locate = [&table, &model](std::string_view name) { return tune::find_tunable(table, name)->storage(model); };
  return read_tuned_parameter(p, tune::tunable_infos(table), locate, rules);
}

// Every entry of "tune.parameters", at least one.
template <class Model>
std::vector<tune::BoundParameter> read_tuned_parameters(const ScenarioNode& tune_section, const tune::TunableTable<Model>& table,
                                                        Model& model, const TunedParameterRules& rules = {}) {
  std::vector<tune::BoundParameter> bound;
  for (const ScenarioNode& p : tune_section.array("parameters"))
    bound.push_back(read_tuned_parameter(p.as_object(), table, model, rules));
  if (bound.empty()) tune_section.fail("parameters", "expected at least one parameter to tune");
  return bound;
}

// The "tune" section of `root` (its settings into `tune`, its parameters read against `table`
// and bound into `model`) and the rollout problem of `loss` over them, with the rollout options
// of read_rollout_options.
template <class Model>
std::unique_ptr<tune::RolloutProblem> read_tuned_rollout(const ScenarioNode& root, const ScenarioOverrides& overrides,
                                                         const tune::TunableTable<Model>& table, Model& model,
                                                         System& system, TrajectoryLoss& loss, int steps, TuneOptions& tune) {
  const ScenarioNode tune_node = root.child("tune");
  tune = read_tune_options(tune_node);
  std::vector<tune::BoundParameter> bound = read_tuned_parameters(tune_node, table, model);
  const RolloutOptions options = read_rollout_options(root, overrides, steps);
  return std::make_unique<tune::RolloutProblem>(system, loss, steps, options, std::move(bound));
}

// What a scenario that leaves a tunable quantity out gets (every entry, every component), as
// the table declares it.
template <class Model>
double tunable_default(const tune::TunableTable<Model>& table, std::string_view name) {
  return tune::find_tunable(table, name)->info.default_value.numbers.front();
}

// A tuned parameter's "lower", "upper" and "transform", checked against each other; absent
// bounds are the defaults'.
struct ParameterBounds {
  double lower = -1e300;
  double upper = 1e300;
  tune::Transform transform = tune::Transform::identity;
};
ParameterBounds read_parameter_bounds(const ScenarioNode& p, const ParameterBounds& defaults = {});

// The JSON Schema of an entry of "tune.parameters" for a simulator with this table.
nlohmann::ordered_json tuned_parameter_schema(const std::vector<tune::TunableInfo>& table);

// A row's entry in `simgrad list` and `describe`: {"name", "unit", "per", "description", "default"}.
nlohmann::json tunable_json(const tune::TunableInfo& info);

}  // namespace simgrad::scenario
