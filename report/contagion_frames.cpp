#include "report/contagion_frames.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numbers>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/rollout.hpp"
#include "sims/contagion/losses.hpp"
#include "sims/contagion/transition.hpp"

namespace simgrad::report {

namespace cg = simgrad::contagion;
using nlohmann::json;

namespace {

// The scenario's name of a count.
std::string count_name(cg::Count count) {
  switch (count) {
    case cg::Count::kDeaths: return "deaths";
    case cg::Count::kCases: return "cases";
    case cg::Count::kInfections: return "infections";
    default: return "infectious";
  }
}

json metrics_json(const cg::ForecastMetrics& m) { return {{"nd", m.nd}, {"rmse", m.rmse}, {"mae", m.mae}}; }

json scored_json(const cg::ScoredForecast& s) {
  json j = metrics_json(s.metrics);
  j["forecast"] = s.forecast;
  return j;
}

json extension_json(const cg::ReproductionExtension& e) {
  json backtest = json::object();
  for (const auto& [rule, error] : e.backtest) backtest[cg::rule_name(rule)] = std::isfinite(error) ? json(error) : json(nullptr);
  return {{"rule", cg::rule_name(e.rule)}, {"weeks", e.weeks}, {"backtest_log_error", backtest}, {"reproduction", e.reproduction}};
}

// Up to 200 agents: the first few seeded ones (`roots` of them, first in the list), then
// breadth-first over contacts (or by index when the population is complete).
std::vector<Index> glimpse_agents(const cg::Population& population, const cg::Epidemic& system, std::size_t& roots) {
  // A few seeds, so that the rings show two or three steps of spread.
  constexpr std::size_t most = 200, seeds = 4;
  const cg::DiseaseModel& model = system.model();
  const cg::DiseaseSettings& s = model.settings;
  const double p = model.parameters.initial_infected.values()[0];
  std::vector<Index> chosen;
  std::unordered_set<Index> taken;
  for (Index i = 0; i < population.agents && chosen.size() < seeds; ++i)
    if (cg::sample_event(p, system.seeding_draw(i), s.sampler, s.temperature).hard > 0.0) {
      chosen.push_back(i);
      taken.insert(i);
    }
  roots = chosen.size();
  for (std::size_t head = 0; chosen.size() < most; ++head) {
    if (head == chosen.size()) {  // the search ran dry: start again from the next agent not taken
      Index next = 0;
      while (next < population.agents && taken.contains(next)) ++next;
      if (next == population.agents) break;
      chosen.push_back(next);
      taken.insert(next);
      if (population.complete) continue;
    }
    if (population.complete) continue;
    const std::size_t a = static_cast<std::size_t>(chosen[head]);
    for (std::int64_t e = population.offsets[a]; e < population.offsets[a + 1] && chosen.size() < most; ++e) {
      const Index b = population.neighbors[static_cast<std::size_t>(e)];
      if (taken.insert(b).second) chosen.push_back(b);
    }
  }
  return chosen;
}

}  // namespace

json contagion_summary(const cg::Population& population, const cg::DiseaseModel& model, const cg::CalibrationData& data,
                       const cg::EvaluationOptions& evaluation, int days, double population_load_s, bool evaluate) {
  json j = {{"agents", population.total_agents()},
            {"complete", population.complete},
            {"population_load_s", population_load_s},
            {"days", days},
            {"fit_windows", data.fit.observations.size()},
            {"forecast_windows", data.held_out.size()}};
  if (population.whole_agents == 0) j["directed_contacts"] = population.directed_contacts();
  const cg::DiseaseParameters& p = model.parameters;
  j["reproduction"] = p.reproduction.values();
  j["mortality"] = p.mortality.values()[0];
  j["initial_infected"] = p.initial_infected.values()[0];
  j["reporting"] = p.reporting.values()[0];
  if (!data.also_fit.empty()) j["ascertainment"] = p.ascertainment.values()[0];
  std::vector<double> window_days, truth;
  for (const cg::Observation& o : data.windows()) {
    window_days.push_back(o.day);
    truth.push_back(o.value);
  }
  j["window_end_days"] = window_days;
  j["data"] = truth;
  if (!evaluate) return j;
  const cg::CalibrationEvaluation e = cg::evaluate_calibration(population, model, data, evaluation, days);
  if (e.r0) j["r0"] = *e.r0;
  j["reproduction_forecast"] = extension_json(e.reproduction_forecast);
  j["hard_model"] = {{"seeds", evaluation.seeds}, {"mean", e.hard.mean}, {"sd", e.hard.sd}};
  if (e.hard_fit) j["hard_model"]["fit"] = metrics_json(*e.hard_fit);
  for (const cg::CalibrationEvaluation::AlsoFit& a : e.also_fit)
    j["also_fit"].push_back({{"count", count_name(a.count)}, {"data", a.data}, {"mean", a.spread.mean}, {"fit", metrics_json(a.fit)}});
  if (!e.forecast) return j;
  json forecast = {{"truth", e.truth}, {"simgrad", scored_json(e.simgrad)}, {"expert", scored_json(e.expert)},
                   {"seirm", scored_json(e.seirm)}};
  if (e.seirm_reproduction_forecast) forecast["seirm_reproduction_forecast"] = extension_json(*e.seirm_reproduction_forecast);
  j["forecast"] = forecast;
  return j;
}

json contagion_frames(const cg::Population& population, cg::Epidemic& system, TrajectoryLoss& loss,
                      const cg::CalibrationData& data, int steps) {
  std::size_t roots = 0;
  const std::vector<Index> agents = glimpse_agents(population, system, roots);
  std::vector<int> depth(agents.size(), 0);
  std::unordered_map<Index, std::size_t> place;
  for (std::size_t k = 0; k < agents.size(); ++k) place[agents[k]] = k;
  json background = json::array();
  if (!population.complete) {
    // Depth by a second search over the chosen agents only; edges among them, each once.
    for (std::size_t k = 0; k < agents.size(); ++k) depth[k] = k < roots ? 0 : -1;
    for (std::size_t k = 0; k < agents.size(); ++k)
      for (std::int64_t e = population.offsets[static_cast<std::size_t>(agents[k])];
           e < population.offsets[static_cast<std::size_t>(agents[k]) + 1]; ++e) {
        const auto other = place.find(population.neighbors[static_cast<std::size_t>(e)]);
        if (other == place.end()) continue;
        if (depth[other->second] < 0) depth[other->second] = depth[k] + 1;
        if (other->second > k) background.push_back(json::array({static_cast<double>(k), static_cast<double>(other->second), 0, 0, 0}));
      }
  }
  // Rings: the agents at each depth spread evenly round a circle of that radius.
  std::vector<std::vector<std::size_t>> rings;
  for (std::size_t k = 0; k < agents.size(); ++k) {
    const std::size_t d = static_cast<std::size_t>(std::max(0, depth[k]));
    if (rings.size() <= d) rings.resize(d + 1);
    rings[d].push_back(k);
  }
  std::vector<std::array<double, 2>> at(agents.size());
  for (std::size_t d = 0; d < rings.size(); ++d)
    for (std::size_t j = 0; j < rings[d].size(); ++j) {
      const double angle = 2.0 * std::numbers::pi * (static_cast<double>(j) + 0.5 * static_cast<double>(d)) / static_cast<double>(rings[d].size());
      // Depth d on radius d + 1; a single root sits at the centre.
      const double radius = population.complete ? 1.0 : static_cast<double>(d) + (rings[0].size() > 1 || d > 0 ? 1.0 : 0.0);
      at[rings[d][j]] = {radius * std::cos(angle), radius * std::sin(angle)};
    }
  for (json& line : background) {
    const std::size_t a = static_cast<std::size_t>(line[0].get<double>()), b = static_cast<std::size_t>(line[1].get<double>());
    line = json::array({at[a][0], at[a][1], at[b][0], at[b][1], 0.0});
  }
  json points = json::array();
  for (const auto& p : at) points.push_back({p[0], p[1]});

  const std::vector<cg::Observation> all = data.windows();
  const cg::Series& fit = data.fit;
  json observed = {{"name", "data"}, {"x", json::array()}, {"y", json::array()}};
  json simulated = {{"name", "simulated"}, {"x", json::array()}, {"y", json::array()}};
  for (const cg::Observation& o : all) {
    observed["x"].push_back(o.day);
    observed["y"].push_back(o.value);
  }
  cg::DiseaseModel& model = system.model();
  const cg::DiseaseSettings& s = model.settings;
  const double reporting = cg::share_of(model.parameters, fit.share).values()[0];
  const int stride = std::max(1, steps / 80);
  json frames = json::array();
  RolloutOptions o;
  o.observer = [&](int t, std::span<const double> state) {
    for (const cg::Observation& ob : all)
      if (ob.day == t) {
        simulated["x"].push_back(t);
        simulated["y"].push_back(reporting * cg::model_count(system, fit.count, t, ob.window, state, fit.delay));
      }
    if (t % stride != 0 && t != steps) return;
    json classes = json::array();
    const std::size_t n = static_cast<std::size_t>(population.agents);
    for (Index i : agents) {
      const double tau = state[n + static_cast<std::size_t>(i)];
      const int since = t - static_cast<int>(tau);
      const int stage = tau < 0.0 || state[static_cast<std::size_t>(i)] > 0.5 ? 0
                        : since < s.exposed_days                              ? 1
                        : since < s.removal_day()                             ? 2
                        : system.dies(tau, i)                                 ? 4
                                                                              : 3;
      classes.push_back(stage);
    }
    frames.push_back({{"label", "day " + std::to_string(t)}, {"time", t}, {"points", points}, {"classes", classes}});
  };
  Rollout(system, loss, steps, o).loss();
  const std::string count = count_name(fit.count);
  const int window = fit.observations.front().window;
  return {{"legend", std::to_string(agents.size()) + " agents of " + std::to_string(population.agents) +
                         (population.complete ? " (well mixed: everyone meets everyone)" : " around the seeded ones, rings by contact distance") +
                         ": susceptible grey, exposed orange, infectious red, recovered green, dead black"},
          {"palette", {"#b0b0b0", "#ff9900", "#d62728", "#2ca02c", "#000000"}},
          {"background", {{"lines", background}}},
          {"frames", frames},
          {"charts", {{{"title", count + (window == 1 ? " per day" : " per " + std::to_string(window) + "-day window") +
                                     ": simulated against data"},
                       {"x_label", "day"},
                       {"y_label", count},
                       {"series", {observed, simulated}}}}}};
}

}  // namespace simgrad::report
