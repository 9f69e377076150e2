// simgrad: differentiable simulation from the command line. See README.md and `simgrad --help`.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <memory>
#include <thread>

#include "app/commands.hpp"
#include "core/csv.hpp"
#include "report/version.hpp"

namespace {

// Adds the flags every subcommand shares.
void add_common(CLI::App* command, simgrad::app::CommonOptions& common) {
  command->add_flag("--json", common.json, "print one JSON object on stdout");
  command->add_flag("--quiet", common.quiet, "no progress output");
  command->add_option("--threads", common.threads, "worker threads (default: all cores)")->check(CLI::NonNegativeNumber);
  command->add_option("--checkpoint", common.checkpoint, "checkpoint policy: all | every:K | binomial:S");
}

}  // namespace

int main(int argc, char** argv) {
  using namespace simgrad::app;
  CLI::App app{"simgrad: differentiable simulation; gradients of a rollout's loss, tuning and benchmarks"};
  app.set_version_flag("--version", std::string("simgrad ") + simgrad::report::kVersion, "print the version and exit");
  app.require_subcommand(1);
  CommonOptions common;
  std::string scenario;

  CLI::App* list = app.add_subcommand("list", "list simulators, their parameters and units");
  add_common(list, common);

  std::string simulator_name;
  CLI::App* describe = app.add_subcommand("describe", "one simulator's parameters: units, what each is per, what it does");
  describe->add_option("simulator", simulator_name, "simulator name, as `simgrad list` prints it")->required();
  add_common(describe, common);

  CLI::App* run = app.add_subcommand("run", "run a scenario forward and print its loss");
  run->add_option("scenario", scenario, "scenario JSON file (default: the built-in mass_spring_simple)");
  RunCommandOptions run_options;
  run->add_flag("--split", run_options.split,
                "under mpirun: split the model over the processes (the contagion agent model, the mass-spring soft body, the 2D smoke grid), not batches");
  run->add_option("--frames", run_options.frames, "also draw the run as PNG frames DIR/frame_00000.png, ...");
  run->add_option("--export", run_options.exports, "also export the run: FILE.gltf (glTF 2.0) or FILE.pvd (a VTK series); repeatable");
  run->add_option("--frame-size", run_options.frame_width, "frame width in pixels (height 3/4 of it; default 640)")
      ->check(CLI::Range(64, 4096));
  add_common(run, common);

  CLI::App* grad = app.add_subcommand("grad", "loss and its gradient with respect to the tuned parameters");
  grad->add_option("scenario", scenario, "scenario JSON file (default: the built-in mass_spring_simple)");
  GradCommandOptions grad_options;
  grad->add_flag("--split", grad_options.split,
                 "under mpirun: split the model over the processes (the contagion agent model, the mass-spring soft body, the 2D smoke grid), not batches");
  add_common(grad, common);

  GradcheckCommandOptions gradcheck_options;
  CLI::App* gradcheck = app.add_subcommand("gradcheck", "compare the gradient with central finite differences");
  gradcheck->add_option("scenario", scenario, "scenario JSON file (default: the built-in mass_spring_simple)");
  gradcheck->add_flag("--split", gradcheck_options.split,
                      "under mpirun: split the model over the processes (the contagion agent model, the mass-spring soft body, the 2D smoke grid)");
  gradcheck->add_option("--directions", gradcheck_options.directions, "random directions instead of coordinates");
  gradcheck->add_option("--step", gradcheck_options.step, "relative finite-difference step");
  gradcheck->add_option("--rtol", gradcheck_options.rtol, "relative tolerance");
  gradcheck->add_option("--atol", gradcheck_options.atol, "absolute tolerance");
  add_common(gradcheck, common);

  TuneCommandOptions tune_options;
  CLI::App* tune = app.add_subcommand("tune", "tune the scenario's parameters by gradient descent");
  tune->add_option("scenario", scenario, "scenario JSON file (default: the built-in mass_spring_simple)");
  tune_options.out = "simgrad-out";
  tune->add_option("--out", tune_options.out, "output folder: result.json, loss.svg, report.html, saved state (default: simgrad-out)");
  tune->add_option("--optimizer", tune_options.optimizer, "lbfgs | adam | normalized_gd | levenberg_marquardt (default: the scenario's)");
  tune->add_option("--iterations", tune_options.iterations, "iterations (default: the scenario's)");
  tune->add_option("--export", tune_options.exports, "also export the tuned run: FILE.gltf or FILE.pvd; repeatable");
  tune->add_flag("--split", tune_options.split,
                 "under mpirun: split the model over the processes (the contagion agent model, the mass-spring soft body, the 2D smoke grid), not batches");
  tune->add_flag("--resume", [&](std::int64_t) { tune_options.resume = tune_options.out; },
                 "continue an interrupted run saved in --out");
  add_common(tune, common);

  CompareCommandOptions compare_options;
  CLI::App* compare = app.add_subcommand("compare", "gradient tuning against CMA-ES and random search");
  compare->add_option("scenario", scenario, "scenario JSON file (default: the built-in mass_spring_simple)");
  compare->add_option("--target", compare_options.target, "target loss (default: the scenario's, else the best loss CMA-ES reaches within its budget)");
  compare->add_option("--budget", compare_options.budget, "rollouts allowed to each baseline");
  compare->add_option("--out", compare_options.out, "output folder for report.html (default: simgrad-out)");
  add_common(compare, common);

  SweepCommandOptions sweep_options;
  CLI::App* sweep = app.add_subcommand("sweep", "the loss at every point of a grid or list of parameter values, as one table");
  sweep->add_option("scenario", scenario, "scenario JSON file (default: the built-in mass_spring_simple)");
  sweep->add_option("--param", sweep_options.params,
                    "NAME=LOW:HIGH:COUNT (COUNT values, ends included) or NAME=V1,V2,...; repeat for a grid over several");
  sweep->add_option("--points", sweep_options.points, "a CSV list of points instead: a header of parameter names, a row per point");
  sweep->add_option("--out", sweep_options.out, "output folder for sweep.csv (default: simgrad-out)");
  sweep->add_flag("--gradient", sweep_options.gradient, "also the loss's derivatives along the swept parameters");
  add_common(sweep, common);

  std::string render_dir;
  CLI::App* render = app.add_subcommand("render", "rebuild DIR/report.html from the saved DIR/report.json, without re-simulating");
  render->add_option("dir", render_dir, "a tune or compare output folder")->required();
  add_common(render, common);

  ExplainCommandOptions explain_options;
  CLI::App* explain = app.add_subcommand("explain", "rank the parts that most change the rating, as hints checked by re-rating");
  explain->add_option("scenario", scenario, "scenario JSON file")->required();
  explain->add_option("--hints", explain_options.hints, "how many hints (default: the scenario's, else 5)");
  explain->add_option("--joint-step", explain_options.joint_step, "how far a hint moves a joint (default: 1% of the span)");
  explain->add_option("--area-step", explain_options.area_step, "fraction of its area a hint adds or removes (default: 0.2)");
  add_common(explain, common);

  BenchOptions bench_options;
  CLI::App* bench = app.add_subcommand("bench", "benchmarks: gradient/forward, ours/hand-written loop, memory");
  bench->add_option("--filter", bench_options.filter, "run benchmarks whose name matches this regex");
  bench->add_option("--repeats", bench_options.repeats,
                    "runs per measurement, at least (short ones repeat for about a second); medians are reported");
  bench->add_option("--steps", bench_options.steps, "steps per rollout");
  bench->add_flag("--peers", bench_options.peers,
                  "only the benchmarks measured beside taichi, Warp and PyTorch (their --filter unless one is "
                  "given), then one table of the pairs");
  add_common(bench, common);

  // Under an MPI launcher every process runs this same program; rank 0 alone prints.
  std::unique_ptr<simgrad::dist::Session> session;
  try {
    session = simgrad::dist::Session::start_if_launched(exit_code_of);
  } catch (const std::exception& e) {
    std::cerr << "simgrad: " << e.what() << "\n";
    return 2;
  }
  if (session && !session->is_root()) std::freopen("/dev/null", "w", stdout);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  if (session) {
    common.session = session.get();
    simgrad::tune::set_batch_executor(&session->executor());
    if (!session->is_root()) common.quiet = true;
    // The processes on a node share its cores, unless told otherwise.
    if (common.threads == 0) {
      common.threads = std::max(1, int(std::thread::hardware_concurrency()) / simgrad::dist::launched_local_process_count());
    }
    // Every process must run the same simgrad on the same input, or the results would mix.
    std::string command_line;
    for (int i = 1; i < argc; ++i) command_line += std::string(argv[i]) + "\n";
    std::string scenario_bytes;
    if (!scenario.empty()) {
      try {
        scenario_bytes = simgrad::read_text_file(scenario);
      } catch (const std::invalid_argument&) {
        scenario_bytes = "(unreadable)";  // loading it reports why, on every process
      }
    }
    try {
      session->require_same("simgrad version", simgrad::report::kVersion);
      session->require_same("scenario file (" + scenario + ")", scenario_bytes);
      session->require_same("command line", command_line);
    } catch (const simgrad::dist::EveryRankError& e) {
      if (session->is_root()) std::cerr << "simgrad: " << e.what() << "\n";
      return e.exit_code();
    }
  }
  if (*list) return run_list(common);
  if (*describe) return run_describe(simulator_name, common);
  if (*run) {
    run_options.frame_height = run_options.frame_width * 3 / 4;
    return run_run(scenario, run_options, common);
  }
  if (*grad) return run_grad(scenario, grad_options, common);
  if (*gradcheck) return run_gradcheck(scenario, gradcheck_options, common);
  if (*tune) return run_tune(scenario, tune_options, common);
  if (*compare) return run_compare(scenario, compare_options, common);
  if (*sweep) return run_sweep(scenario, sweep_options, common);
  if (*render) return run_render(render_dir, common);
  if (*explain) return run_explain(scenario, explain_options, common);
  if (*bench) return run_bench(bench_options, common);
  return 2;
}
