// Scenario files for the mass-spring soft body (simulator "softbody").
#pragma once

#include <memory>
#include <string_view>
#include <vector>

#include "scenario/scenario.hpp"
#include "sims/softbody/contact.hpp"

namespace simgrad::scenario {

// Reads a softbody scenario from the root of its file.
std::unique_ptr<Scenario> load_softbody_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

// A number given once for all entries, or one per entry (shared with "fem").
std::vector<double> per_entry(const ScenarioNode& node, std::string_view key, std::size_t entries, double fallback);

// A D-vector field, or `fallback` when absent.
template <int D>
inline Vec<double, D> vec_of(const ScenarioNode& node, std::string_view key, Vec<double, D> fallback) {
  if (!node.has(key)) return fallback;
  const std::vector<double> v = node.numbers(key, D);
  Vec<double, D> r;
  for (int k = 0; k < D; ++k) r[k] = v[static_cast<std::size_t>(k)];
  return r;
}

// A contact plane: "normal", "offset", "friction", "restitution", "model" (shared with "fem").
template <int D>
softbody::ContactPlane<D> read_contact_plane(const ScenarioNode& plane);

// "penalty": the penalty contact's "stiffness", "sharpness" and "friction_speed" (shared with "fem").
void read_penalty(const ScenarioNode& root, softbody::PenaltySettings& penalty);

// The simulator's entry in `simgrad list`.
SimulatorInfo softbody_info();

}  // namespace simgrad::scenario
