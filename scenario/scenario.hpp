// Scenarios: a scenario file turned into a ready-to-run tuning problem.
//
// Every simulator reads its own section of the file into a Scenario; the commands (run, grad,
// gradcheck, tune, compare) then work on any scenario alike.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/checkpoint.hpp"
#include "core/subdomain.hpp"
#include "report/animation.hpp"
#include "scenario/scenario_reader.hpp"
#include "tune/problem.hpp"
#include "tune/tunable.hpp"

namespace simgrad::scenario {

// How `tune` and `compare` run, from the scenario's "tune" section and command-line flags.
struct TuneOptions {
  std::string optimizer = "lbfgs";  // lbfgs | adam | normalized_gd
  int iterations = 30;
  double learning_rate = 0.05;       // adam and ngd, in optimizer coordinates
  double target_loss = -std::numeric_limits<double>::infinity();
  long baseline_budget = 3000;       // rollouts allowed to each black-box baseline in compare
  std::uint64_t seed = 1;
};

// Command-line settings that override the scenario file.
struct ScenarioOverrides {
  std::optional<CheckpointPolicy> checkpoint;
  // Splits the model over these processes (`grad --split` under mpirun): the agent epidemic,
  // the mass-spring soft body and the 2D smoke grid split. Null: the whole model on each process.
  Splitter* split = nullptr;
};

// How `explain` sizes its hints; zeros keep the scenario's own settings.
struct ExplainRequest {
  int hints = 0;
  double joint_step = 0.0;
  double area_step = 0.0;
};

class Scenario {
 public:
  virtual ~Scenario() = default;

  // The simulator's name as in `simgrad list`.
  virtual std::string simulator() const = 0;
  // The split this process's model is a part of (ScenarioOverrides::split); null: the whole, or
  // a model split otherwise (split_share says).
  virtual const Subdomain* subdomain() const { return nullptr; }
  // Under a split, this process's share: the elements it computes, the others' it copies (the
  // widest halo so far, for a grid) and the bytes it has sent; nothing for a whole model.
  struct SplitShare {
    long elements = 0, ghosts = 0;
    std::size_t bytes_sent = 0;
  };
  virtual std::optional<SplitShare> split_share() const {
    const Subdomain* s = subdomain();
    if (!s) return std::nullopt;
    return SplitShare{long(s->owned()), long(s->ghosts()), s->bytes_sent()};
  }
  // The loss as a function of the tuned parameters (physical values).
  virtual tune::Problem& problem() = 0;
  // The loss at physical parameters x on the hard model: every relaxation at its hard twin.
  virtual double hard_loss(std::span<const double> x) = 0;
  // Simulator-specific figures of the current state of the model after a run (for --json).
  virtual nlohmann::json summary() { return nlohmann::json::object(); }
  // Whether explain() gives hints.
  virtual bool gives_hints() const { return false; }
  // Hints at physical parameters x, for simulators that give them: {"rating", "hard_rating",
  // "hints": [...]}; others throw std::invalid_argument.
  virtual nlohmann::json explain(std::span<const double> x, const ExplainRequest& request) {
    (void)x;
    (void)request;
    throw std::invalid_argument("explain: the " + simulator() + " simulator gives no hints");
  }

  // Drawable frames of a run at physical parameters x, for the report's animation (report.hpp):
  // {"legend", "scale" (optional colour range), "frames": [{"label", "lines": [[x1, y1, x2, y2,
  // colour value]], "points": [[x, y]], "arrows": [[x, y, dx, dy]]}], optional: "background" (a
  // frame drawn under every frame), "trail": true (each point's path so far is drawn; every frame
  // then has the same points), "edges": [[a, b]] (lines between points a and b of every frame,
  // coloured by the frame's "values", one per edge: a large body's topology is sent once), "charts": [{"title", "x_label", "y_label", "series": [{"name",
  // "x", "y"}]}], "palette": ["#rrggbb"] with a frame's "classes": [k] (point i drawn in colour
  // classes[i]; agents by disease state), a frame's "field": {"nx", "ny", "values" (row-major,
  // row 0 at the bottom), "box": [x0, y0, x1, y1], optional "lo", "hi"} (a scalar grid drawn
  // under the rest), a frame's "time" (its x on the charts)}. Null: no animation. report.html and `run --frames` (frame_images.hpp) draw it.
  virtual nlohmann::json frames(std::span<const double> x) {
    (void)x;
    return nullptr;
  }

  // The run at physical parameters x for export (run_export.hpp): a body's points and cells over
  // time, or fields on a grid; nullopt where the simulator has no such view.
  virtual std::optional<report::Animation> animation(std::span<const double> x) {
    (void)x;
    return std::nullopt;
  }
  virtual std::optional<report::GridAnimation> grid_animation(std::span<const double> x) {
    (void)x;
    return std::nullopt;
  }

  std::string name;  // the file name
  std::string description;
  int steps = 0;
  TuneOptions tune;
};

// Loads a scenario file (an empty path: the built-in default scenario); throws ScenarioError
// naming file, line and field on bad input.
std::unique_ptr<Scenario> load_scenario(const std::filesystem::path& file, const ScenarioOverrides& overrides = {});
// Loads a scenario from text; `name` stands for the file in messages.
std::unique_ptr<Scenario> load_scenario_text(std::string_view text, const std::string& name,
                                             const ScenarioOverrides& overrides = {});
// Builds a scenario from a parsed file.
std::unique_ptr<Scenario> load_scenario_file(const ScenarioFile& file, const std::string& name,
                                             const ScenarioOverrides& overrides = {});

// Reads the common "tune" section (parameters are simulator-specific and read by the caller).
TuneOptions read_tune_options(const ScenarioNode& tune);

// The checkpoint policy of a scenario: the override, else the file's "checkpoint" field.
CheckpointPolicy read_checkpoint(const ScenarioNode& root, const ScenarioOverrides& overrides);
// A rollout's options from a scenario's root: "checkpoint" (or the command line's), and the
// gradient diagnostics "clip_adjoint_norm" and "truncate_horizon" (at most `steps`).
RolloutOptions read_rollout_options(const ScenarioNode& root, const ScenarioOverrides& overrides, int steps);

// A simulator as the scenario library knows it: one entry of the registry (simulators()).
struct SimulatorInfo {
  std::string name;  // the scenario's "simulator"
  std::string description;
  // Its tunables table, as `list`, `describe`, the errors and the JSON Schema show it.
  std::vector<tune::TunableInfo> tunables;
  // Whether "tune.parameters" is read against that table (tuned_parameter.hpp); a structure
  // tunes design moves of its own, a creature its controller.
  bool table_parameters = true;
  // Builds a scenario from the root of its file; throws ScenarioError on bad input.
  std::function<std::unique_ptr<Scenario>(const ScenarioNode& root, const ScenarioOverrides& overrides)> load;
};
// The registry: every simulator, in the order `simgrad list` prints them.
const std::vector<SimulatorInfo>& simulators();

// The scenario JSON Schema with every simulator's "tune.parameters" made from its tunables
// table; `schema` is docs/scenario.schema.json, whose other parts are written by hand.
nlohmann::ordered_json with_tuned_parameter_schemas(nlohmann::ordered_json schema);

}  // namespace simgrad::scenario
