#include "scenario/contagion_scenario.hpp"

#include "scenario/tuned_parameter.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <numbers>
#include <sstream>
#include <unordered_map>
#include <unordered_set>
#include <unistd.h>

#include "sims/contagion/calibration.hpp"
#include "sims/contagion/epidemic.hpp"
#include "sims/contagion/forecast_metrics.hpp"
#include "sims/contagion/reproduction_forecast.hpp"
#include "sims/contagion/infectiousness.hpp"
#include "sims/contagion/losses.hpp"
#include "sims/contagion/tunables.hpp"
#include "sims/contagion/seed_average.hpp"
#include "sims/contagion/transition.hpp"

namespace simgrad::app {

namespace cg = simgrad::contagion;

namespace {

using nlohmann::json;

// One column of a CSV file with a header, from the row whose `date_column` equals `start_date`
// (or the first row) on; blank fields are errors naming the file, line and column.
std::vector<double> read_column(const std::filesystem::path& file, const std::string& column, const std::string& start_date,
                                const std::string& date_column, const ScenarioNode& node) {
  std::ifstream in(file);
  std::string line;
  if (!std::getline(in, line)) node.fail("file", file.string() + ": empty file");
  auto split = [](const std::string& text) {
    std::vector<std::string> fields;
    std::stringstream s(text);
    std::string f;
    while (std::getline(s, f, ',')) fields.push_back(f);
    if (!text.empty() && text.back() == ',') fields.emplace_back();
    return fields;
  };
  const std::vector<std::string> header = split(line);
  int value_col = -1, date_col = -1;
  for (std::size_t k = 0; k < header.size(); ++k) {
    if (header[k] == column) value_col = static_cast<int>(k);
    if (header[k] == date_column) date_col = static_cast<int>(k);
  }
  if (value_col < 0) node.fail("column", file.string() + ":1: no column \"" + column + "\"");
  if (!start_date.empty() && date_col < 0) node.fail("date_column", file.string() + ":1: no column \"" + date_column + "\"");
  std::vector<double> values;
  bool started = start_date.empty();
  for (int number = 2; std::getline(in, line); ++number) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty()) continue;
    const std::vector<std::string> fields = split(line);
    if (!started && date_col < static_cast<int>(fields.size()) && fields[static_cast<std::size_t>(date_col)] == start_date) started = true;
    if (!started) continue;
    const std::string where = file.string() + ":" + std::to_string(number) + ": column " + std::to_string(value_col + 1) + " (" + column + ")";
    if (value_col >= static_cast<int>(fields.size()) || fields[static_cast<std::size_t>(value_col)].empty())
      throw std::invalid_argument(where + ": missing value");
    char* end = nullptr;
    const std::string& f = fields[static_cast<std::size_t>(value_col)];
    const double v = std::strtod(f.c_str(), &end);
    if (end == f.c_str() || *end != '\0' || !std::isfinite(v)) throw std::invalid_argument(where + ": expected a number, got \"" + f + "\"");
    values.push_back(v);
  }
  if (!started) node.fail("start_date", file.string() + ": no row dated " + start_date);
  return values;
}

// The scenario's name of a count, count_of's inverse.
std::string count_name(cg::Count count) {
  switch (count) {
    case cg::Count::kDeaths: return "deaths";
    case cg::Count::kCases: return "cases";
    case cg::Count::kInfections: return "infections";
    default: return "infectious";
  }
}

cg::Count count_of(const std::string& name) {
  if (name == "deaths") return cg::Count::kDeaths;
  if (name == "cases") return cg::Count::kCases;
  if (name == "infections") return cg::Count::kInfections;
  return cg::Count::kInfectious;
}

// A number for every entry of a quantity: one for all, or one each.
void read_values(const ScenarioNode& node, std::string_view key, cg::Quantity& q) {
  if (!node.has(key)) return;
  const ScenarioNode v = node.member(key);
  if (v.json().is_number()) {
    std::fill(q.value.begin(), q.value.end(), v.as_number());
    return;
  }
  const std::vector<double> values = node.numbers(key);
  if (values.empty() || values.size() > q.value.size())
    node.fail(key, "expected one number or 1 to " + std::to_string(q.value.size()) + " numbers");
  // Fewer numbers than entries: later entries repeat the last (R of later weeks).
  for (std::size_t i = 0; i < q.value.size(); ++i) q.value[i] = values[std::min(i, values.size() - 1)];
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class ContagionScenario final : public Scenario {
 public:
  ContagionScenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
    read_population(root.child("population"));
    const ScenarioNode disease = root.child("disease");
    cg::DiseaseSettings& s = model_.settings;
    s.exposed_days = static_cast<int>(disease.integer("exposed_days", 0, 60, 3));
    s.infectious_days = static_cast<int>(disease.integer("infectious_days", 1, 60, 5));
    s.immune_days = static_cast<int>(disease.integer("immune_days", 0, 100000, 0));
    if (disease.has("mean_interactions")) s.mean_interactions = disease.numbers("mean_interactions", static_cast<std::size_t>(population_.age_groups));
    else if (population_.age_groups != 8) s.mean_interactions.assign(static_cast<std::size_t>(population_.age_groups), 1.0);
    for (double m : s.mean_interactions)
      if (!(m > 0)) disease.fail("mean_interactions", "expected numbers > 0");
    if (disease.has("layer_weight")) s.layer_weight = disease.numbers("layer_weight", static_cast<std::size_t>(population_.layers));
    if (disease.has("active_share")) read_active_share(disease);
    s.reproduction_curve = disease.choice("reproduction_curve", {"weekly", "linear"}, "weekly") == "weekly"
                               ? cg::ReproductionCurve::kWeekly
                               : cg::ReproductionCurve::kLinear;
    s.sampler = disease.choice("sampler", {"gumbel_softmax", "straight_through"}, "gumbel_softmax") == "gumbel_softmax"
                    ? cg::Sampler::kGumbelSoftmax
                    : cg::Sampler::kStraightThrough;
    s.temperature = disease.in_range("temperature", 1e-3, 1.0, 0.5);
    s.straight_through = disease.boolean("straight_through", true);
    s.sampled_deaths = disease.choice("deaths", {"sampled", "expected"}, "sampled") == "sampled";
    s.reduction_start = static_cast<int>(disease.integer("reduction_start", 0, 100000, 0));
    s.vaccination_start = static_cast<int>(disease.integer("vaccination_start", 0, 100000, 0));
    s.seed = static_cast<std::uint64_t>(root.integer("seed", 0, 1LL << 32, 1));

    read_data(root);
    steps = static_cast<int>(root.integer("days", 1, 100000, data_days_));
    if (steps < data_days_) root.fail("days", "expected at least the " + std::to_string(data_days_) + " days the data covers");
    s.days = steps;
    model_.reset(population_.age_groups, population_.layers);
    if (auto p = root.optional_child("parameters")) read_parameters(*p);

    system_ = std::make_unique<cg::Epidemic>(population_, model_);
    const std::optional<ScenarioNode> loss_node = root.optional_child("loss");
    const std::string scale = loss_node ? loss_node->choice("scale", {"sqrt", "log", "linear"}, "sqrt") : "sqrt";
    scale_ = scale == "sqrt" ? cg::Scale::kSqrt : scale == "log" ? cg::Scale::kLog : cg::Scale::kLinear;
    // The loss tuned is the mean over this many noise draws (seed, seed + 1, ...).
    const int loss_seeds = loss_node ? static_cast<int>(loss_node->integer("seeds", 1, 1000, 1)) : 1;
    loss_ = std::make_unique<cg::CountLoss>(*system_, fitted_series(), scale_);
    if (loss_node) {
      smoothness_.weight = loss_node->non_negative("reproduction_smoothness", 0.0);
      smoothness_.order = static_cast<int>(loss_node->integer("smoothness_order", 1, 2, 2));
      smoothness_.weeks = identified_weeks();  // the tuned weeks; later ones copy the last
      loss_->set_smoothness(smoothness_);
    }
    if (auto report = root.optional_child("report")) {
      report_seeds_ = static_cast<int>(report->integer("seeds", 1, 10000, report_seeds_));
      baselines_ = report->boolean("baselines", baselines_);
      const std::string rule = report->choice("forecast_reproduction", {"last", "mean", "trend", "auto"}, "last");
      auto_rule_ = rule == "auto";
      forecast_rule_.rule = cg::rule_of(rule);
      forecast_rule_.weeks = static_cast<int>(report->integer("forecast_weeks", 1, 100, forecast_rule_.weeks));
    }

    const ScenarioNode tune_node = root.child("tune");
    tune = read_tune_settings(tune_node);
    // R is tuned for the weeks whose infections the fitted data can see (deaths lag infections
    // by exposed_days + infectious_days); later weeks follow the last of them.
    TunedParameterRules rules;
    rules.default_entries = [this](const std::string& name) { return name == "reproduction" ? identified_weeks() : 0; };
    std::vector<tune::BoundParameter> bound =
        read_tuned_parameters(tune_node, cg::epidemic_tunables(), model_.parameters, rules);
    const RolloutOptions options = read_rollout_options(root, overrides, steps);
    // The loss needs no state after the last fitted day.
    problem_ = std::make_unique<tune::RolloutProblem>(*system_, *loss_, std::max(1, last_fit_day_), options, std::move(bound));
    if (loss_seeds > 1) averaged_ = std::make_unique<cg::SeedAveragedProblem>(*problem_, model_, loss_seeds);
  }

  std::string simulator() const override { return "contagion"; }
  tune::Problem& problem() override { return averaged_ ? static_cast<tune::Problem&>(*averaged_) : *problem_; }

  // Straight-through rollouts are already hard in value; the relaxed twin is not.
  double hard_loss(std::span<const double> x) override {
    const bool straight = model_.settings.straight_through;
    model_.settings.straight_through = true;
    const double loss = problem().value(x);
    model_.settings.straight_through = straight;
    return loss;
  }

  json summary() override {
    json j = {{"agents", population_.agents},
              {"directed_contacts", population_.directed_contacts()},
              {"complete", population_.complete},
              {"population_load_s", load_seconds_},
              {"days", steps},
              {"fit_windows", fit_.observations.size()},
              {"forecast_windows", held_out_.size()}};
    const cg::DiseaseParameters& p = model_.parameters;
    j["reproduction"] = p.reproduction.value;
    j["mortality"] = p.mortality.value[0];
    j["initial_infected"] = p.initial_infected.value[0];
    j["reporting"] = p.reporting.value[0];
    if (!also_fit_.empty()) j["ascertainment"] = p.ascertainment.value[0];
    if (population_.complete) {
      // Expected infections caused by one infective in a susceptible population (week 1's R).
      double shed = 0.0;
      for (int k = 0; k < model_.settings.removal_day(); ++k) shed += model_.shedding(k);
      j["r0"] = p.reproduction.value[0] * p.susceptibility.value[0] / model_.settings.mean_interactions[0] * shed;
    }
    std::vector<cg::Observation> all = fit_.observations;
    all.insert(all.end(), held_out_.begin(), held_out_.end());
    std::vector<double> days, truth;
    for (const cg::Observation& o : all) {
      days.push_back(o.day);
      truth.push_back(o.value);
    }
    j["window_end_days"] = days;
    j["data"] = truth;
    // R of the weeks the fitted data cannot see follows the report's rule (held-out windows only).
    cg::DiseaseModel forecast_model = model_;
    j["reproduction_forecast"] = extend_reproduction(forecast_model.parameters.reproduction.value);
    const cg::Spread tuned = cg::hard_counts_over_seeds(population_, forecast_model, fit_, all, steps, report_seeds_);
    j["hard_model"] = {{"seeds", report_seeds_}, {"mean", tuned.mean}, {"sd", tuned.sd}};
    std::vector<double> fit_truth(truth.begin(), truth.begin() + static_cast<std::ptrdiff_t>(fit_.observations.size()));
    std::vector<double> fit_mean(tuned.mean.begin(), tuned.mean.begin() + static_cast<std::ptrdiff_t>(fit_.observations.size()));
    if (!fit_truth.empty()) j["hard_model"]["fit"] = metrics_json(cg::forecast_metrics(fit_mean, fit_truth));
    // How the hard model fits the series fitted next to the forecast one (cases next to deaths).
    for (const cg::Series& series : also_fit_) {
      std::vector<double> data;
      for (const cg::Observation& o : series.observations) data.push_back(o.value);
      const cg::Spread spread = cg::hard_counts_over_seeds(population_, forecast_model, series, series.observations,
                                                           last_fit_day_ + 1, report_seeds_);
      j["also_fit"].push_back({{"count", count_name(series.count)}, {"data", data}, {"mean", spread.mean},
                               {"fit", metrics_json(cg::forecast_metrics(spread.mean, data))}});
    }
    if (held_out_.empty() || !baselines_) return j;

    const std::size_t first = fit_.observations.size();
    std::vector<double> held(truth.begin() + static_cast<std::ptrdiff_t>(first), truth.end());
    auto forecast_of = [&](const std::vector<double>& curve) {
      return std::vector<double>(curve.begin() + static_cast<std::ptrdiff_t>(first), curve.end());
    };
    json forecast = {{"truth", held}};
    const std::vector<double> ours = forecast_of(tuned.mean);
    forecast["simgrad"] = metrics_json(cg::forecast_metrics(ours, held));
    forecast["simgrad"]["forecast"] = ours;
    // GradABM's fixed expert parameters: R 2.5, mortality 0.02, seed 0.5%, in GradABM's own
    // observation model (the count on its day: no recording delay), so that the baseline does not
    // move with this scenario's observation choices.
    cg::Series expert_series = fit_;
    expert_series.delay = 0;
    cg::DiseaseModel expert = model_;
    std::fill(expert.parameters.reproduction.value.begin(), expert.parameters.reproduction.value.end(), 2.5);
    expert.parameters.mortality.value[0] = 0.02;
    expert.parameters.initial_infected.value[0] = 0.005;
    const std::vector<double> fixed =
        forecast_of(cg::hard_counts_over_seeds(population_, expert, expert_series, all, steps, report_seeds_).mean);
    forecast["expert"] = metrics_json(cg::forecast_metrics(fixed, held));
    forecast["expert"]["forecast"] = fixed;
    cg::SeirmBaseline seirm{static_cast<double>(population_.agents), static_cast<double>(model_.settings.exposed_days),
                            static_cast<double>(model_.settings.infectious_days), 200, false, identified_weeks(), {}, smoothness_};
    seirm.extend_reproduction = [&](std::vector<double>& r) { forecast["seirm_reproduction_forecast"] = extend_reproduction(r); };
    const std::vector<double> ode = forecast_of(cg::seirm_fit_and_forecast(seirm, fitted_series(), scale_, all, steps));
    forecast["seirm"] = metrics_json(cg::forecast_metrics(ode, held));
    forecast["seirm"]["forecast"] = ode;
    j["forecast"] = forecast;
    return j;
  }

  // The counts simulated against the data, and a glimpse of the network: up to 200 agents found
  // by breadth-first search from the seeded ones, on rings by distance, coloured by disease
  // state every few days (complete populations: the seeded agents and the first others, no edges).
  json frames(std::span<const double> x) override {
    problem_->assign(x);
    std::size_t roots = 0;
    const std::vector<Index> agents = glimpse_agents(roots);
    std::vector<int> depth(agents.size(), 0);
    std::unordered_map<Index, std::size_t> place;
    for (std::size_t k = 0; k < agents.size(); ++k) place[agents[k]] = k;
    json background = json::array();
    if (!population_.complete) {
      // Depth by a second search over the chosen agents only; edges among them, each once.
      for (std::size_t k = 0; k < agents.size(); ++k) depth[k] = k < roots ? 0 : -1;
      for (std::size_t k = 0; k < agents.size(); ++k)
        for (std::int64_t e = population_.offsets[static_cast<std::size_t>(agents[k])];
             e < population_.offsets[static_cast<std::size_t>(agents[k]) + 1]; ++e) {
          const auto other = place.find(population_.neighbors[static_cast<std::size_t>(e)]);
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
        const double radius = population_.complete ? 1.0 : static_cast<double>(d) + (rings[0].size() > 1 || d > 0 ? 1.0 : 0.0);
        at[rings[d][j]] = {radius * std::cos(angle), radius * std::sin(angle)};
      }
    for (json& line : background) {
      const std::size_t a = static_cast<std::size_t>(line[0].get<double>()), b = static_cast<std::size_t>(line[1].get<double>());
      line = json::array({at[a][0], at[a][1], at[b][0], at[b][1], 0.0});
    }
    json points = json::array();
    for (const auto& p : at) points.push_back({p[0], p[1]});

    std::vector<cg::Observation> all = fit_.observations;
    all.insert(all.end(), held_out_.begin(), held_out_.end());
    json data = {{"name", "data"}, {"x", json::array()}, {"y", json::array()}};
    json simulated = {{"name", "simulated"}, {"x", json::array()}, {"y", json::array()}};
    for (const cg::Observation& o : all) {
      data["x"].push_back(o.day);
      data["y"].push_back(o.value);
    }
    const cg::DiseaseSettings& s = model_.settings;
    const double reporting = cg::share_of(model_.parameters, fit_.share).value[0];
    const int stride = std::max(1, steps / 80);
    json frames = json::array();
    RolloutOptions o;
    o.observer = [&](int t, std::span<const double> state) {
      for (const cg::Observation& ob : all)
        if (ob.day == t) {
          simulated["x"].push_back(t);
          simulated["y"].push_back(reporting * cg::model_count(*system_, fit_.count, t, ob.window, state, fit_.delay));
        }
      if (t % stride != 0 && t != steps) return;
      json classes = json::array();
      const std::size_t n = static_cast<std::size_t>(population_.agents);
      for (Index i : agents) {
        const double tau = state[n + static_cast<std::size_t>(i)];
        const int since = t - static_cast<int>(tau);
        const int stage = tau < 0.0 || state[static_cast<std::size_t>(i)] > 0.5 ? 0
                          : since < s.exposed_days                              ? 1
                          : since < s.removal_day()                             ? 2
                          : system_->dies(tau, i)                               ? 4
                                                                                : 3;
        classes.push_back(stage);
      }
      frames.push_back({{"label", "day " + std::to_string(t)}, {"time", t}, {"points", points}, {"classes", classes}});
    };
    Rollout(*system_, *loss_, steps, o).loss();
    const std::string count = count_name(fit_.count);
    const int window = fit_.observations.front().window;
    return {{"legend", std::to_string(agents.size()) + " agents of " + std::to_string(population_.agents) +
                           (population_.complete ? " (well mixed: everyone meets everyone)" : " around the seeded ones, rings by contact distance") +
                           ": susceptible grey, exposed orange, infectious red, recovered green, dead black"},
            {"palette", {"#b0b0b0", "#ff9900", "#d62728", "#2ca02c", "#000000"}},
            {"background", {{"lines", background}}},
            {"frames", frames},
            {"charts", {{{"title", count + (window == 1 ? " per day" : " per " + std::to_string(window) + "-day window") +
                                       ": simulated against data"},
                         {"x_label", "day"},
                         {"y_label", count},
                         {"series", {data, simulated}}}}}};
  }

 private:
  // Up to 200 agents: the first few seeded ones (`roots` of them, first in the list), then
  // breadth-first over contacts (or by index when the population is complete).
  std::vector<Index> glimpse_agents(std::size_t& roots) const {
    // A few seeds, so that the rings show two or three steps of spread.
    constexpr std::size_t most = 200, seeds = 4;
    const cg::DiseaseSettings& s = model_.settings;
    const double p = model_.parameters.initial_infected.value[0];
    std::vector<Index> chosen;
    std::unordered_set<Index> taken;
    for (Index i = 0; i < population_.agents && chosen.size() < seeds; ++i)
      if (cg::sample_event(p, system_->seeding_draw(i), s.sampler, s.temperature).hard > 0.0) {
        chosen.push_back(i);
        taken.insert(i);
      }
    roots = chosen.size();
    for (std::size_t head = 0; chosen.size() < most; ++head) {
      if (head == chosen.size()) {  // the search ran dry: start again from the next agent not taken
        Index next = 0;
        while (next < population_.agents && taken.contains(next)) ++next;
        if (next == population_.agents) break;
        chosen.push_back(next);
        taken.insert(next);
        if (population_.complete) continue;
      }
      if (population_.complete) continue;
      const std::size_t a = static_cast<std::size_t>(chosen[head]);
      for (std::int64_t e = population_.offsets[a]; e < population_.offsets[a + 1] && chosen.size() < most; ++e) {
        const Index b = population_.neighbors[static_cast<std::size_t>(e)];
        if (taken.insert(b).second) chosen.push_back(b);
      }
    }
    return chosen;
  }

  // Weeks of R that the fitted data constrains: infections before its last day less the lag of
  // the series that lags least (its count's days from infection, and its recording delay).
  int identified_weeks() const {
    int lag = last_fit_day_;
    for (const cg::Series& series : fitted_series())
      lag = std::min(lag, series.delay + (series.count == cg::Count::kDeaths       ? model_.settings.removal_day()
                                          : series.count == cg::Count::kInfections ? 0
                                                                                   : model_.settings.exposed_days));
    return std::max(0, last_fit_day_ - lag) / 7 + 1;
  }

  // Every fitted series, the forecast one first.
  std::vector<cg::Series> fitted_series() const {
    std::vector<cg::Series> all{fit_};
    all.insert(all.end(), also_fit_.begin(), also_fit_.end());
    return all;
  }

  // Sets R of the weeks after the identified ones by the report's rule ("auto": the rule whose
  // backtest on the identified weeks' R scores best); returns the rule and the backtest errors.
  json extend_reproduction(std::vector<double>& r) const {
    const int fitted = std::min(identified_weeks(), static_cast<int>(r.size()));
    const int horizon = std::max(1, static_cast<int>(r.size()) - fitted);
    cg::ReproductionForecast f = forecast_rule_;
    json backtest = json::object();
    for (cg::ReproductionRule rule : {cg::ReproductionRule::kLast, cg::ReproductionRule::kMean, cg::ReproductionRule::kTrend}) {
      const double e = cg::backtest_error({rule, f.weeks}, r, fitted, horizon);
      backtest[cg::rule_name(rule)] = std::isfinite(e) ? json(e) : json(nullptr);
    }
    if (auto_rule_) f.rule = cg::best_rule(f.weeks, r, fitted, horizon);
    cg::apply_forecast(f, r, fitted);
    return {{"rule", cg::rule_name(f.rule)}, {"weeks", f.weeks}, {"backtest_log_error", backtest}, {"reproduction", r}};
  }

  static json metrics_json(const cg::ForecastMetrics& m) { return {{"nd", m.nd}, {"rmse", m.rmse}, {"mae", m.mae}}; }

  void read_population(const ScenarioNode& node) {
    const auto start = std::chrono::steady_clock::now();
    if (node.has("complete")) {
      population_ = cg::make_complete_population(node.integer("complete", 2, 1LL << 31));
    } else if (auto synthetic = node.optional_child("synthetic")) {
      cg::SyntheticSettings s;
      s.agents = synthetic->integer("agents", 2, (1LL << 31) - 1);
      s.seed = static_cast<std::uint64_t>(synthetic->integer("seed", 0, 1LL << 32, 1));
      s.random_contacts = synthetic->non_negative("random_contacts", s.random_contacts);
      population_ = cg::make_synthetic_population(s);
    } else {
      const std::filesystem::path agents = node.existing_file("agents_csv");
      const std::filesystem::path contacts = node.existing_file("contacts_csv");
      const bool terminal = isatty(fileno(stderr));
      population_ = cg::load_population_csv(agents, contacts, [&](double f) {
        if (terminal) std::fprintf(stderr, "\rloading population %3.0f%%%s", 100.0 * f, f >= 1.0 ? "\n" : "");
      });
    }
    load_seconds_ = seconds_since(start);
  }

  // The observed series: fitted windows first, then held-out ones.
  void read_data(const ScenarioNode& root) {
    const ScenarioNode data = root.child("data");
    const std::filesystem::path file = data.existing_file("file");
    const std::string column = data.string("column");
    const std::string start = data.string("start_date", "");
    read_series_kind(data, fit_);
    const int window = static_cast<int>(data.integer("window", 1, 365, 1));
    const int first_day = static_cast<int>(data.integer("first_day", 0, 100000, 0));
    const std::string date_column = data.string("date_column", "date");
    const std::vector<double> values = read_column(file, column, start, date_column, data);
    const std::int64_t available = static_cast<std::int64_t>(values.size()) / window;
    const int fit_windows = static_cast<int>(data.integer("fit_windows", 1, std::max<std::int64_t>(1, available), available));
    const int held = static_cast<int>(data.integer("forecast_windows", 0, available - fit_windows, 0));
    // Sums of `values` over the fitted windows (and the held-out ones when `held_out` is given).
    auto windows_of = [&](const std::vector<double>& daily, std::vector<cg::Observation>& fitted, std::vector<cg::Observation>* held_out) {
      for (int k = 0; k < fit_windows + (held_out ? held : 0); ++k) {
        cg::Observation o{first_day + (k + 1) * window - 1, window, 0.0};
        for (int d = 0; d < window; ++d) o.value += daily[static_cast<std::size_t>(k * window + d)];
        (k < fit_windows ? fitted : *held_out).push_back(o);
      }
    };
    windows_of(values, fit_.observations, &held_out_);
    // More series of the same file and days, fitted jointly (cases next to deaths).
    int longest_delay = fit_.delay;
    for (const ScenarioNode& extra : data.has("also_fit") ? data.array("also_fit") : std::vector<ScenarioNode>{}) {
      const ScenarioNode e = extra.as_object();
      cg::Series series;
      read_series_kind(e, series);
      const std::vector<double> daily = read_column(file, e.string("column"), start, date_column, e);
      if (static_cast<std::int64_t>(daily.size()) < static_cast<std::int64_t>(fit_windows) * window)
        e.fail("column", "expected values for the " + std::to_string(fit_windows) + " fitted windows");
      windows_of(daily, series.observations, nullptr);
      longest_delay = std::max(longest_delay, series.delay);
      also_fit_.push_back(std::move(series));
    }
    // The agents' history reaches back over one window and the longest recording delay.
    model_.settings.count_window = window + longest_delay;
    last_fit_day_ = fit_.observations.back().day;
    data_days_ = first_day + (fit_windows + held) * window;
  }

  // What a series counts, its weight, recording delay and recorded share.
  static void read_series_kind(const ScenarioNode& node, cg::Series& series) {
    series.count = count_of(node.choice("count", {"deaths", "cases", "infections", "infectious"}));
    series.weight = node.positive("weight", 1.0);
    series.delay = static_cast<int>(node.integer("delay", 0, 60, 0));
    series.share = node.choice("share", {"reporting", "ascertainment"}, "reporting") == "reporting" ? cg::Share::kReporting
                                                                                                   : cg::Share::kAscertainment;
  }

  // Rows of per-layer shares of active contacts, one row a day, repeating.
  void read_active_share(const ScenarioNode& disease) {
    if (population_.complete) disease.fail("active_share", "a complete population has no contacts to switch off");
    const std::vector<ScenarioNode> rows = disease.array("active_share");
    if (rows.empty()) disease.fail("active_share", "expected at least one row");
    for (const ScenarioNode& row : rows) {
      std::vector<double> shares = row.as_numbers(static_cast<std::size_t>(population_.layers));
      for (double v : shares)
        if (!(v >= 0.0 && v <= 1.0)) row.fail("expected shares in [0, 1]");
      model_.settings.active_share.push_back(std::move(shares));
    }
  }

  void read_parameters(const ScenarioNode& node) {
    for (const auto& [info, storage] : cg::epidemic_tunables()) {
      if (info.name == "profile" && node.has("profile") && node.member("profile").json().is_object()) {
        const ScenarioNode profile = node.child("profile");
        if (auto gamma = profile.optional_child("gamma")) {
          model_.parameters.profile.value = cg::gamma_profile(gamma->positive("mean"), gamma->positive("sd"), model_.settings.removal_day());
        } else {
          // A discrete distribution from a CSV column (a published serial interval).
          std::vector<double> v = read_column(profile.existing_file("file"), profile.string("column"), "", "", profile);
          const std::size_t skip = static_cast<std::size_t>(profile.integer("skip", 0, 1000, 0));
          if (v.size() < skip + static_cast<std::size_t>(model_.settings.removal_day()))
            profile.fail("file", "expected at least exposed_days + infectious_days values after the skipped ones");
          model_.parameters.profile.value.assign(v.begin() + static_cast<std::ptrdiff_t>(skip),
                                                 v.begin() + static_cast<std::ptrdiff_t>(skip) + model_.settings.removal_day());
        }
        continue;
      }
      read_values(node, info.name, cg::quantity(model_.parameters, info.name));
    }
  }

  cg::Population population_;
  cg::DiseaseModel model_;
  std::unique_ptr<cg::Epidemic> system_;
  cg::Series fit_;                    // the forecast series
  std::vector<cg::Series> also_fit_;  // fitted next to it
  cg::ReproductionSmoothness smoothness_;
  std::vector<cg::Observation> held_out_;
  cg::Scale scale_ = cg::Scale::kSqrt;
  int last_fit_day_ = 0;
  int data_days_ = 0;
  int report_seeds_ = 20;
  bool baselines_ = true;
  cg::ReproductionForecast forecast_rule_;  // R after the identified weeks, in reports
  bool auto_rule_ = false;                  // the rule chosen by its backtest
  double load_seconds_ = 0.0;
  std::unique_ptr<cg::CountLoss> loss_;
  std::unique_ptr<tune::RolloutProblem> problem_;
  std::unique_ptr<cg::SeedAveragedProblem> averaged_;
};

}  // namespace

std::unique_ptr<Scenario> load_contagion_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
  return std::make_unique<ContagionScenario>(root, overrides);
}

SimulatorInfo contagion_info() {
  SimulatorInfo info;
  info.name = "contagion";
  info.description = "agent-based epidemic on a contact network (GradABM's model): SEIR/SIR/SEIRS stages, "
                     "straight-through Gumbel-softmax events, calibrated to case and death curves";
  info.tunables = tune::tunable_infos(cg::epidemic_tunables());
  info.load = load_contagion_scenario;
  return info;
}

}  // namespace simgrad::app
