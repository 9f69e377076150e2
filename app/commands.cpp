#include "app/commands.hpp"

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>

#include <sys/resource.h>

#include "app/json_output.hpp"
#include "app/progress.hpp"
#include "core/csv.hpp"
#include "core/diagnostics.hpp"
#include "core/gradcheck.hpp"
#include "core/parallel.hpp"
#include "report/atomic_file.hpp"
#include "report/frame_images.hpp"
#include "report/report.hpp"
#include "scenario/comparison.hpp"
#include "scenario/run_export.hpp"
#include "scenario/run_outputs.hpp"
#include "scenario/scenario.hpp"
#include "scenario/tuning_run.hpp"
#include "tune/batch.hpp"
#include "tune/sweep.hpp"

namespace simgrad::app {

// The commands load problems through the scenario library and write what they find through the
// reports.
using report::render_report;
using report::report_from_json;
using report::write_file_atomically;
using report::write_frame_pngs;
using scenario::ExplainRequest;
using scenario::load_scenario;
using scenario::Scenario;
using scenario::ScenarioError;
using scenario::ScenarioOverrides;
using scenario::export_runs;
using scenario::parameters_json;
using scenario::TuneOptions;
using scenario::TuningRun;
using scenario::write_report_files;

namespace {

using Clock = std::chrono::steady_clock;
using nlohmann::json;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// True where this process prints and writes files: always, except on ranks other than 0 of
// an MPI run.
bool is_root(const CommonOptions& common) { return !common.session || common.session->is_root(); }

// Ends the part of a command that runs on every process: under MPI, returns how many batch
// evaluations each process computed, by rank (every process calls this), and makes the batches
// that follow (rank 0's reports, which re-score over noise seeds) run whole on the process that
// asks, since the other processes are done; null in a plain run.
json finish_spreading(const CommonOptions& common) {
  if (!common.session) return json();
  const json spread = common.session->items_per_process();
  tune::set_batch_executor(nullptr);
  return spread;
}

// Under --split, how the model was split: {"processes", "split": {each process's elements,
// ghosts, bytes sent and peak resident size, by rank}}; an empty object otherwise. Collective.
json split_fields(const CommonOptions& common, const Scenario& scenario) {
  const std::optional<Scenario::SplitShare> share = scenario.split_share();
  if (!share) return json::object();
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  return {{"processes", common.session->size()},
          {"split",
           {{"elements_per_process", common.session->gather(share->elements)},
            {"ghosts_per_process", common.session->gather(share->ghosts)},
            {"bytes_sent_per_process", common.session->gather(long(share->bytes_sent))},
            {"peak_rss_kb_per_process", common.session->gather(long(usage.ru_maxrss))}}}};
}

// Runs a command, turning exceptions into a message and the exit code the CLI contract names.
// Under MPI, an error every process agreed on is printed by rank 0 alone; any other error ends
// every process of the run, since the others may be waiting for this one.
int guarded(const CommonOptions& common, const std::function<int()>& body) {
  try {
    set_thread_count(common.threads);
    return body();
  } catch (...) {
    std::string message;
    const int code = exit_code_of(std::current_exception(), message);
    dist::Session* session = common.session;
    bool agreed = false;
    try {
      throw;
    } catch (const dist::EveryRankError&) {
      agreed = true;
    } catch (...) {
    }
    if (session && !agreed && session->size() > 1) {
      std::cerr << "simgrad (rank " << session->rank() << " of " << session->size() << "): " << message << "\n";
      session->abort(code);
    }
    if (is_root(common)) {
      std::cerr << "simgrad: " << message << "\n";
      if (common.json) print_json(json{{"error", message}, {"exit_code", code}});
    }
    return code;
  }
}

// Runs a step every process takes on the same input (loading, checking the request): under
// MPI an error in it is agreed, so that rank 0 reports it once and every process exits alike.
void on_every_process(const CommonOptions& common, const std::function<void()>& step) {
  if (common.session) {
    common.session->agree(step);
  } else {
    step();
  }
}

// Loads the scenario, on every process under MPI; `split`: its model split over the processes.
std::unique_ptr<Scenario> load(const std::filesystem::path& file, const CommonOptions& common, bool split = false) {
  ScenarioOverrides overrides;
  if (split && common.session) {
    overrides.split = common.session;
    // Every process takes part in every rollout of a split model: batches run whole on each.
    tune::set_batch_executor(nullptr);
  }
  std::unique_ptr<Scenario> scenario;
  on_every_process(common, [&] {
    if (!common.checkpoint.empty()) overrides.checkpoint = CheckpointPolicy::parse(common.checkpoint);
    scenario = load_scenario(file, overrides);
  });
  return scenario;
}

// Prints a JSON object, or its fields one per line for people.
void emit(const CommonOptions& common, const json& result) {
  if (common.json) {
    print_json(result);
    return;
  }
  for (const auto& [key, value] : result.items()) {
    std::string text = value.dump();
    if (text.size() > 200) text = text.substr(0, 197) + "...";
    std::cout << key << ": " << text << "\n";
  }
}

std::atomic<bool> g_interrupted{false};

extern "C" void on_interrupt(int) { g_interrupted = true; }

}  // namespace

int exit_code_of(std::exception_ptr error, std::string& message) {
  try {
    std::rethrow_exception(error);
  } catch (const dist::EveryRankError& e) {
    message = e.what();
    return e.exit_code();
  } catch (const ScenarioError& e) {
    message = e.what();
    return 2;
  } catch (const std::invalid_argument& e) {
    message = e.what();
    return 2;
  } catch (const NonFiniteError& e) {
    message = e.what();
    return 1;
  } catch (const std::exception& e) {
    message = e.what();
    return 1;
  } catch (...) {
    message = "an unknown error";
    return 1;
  }
}

int run_run(const std::filesystem::path& file, const RunCommandOptions& options, const CommonOptions& common) {
  return guarded(common, [&] {
    for (const std::filesystem::path& e : options.exports) scenario::check_export_file(e);
    if (options.split && (options.frames || !options.exports.empty()))
      throw std::invalid_argument("--split: --frames and --export draw the whole model on one process; leave them out");
    auto scenario = load(file, common, options.split);
    tune::Problem& problem = scenario->problem();
    const auto start = Clock::now();
    const double loss = problem.value(problem.initial());
    json out = {{"loss", finite_or_null(loss)},
                {"steps", scenario->steps},
                {"simulator", scenario->simulator()},
                {"wall_s", seconds_since(start)},
                {"summary", scenario->summary()}};
    out.update(split_fields(common, *scenario));
    if (options.frames) {
      const json frames = scenario->frames(problem.initial());
      if (frames.is_null()) throw std::invalid_argument("--frames: the " + scenario->simulator() + " simulator draws no frames");
      const int count = write_frame_pngs(*options.frames, frames, options.frame_width, options.frame_height);
      out["frames"] = {{"dir", options.frames->string()}, {"count", count},
                       {"width", options.frame_width}, {"height", options.frame_height}};
    }
    if (!options.exports.empty()) out["exports"] = export_runs(*scenario, problem.initial(), options.exports);
    emit(common, out);
    return 0;
  });
}

int run_grad(const std::filesystem::path& file, const GradCommandOptions& options, const CommonOptions& common) {
  return guarded(common, [&] {
    auto scenario = load(file, common, options.split);
    tune::Problem& problem = scenario->problem();
    const std::vector<double> x = problem.initial();
    std::vector<double> g(x.size());
    const auto start = Clock::now();
    const double loss = problem.value_and_gradient(x, g);
    json norm_list = json::array();
    if (auto* rollout_problem = dynamic_cast<tune::RolloutProblem*>(&problem))
      for (double n : rollout_problem->rollout().adjoint_norms()) norm_list.push_back(finite_or_null(n));
    json out{{"loss", finite_or_null(loss)},
             {"gradient", parameters_json(problem.space(), g)},
             {"steps", scenario->steps},
             {"wall_s", seconds_since(start)},
             {"adjoint_norms", norm_list}};
    if (const json split = split_fields(common, *scenario); !split.empty()) {
      out.update(split);
      out.erase("adjoint_norms");  // each process holds its part of the state's adjoint
    }
    emit(common, out);
    return 0;
  });
}

int run_gradcheck(const std::filesystem::path& file, const GradcheckCommandOptions& options, const CommonOptions& common) {
  return guarded(common, [&] {
    auto scenario = load(file, common, options.split);
    tune::Problem& problem = scenario->problem();
    GradCheckOptions check;
    check.step = options.step;
    check.rtol = options.rtol;
    check.atol = options.atol;
    check.random_directions = options.directions;
    const GradCheckReport report = tune::check_problem_gradient(problem, problem.initial(), check);
    json checks = json::array();
    for (const GradCheckEntry& c : report.checks)
      checks.push_back({{"parameter", c.label},
                        {"ad", finite_or_null(c.ad)},
                        {"fd", finite_or_null(c.fd)},
                        {"rel_error", finite_or_null(c.rel_error)},
                        {"ok", c.ok}});
    if (common.json) {
      print_json(json{{"ok", report.ok}, {"checks", checks}});
    } else {
      for (const GradCheckEntry& c : report.checks)
        std::cout << (c.ok ? "ok   " : "FAIL ") << c.label << "  ad " << c.ad << "  fd " << c.fd << "  rel "
                  << c.rel_error << "\n";
      std::cout << (report.ok ? "gradient check passed" : "gradient check FAILED") << "\n";
    }
    return report.ok ? 0 : 1;
  });
}

int run_tune(const std::filesystem::path& file, const TuneCommandOptions& options, const CommonOptions& common) {
  return guarded(common, [&] {
    if (options.split && !options.exports.empty())
      throw std::invalid_argument("--split: --export needs the whole model on one process; export the tuned parameters with `simgrad run`");
    auto scenario = load(file, common, options.split);
    const bool split = scenario->split_share().has_value();
    TuneOptions tuning = scenario->tune;
    if (!options.optimizer.empty()) tuning.optimizer = options.optimizer;
    if (options.iterations > 0) tuning.iterations = options.iterations;

    std::unique_ptr<TuningRun> made;
    on_every_process(common, [&] {
      for (const std::filesystem::path& e : options.exports) scenario::check_export_file(e);
      made = std::make_unique<TuningRun>(*scenario, tuning);  // refuses an unknown optimizer before anything is written
    });
    TuningRun& run = *made;
    const bool root = is_root(common);
    // A split model's rollouts exchange with the other processes, so its steps cannot be agreed
    // afterwards (an error only one process meets would leave the others waiting in an exchange):
    // under --split they run as they are, and such an error ends the run through MPI_Abort.
    auto every_process = [&](const std::function<void()>& step) {
      if (split) step();
      else on_every_process(common, step);
    };
    if (root) std::filesystem::create_directories(options.out);
    const std::filesystem::path state_file = options.out / "state.txt";
    const std::filesystem::path meta_file = options.out / "run.json";

    if (options.resume) {
      on_every_process(common, [&] {
        std::ifstream state(state_file);
        if (!state) throw std::invalid_argument("--resume: no saved state in " + state_file.string());
        std::ifstream meta(meta_file);
        run.load(state, json::parse(meta).at("initial_loss").get<double>());
      });
    } else {
      double initial_loss = 0;
      every_process([&] { initial_loss = run.initial_loss(); });  // a start that blows up is an error
      if (root) write_file_atomically(meta_file, to_json_text(json{{"scenario", file.string()}, {"initial_loss", initial_loss}}));
    }

    g_interrupted = false;
    auto previous = std::signal(SIGINT, on_interrupt);
    ProgressLine progress(tuning.iterations, common.quiet || common.json);
    while (!run.finished()) {
      // Every process computes the same iteration, so an error in it is everyone's.
      const tune::IterationRecord* iterated = nullptr;
      every_process([&] { iterated = &run.iterate(); });
      const tune::IterationRecord& record = *iterated;
      if (root) {
        std::ostringstream saved;
        run.save(saved);
        write_file_atomically(state_file, saved.str());
      }
      progress.update(record.iteration, record.loss, record.best_loss, record.rollouts);
      // Under MPI the processes stop together, after the same iteration.
      const bool interrupted = common.session ? common.session->any(g_interrupted) : bool(g_interrupted);
      if (interrupted) run.stop("interrupted");
    }
    progress.finish();
    std::signal(SIGINT, previous);
    const int finished = run.result().stop_reason == "interrupted" ? 1 : 0;
    if (split) {
      // Every process replays the tuned model; the report, which replays the whole population
      // on one process, is not written.
      json out = scenario::tune_result(*scenario, run);
      const json layout = split_fields(common, *scenario);
      if (!root) return finished;
      scenario::write_tune_result(options.out, *scenario, run, out);
      out.erase("history");
      out.update(layout);
      emit(common, out);
      return finished;
    }
    const json spread = finish_spreading(common);
    if (!root) return finished;

    const json out = scenario::write_tune_outputs(options.out, *scenario, run, options.exports);
    json printed = out;
    printed.erase("history");
    if (!spread.is_null()) printed["batch_items_per_process"] = spread;
    emit(common, printed);
    return out["stop_reason"] == "interrupted" ? 1 : 0;
  });
}

int run_compare(const std::filesystem::path& file, const CompareCommandOptions& options, const CommonOptions& common) {
  return guarded(common, [&] {
    auto scenario = load(file, common);
    std::optional<scenario::Comparison> made;
    on_every_process(common, [&] { made = scenario::compare_methods(*scenario, {options.target, options.budget}); });
    const scenario::Comparison& comparison = *made;
    const json spread = finish_spreading(common);
    if (!is_root(common)) return 0;
    std::filesystem::create_directories(options.out);
    write_report_files(options.out, comparison.report);
    json table = comparison.table;
    if (!spread.is_null()) table["batch_items_per_process"] = spread;
    emit(common, table);
    return 0;
  });
}

int run_sweep(const std::filesystem::path& file, const SweepCommandOptions& options, const CommonOptions& common) {
  return guarded(common, [&] {
    auto scenario = load(file, common);
    tune::Problem& problem = scenario->problem();
    const tune::ParameterSpace& space = problem.space();
    std::vector<tune::SweepAxis> axes;
    std::vector<double> points;
    on_every_process(common, [&] {
      if (options.params.empty() == !options.points) {
        throw std::invalid_argument("sweep: give --param NAME=... (a grid, repeatable) or --points FILE.csv (a list), not both");
      }
      if (options.points) {
        std::size_t count = 0;
        axes = tune::read_sweep_points(space, read_text_file(*options.points), options.points->string(), count);
        points = tune::list_points(space, axes, count);
        return;
      }
      for (const std::string& spec : options.params) axes.push_back(tune::parse_sweep_axis(space, spec));
      for (std::size_t a = 0; a < axes.size(); ++a) {
        for (std::size_t b = 0; b < a; ++b) {
          if (axes[a].component == axes[b].component)
            throw std::invalid_argument("sweep: " + axes[a].name + " is swept twice");
        }
      }
      points = tune::grid_points(space, axes);
    });
    const auto start = Clock::now();
    const tune::SweepTable table = tune::sweep(problem, axes, points, options.gradient);
    const double wall_s = seconds_since(start);
    const json spread = finish_spreading(common);
    if (!is_root(common)) return 0;
    std::filesystem::create_directories(options.out);
    const std::filesystem::path csv = options.out / "sweep.csv";
    write_file_atomically(csv, tune::sweep_csv(table));

    // The lowest loss and where it is.
    const std::size_t loss_column = axes.size();
    std::size_t best = 0;
    for (std::size_t r = 1; r < table.row_count(); ++r) {
      if (table.rows[r * table.width() + loss_column] < table.rows[best * table.width() + loss_column]) best = r;
    }
    json best_point = json::object();
    for (std::size_t a = 0; a < axes.size(); ++a) best_point[axes[a].name] = table.rows[best * table.width() + a];
    json out = {{"file", csv.string()},
                {"points", table.row_count()},
                {"columns", table.columns},
                {"best", {{"parameters", best_point}, {"loss", finite_or_null(table.rows[best * table.width() + loss_column])}}},
                {"non_finite_rollouts", table.non_finite_rollouts},
                {"processes", common.session ? common.session->size() : 1},
                {"wall_s", wall_s}};
    if (!spread.is_null()) out["batch_items_per_process"] = spread;
    if (common.json) {
      json rows = json::array();
      for (std::size_t r = 0; r < table.row_count(); ++r) {
        json row = json::array();
        for (std::size_t c = 0; c < table.width(); ++c) row.push_back(finite_or_null(table.rows[r * table.width() + c]));
        rows.push_back(row);
      }
      out["rows"] = rows;
    }
    emit(common, out);
    return 0;
  });
}

int run_render(const std::filesystem::path& dir, const CommonOptions& common) {
  return guarded(common, [&] {
    std::ifstream in(dir / "report.json");
    if (!in) throw std::invalid_argument("render: no report.json in " + dir.string() + " (written by tune and compare)");
    json saved;
    try {
      saved = json::parse(in);
    } catch (const json::parse_error& e) {
      throw std::invalid_argument((dir / "report.json").string() + ": " + e.what());
    }
    write_file_atomically(dir / "report.html", render_report(report_from_json(saved)));
    emit(common, json{{"report", (dir / "report.html").string()}});
    return 0;
  });
}

int run_explain(const std::filesystem::path& file, const ExplainCommandOptions& options, const CommonOptions& common) {
  return guarded(common, [&] {
    auto scenario = load(file, common);
    const ExplainRequest request{options.hints, options.joint_step, options.area_step};
    json out = scenario->explain(scenario->problem().initial(), request);
    out["simulator"] = scenario->simulator();
    if (common.json) {
      print_json(out);
      return 0;
    }
    std::cout << "rating " << out["rating"].get<double>() << " (hard " << out["hard_rating"].get<double>()
              << "; lower is better)\n";
    for (const json& h : out["hints"]) std::cout << "  " << h["text"].get<std::string>() << "\n";
    return 0;
  });
}

int run_bench(const BenchOptions& options, const CommonOptions& common) {
  const json benchmarks = run_benchmarks(options, common.threads, [&](const json& b) {
    if (!common.json) std::cerr << b.dump() << "\n";
  });
  if (!options.peers) {
    if (common.json) print_json(json{{"benchmarks", benchmarks}});
    return 0;
  }
  const json table = peer_table(benchmarks);
  if (common.json) {
    print_json(json{{"benchmarks", benchmarks}, {"peers", table}});
    return 0;
  }
  // One line per pair: times in seconds, ratios ours over the peer's (below 1: simgrad faster).
  auto number = [](const json& v, const char* format) {
    if (!v.is_number()) return std::string("-");
    char text[32];
    std::snprintf(text, sizeof text, format, v.get<double>());
    return std::string(text);
  };
  std::printf("%-52s %-7s %9s %9s %7s %9s %9s %7s %8s %8s %9s %9s\n", "benchmark", "peer", "fwd_s", "peer_fwd", "ratio",
              "grad_s", "peer_grad", "ratio", "rss_mb", "peer_mb", "loss_diff", "grad_diff");
  for (const json& r : table)
    std::printf("%-52s %-7s %9s %9s %7s %9s %9s %7s %8s %8s %9s %9s\n", r["benchmark"].get<std::string>().c_str(),
                r["peer"].get<std::string>().c_str(), number(r["forward_s"], "%.3g").c_str(),
                number(r["peer_forward_s"], "%.3g").c_str(), number(r["forward_ours_over_peer"], "%.2f").c_str(),
                number(r["gradient_s"], "%.3g").c_str(), number(r["peer_gradient_s"], "%.3g").c_str(),
                number(r["gradient_ours_over_peer"], "%.2f").c_str(), number(r["peak_rss_mb"], "%.0f").c_str(),
                number(r["peer_peak_rss_mb"], "%.0f").c_str(), number(r["loss_difference"], "%.1e").c_str(),
                number(r["gradient_max_rel_difference"], "%.1e").c_str());
  return 0;
}

}  // namespace simgrad::app
