#include "scenario/contagion_scenario.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <sstream>
#include <unistd.h>

#include "core/csv.hpp"
#include "report/contagion_frames.hpp"
#include "scenario/tuned_parameter.hpp"
#include "sims/contagion/calibration.hpp"
#include "sims/contagion/epidemic.hpp"
#include "sims/contagion/infectiousness.hpp"
#include "sims/contagion/losses.hpp"
#include "sims/contagion/reproduction_forecast.hpp"
#include "sims/contagion/seed_average.hpp"
#include "sims/contagion/tunables.hpp"

namespace simgrad::scenario {

namespace cg = simgrad::contagion;

namespace {

using nlohmann::json;

// One column of a CSV file with a header, from the row whose `date_column` equals `start_date`
// (or the first row) on; blank fields are errors naming the file, line and column.
std::vector<double> read_column(const std::filesystem::path& file, const std::string& column, const std::string& start_date,
                                const std::string& date_column, const ScenarioNode& node) {
  std::string text;
  try {
    text = read_text_file(file);
  } catch (const std::invalid_argument& e) {
    node.fail("file", e.what());
  }
  CsvReader csv(text);
  if (!csv.next()) node.fail("file", file.string() + ": empty file");
  int value_col = -1, date_col = -1;
  for (std::size_t k = 0; k < csv.size(); ++k) {
    if (csv[k] == column) value_col = static_cast<int>(k);
    if (csv[k] == date_column) date_col = static_cast<int>(k);
  }
  if (value_col < 0) node.fail("column", file.string() + ":" + std::to_string(csv.line()) + ": no column \"" + column + "\"");
  if (!start_date.empty() && date_col < 0)
    node.fail("date_column", file.string() + ":" + std::to_string(csv.line()) + ": no column \"" + date_column + "\"");
  std::vector<double> values;
  bool started = start_date.empty();
  while (csv.next()) {
    if (!started && date_col < static_cast<int>(csv.size()) && csv[static_cast<std::size_t>(date_col)] == start_date) started = true;
    if (!started) continue;
    const std::string where = file.string() + ":" + std::to_string(csv.line()) + ": column " + std::to_string(value_col + 1) + " (" + column + ")";
    if (value_col >= static_cast<int>(csv.size()) || csv[static_cast<std::size_t>(value_col)].empty())
      throw std::invalid_argument(where + ": missing value");
    const std::string_view f = csv[static_cast<std::size_t>(value_col)];
    const std::optional<double> v = parse_number(f);
    if (!v) throw std::invalid_argument(where + ": expected a number, got \"" + std::string(f) + "\"");
    values.push_back(*v);
  }
  if (!started) node.fail("start_date", file.string() + ": no row dated " + start_date);
  return values;
}

// A count by its scenario name.
cg::Count count_of(const std::string& name) {
  if (name == "deaths") return cg::Count::kDeaths;
  if (name == "cases") return cg::Count::kCases;
  if (name == "infections") return cg::Count::kInfections;
  return cg::Count::kInfectious;
}

// A number for every entry of a parameter: one for all, or one each.
void read_values(const ScenarioNode& node, std::string_view key, Array<1>& q) {
  if (!node.has(key)) return;
  const ScenarioNode v = node.member(key);
  if (v.json().is_number()) {
    q.fill(v.as_number());
    return;
  }
  const std::vector<double> values = node.numbers(key);
  const std::span<double> entries = q.values();
  if (values.empty() || values.size() > entries.size())
    node.fail(key, "expected one number or 1 to " + std::to_string(entries.size()) + " numbers");
  // Fewer numbers than entries: later entries repeat the last (R of later weeks).
  for (std::size_t i = 0; i < entries.size(); ++i) entries[i] = values[std::min(i, values.size() - 1)];
}

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

class ContagionScenario final : public Scenario {
 public:
  ContagionScenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
    read_population(root.child("population"), overrides.split);
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

    system_ = std::make_unique<cg::Epidemic>(population_, model_, subdomain_.get());
    const std::optional<ScenarioNode> loss_node = root.optional_child("loss");
    const std::string scale = loss_node ? loss_node->choice("scale", {"sqrt", "log", "linear"}, "sqrt") : "sqrt";
    data_.scale = scale == "sqrt" ? cg::Scale::kSqrt : scale == "log" ? cg::Scale::kLog : cg::Scale::kLinear;
    // The loss tuned is the mean over this many noise draws (seed, seed + 1, ...).
    loss_seeds_ = loss_node ? static_cast<int>(loss_node->integer("seeds", 1, 1000, 1)) : 1;
    if (loss_node) {
      data_.smoothness.weight = loss_node->non_negative("reproduction_smoothness", 0.0);
      data_.smoothness.order = static_cast<int>(loss_node->integer("smoothness_order", 1, 2, 2));
      data_.smoothness.weeks = data_.identified_weeks(model_.settings);  // the tuned weeks; later ones copy the last
    }
    loss_ = count_loss(*system_);
    if (auto report = root.optional_child("report")) {
      evaluation_.seeds = static_cast<int>(report->integer("seeds", 1, 10000, evaluation_.seeds));
      evaluation_.baselines = report->boolean("baselines", evaluation_.baselines);
      const std::string rule = report->choice("forecast_reproduction", {"last", "mean", "trend", "auto"}, "last");
      evaluation_.auto_rule = rule == "auto";
      evaluation_.reproduction.rule = cg::rule_of(rule);
      evaluation_.reproduction.weeks =
          static_cast<int>(report->integer("forecast_weeks", 1, 100, evaluation_.reproduction.weeks));
    }

    const ScenarioNode tune_node = root.child("tune");
    tune = read_tune_options(tune_node);
    // R is tuned for the weeks whose infections the fitted data can see (deaths lag infections
    // by exposed_days + infectious_days); later weeks follow the last of them.
    TunedParameterRules rules;
    rules.default_entries = [this](const std::string& name) {
      return name == "reproduction" ? data_.identified_weeks(model_.settings) : 0;
    };
    std::vector<tune::BoundParameter> bound =
        read_tuned_parameters(tune_node, cg::epidemic_tunables(), model_.parameters, rules);
    const RolloutOptions options = read_rollout_options(root, overrides, steps);
    // The loss needs no state after the last fitted day.
    problem_ = std::make_unique<tune::RolloutProblem>(*system_, *loss_, std::max(1, data_.last_fit_day()), options, std::move(bound));
    if (loss_seeds_ > 1) averaged_ = std::make_unique<cg::SeedAveragedProblem>(*problem_, model_, loss_seeds_);
  }

  std::string simulator() const override { return "contagion"; }
  const Subdomain* subdomain() const override { return subdomain_.get(); }
  tune::Problem& problem() override { return averaged_ ? static_cast<tune::Problem&>(*averaged_) : *problem_; }

  // The loss at x on the hard model (straight-through events are already hard in value; the
  // relaxed twin is not), averaged over seeds as tuning averages it: the model's hard twin run by
  // a system and loss of its own, so the tuned model is left as it is.
  double hard_loss(std::span<const double> x) override {
    problem_->assign(x);
    cg::DiseaseModel hard = model_.hard_twin();
    cg::Epidemic system(population_, hard, subdomain_.get());
    const std::unique_ptr<cg::CountLoss> loss = count_loss(system);
    tune::RolloutProblem twin(system, *loss, problem_->steps(), problem_->options(), {});
    if (!averaged_) return twin.value({});
    return cg::SeedAveragedProblem(twin, hard, loss_seeds_).value({});
  }

  // The population, the tuned parameters, and the calibration evaluated on the hard model:
  // fits, forecasts and baselines (report/contagion_frames.hpp).
  // Split, the summary leaves the calibration's evaluation out: it replays the whole population.
  json summary() override {
    return report::contagion_summary(population_, model_, data_, evaluation_, steps, load_seconds_, !subdomain_);
  }

  // The counts against the data, and a glimpse of the network coloured by disease state
  // (report/contagion_frames.hpp).
  json frames(std::span<const double> x) override {
    problem_->assign(x);
    return report::contagion_frames(population_, *system_, *loss_, data_, steps);
  }

 private:
  // The loss against the fitted series, with the smoothness penalty on R, of a system's run.
  std::unique_ptr<cg::CountLoss> count_loss(cg::Epidemic& system) const {
    auto loss = std::make_unique<cg::CountLoss>(system, data_.fitted_series(), data_.scale);
    loss->set_smoothness(data_.smoothness);
    return loss;
  }

  // The population; split over processes, this process's part of it alone (built without the
  // whole), and the subdomain that exchanges with the other parts.
  void read_population(const ScenarioNode& node, Splitter* split) {
    const auto start = std::chrono::steady_clock::now();
    std::exception_ptr failed;
    try {
      population_ = build_population(node, split);
    } catch (...) {
      if (!split) throw;
      failed = std::current_exception();
    }
    if (split) {
      // Making the subdomain is collective: every process learns first whether any failed (a
      // file missing on one node), or the others would wait for it there.
      if (split->any(failed != nullptr)) {
        if (failed) std::rethrow_exception(failed);
        throw AnotherProcessFailed();
      }
      subdomain_ = split->subdomain(population_.whole_agents, population_.ghosts);
    }
    load_seconds_ = seconds_since(start);
  }

  // The whole population, or this process's part of it when split.
  static cg::Population build_population(const ScenarioNode& node, Splitter* split) {
    auto part_of_whole = [split](Index agents) { return partition_run(agents, split->size(), split->rank()); };
    if (node.has("complete")) {
      cg::Population whole = cg::make_complete_population(node.integer("complete", 2, 1LL << 31));
      if (!split) return whole;
      const ElementRun run = part_of_whole(whole.agents);
      return cg::part_of(whole, run.first, run.last);  // (ages alone: no contacts)
    }
    if (auto synthetic = node.optional_child("synthetic")) {
      cg::SyntheticOptions s;
      s.agents = synthetic->integer("agents", 2, (1LL << 31) - 1);
      s.seed = static_cast<std::uint64_t>(synthetic->integer("seed", 0, 1LL << 32, 1));
      s.random_contacts = synthetic->non_negative("random_contacts", s.random_contacts);
      return cg::make_synthetic_population(s, split ? part_of_whole(s.agents) : ElementRun{});
    }
    const std::filesystem::path agents = node.existing_file("agents_csv");
    const std::filesystem::path contacts = node.existing_file("contacts_csv");
    const bool terminal = isatty(fileno(stderr));
    return cg::load_population_csv(
        agents, contacts,
        [&](double f) {
          if (terminal) std::fprintf(stderr, "\rloading population %3.0f%%%s", 100.0 * f, f >= 1.0 ? "\n" : "");
        },
        split ? cg::PartOfWhole(part_of_whole) : cg::PartOfWhole());
  }

  // The observed series: fitted windows first, then held-out ones.
  void read_data(const ScenarioNode& root) {
    const ScenarioNode data = root.child("data");
    const std::filesystem::path file = data.existing_file("file");
    const std::string column = data.string("column");
    const std::string start = data.string("start_date", "");
    read_series_kind(data, data_.fit);
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
    windows_of(values, data_.fit.observations, &data_.held_out);
    // More series of the same file and days, fitted jointly (cases next to deaths).
    int longest_delay = data_.fit.delay;
    for (const ScenarioNode& extra : data.has("also_fit") ? data.array("also_fit") : std::vector<ScenarioNode>{}) {
      const ScenarioNode e = extra.as_object();
      cg::Series series;
      read_series_kind(e, series);
      const std::vector<double> daily = read_column(file, e.string("column"), start, date_column, e);
      if (static_cast<std::int64_t>(daily.size()) < static_cast<std::int64_t>(fit_windows) * window)
        e.fail("column", "expected values for the " + std::to_string(fit_windows) + " fitted windows");
      windows_of(daily, series.observations, nullptr);
      longest_delay = std::max(longest_delay, series.delay);
      data_.also_fit.push_back(std::move(series));
    }
    // The agents' history reaches back over one window and the longest recording delay.
    model_.settings.count_window = window + longest_delay;
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
          model_.parameters.profile.assign(
              cg::gamma_profile(gamma->positive("mean"), gamma->positive("sd"), model_.settings.removal_day()), true);
        } else {
          // A discrete distribution from a CSV column (a published serial interval).
          std::vector<double> v = read_column(profile.existing_file("file"), profile.string("column"), "", "", profile);
          const std::size_t skip = static_cast<std::size_t>(profile.integer("skip", 0, 1000, 0));
          if (v.size() < skip + static_cast<std::size_t>(model_.settings.removal_day()))
            profile.fail("file", "expected at least exposed_days + infectious_days values after the skipped ones");
          model_.parameters.profile.assign(std::span(v).subspan(skip, static_cast<std::size_t>(model_.settings.removal_day())), true);
        }
        continue;
      }
      read_values(node, info.name, cg::quantity(model_.parameters, info.name));
    }
  }

  cg::Population population_;        // the whole, or this process's part when split
  std::unique_ptr<Subdomain> subdomain_;  // when split
  cg::DiseaseModel model_;
  std::unique_ptr<cg::Epidemic> system_;
  cg::CalibrationData data_;  // the observed series, fitted and held out, and how they are fitted
  int data_days_ = 0;
  cg::EvaluationOptions evaluation_;  // how the summary evaluates the calibration
  double load_seconds_ = 0.0;
  int loss_seeds_ = 1;  // noise draws the tuned loss averages
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

}  // namespace simgrad::scenario
