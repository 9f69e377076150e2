// `simgrad bench` for the fluid simulator: gradient over forward time of 2D smoke on 128 x 128
// cells over 100 steps, with each pressure solver, of 3D smoke on 64 x 64 x 64 cells over 100
// steps (CG, then Jacobi sweeps, MacCormack advection, vorticity confinement one at a time), and
// DiffTaichi's smoke task (110 x 110 periodic, 100 steps, 6 Jacobi sweeps, the whole initial
// velocity field tuned; midpoint traces, then DiffTaichi's own Euler step back) side by side
// with a plain-PyTorch implementation of the same discretisation (bench/peers/smoke_torch.py) at
// the same thread count; both must reach the same loss and gradient.
#include <unistd.h>

#include <cmath>
#include <functional>
#include <filesystem>
#include <span>
#include <string>

#include "bench/bench_support.hpp"
#include "core/parallel.hpp"
#include "core/rng.hpp"
#include "core/rollout.hpp"
#include "sims/fluid/losses.hpp"
#include "sims/fluid/smoke.hpp"
#include "sims/fluid/smoke.hpp"

namespace simgrad::app {

namespace {

using nlohmann::json;
namespace fl = simgrad::fluid;

// A model and its loss, in 2D (Model = SmokeModel) or 3D (SmokeModel3).
template <class Model>
struct SmokeTaskOf {
  Model model;
  fl::SmokeLossSettings loss;
};
using SmokeTask = SmokeTaskOf<fl::SmokeModel>;

// The system and loss of a 2D or a 3D task.
fl::Smoke system_of(fl::SmokeModel& m) { return fl::Smoke(m); }
fl::Smoke3 system_of(fl::SmokeModel3& m) { return fl::Smoke3(m); }

// DiffTaichi's task on n x n periodic cells: checkerboard smoke, a random initial velocity
// (deterministic), a disc of smoke as the target; traces by the midpoint rule or, as DiffTaichi's
// example, one Euler step.
SmokeTask smoke_task(int n, int steps, bool jacobi, fl::Backtrace backtrace = fl::Backtrace::kMidpoint) {
  SmokeTask task;
  fl::SmokeSettings s;
  s.steps = steps;
  s.dt = 0.03;
  s.backtrace = backtrace;
  if (jacobi) {
    s.pressure.solver = fl::PressureSolver::kJacobi;
    s.pressure.jacobi_iterations = 6;
  } else {
    s.pressure.tolerance = 1e-6;
  }
  const double h = 1.0 / n;
  task.model.reset(fl::Grid(n, n, h, fl::Side::kPeriodic, fl::Side::kPeriodic, fl::Side::kPeriodic, fl::Side::kPeriodic), s);
  const fl::Grid& g = task.model.grid;
  const std::span<double> velocity = task.model.initial_velocity.values(), density = task.model.initial_density.values();
  for (std::size_t k = 0; k < velocity.size(); ++k) velocity[k] = 0.2 * standard_normal(3, 0, k);
  task.loss.target.assign(static_cast<std::size_t>(g.cells()), 0.0);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const std::size_t c = static_cast<std::size_t>(g.cell(i, j));
      density[c] = ((i / 16 + j / 16) % 2 == 0) ? 1.0 : 0.0;
      task.loss.target[c] = std::hypot((i + 0.5) * h - 0.5, (j + 0.5) * h - 0.5) < 0.4 ? 1.0 : 0.0;
    }
  return task;
}

// A hot emitter on the floor of a closed box open at the top, with buoyancy: the CG solver.
SmokeTask plume_task(int n, int steps) {
  SmokeTask task;
  fl::SmokeSettings s;
  s.steps = steps;
  s.dt = 0.02;
  s.buoyancy = 2.0;
  s.pressure.tolerance = 1e-6;
  task.model.reset(fl::Grid(n, n, 1.0 / n, fl::Side::kClosed, fl::Side::kClosed, fl::Side::kClosed, fl::Side::kOpen), s);
  task.model.add_source("emitter", 0.4, 0.1, 0.05, 5.0, 5.0, 0.5, 1.2);
  std::vector<std::uint8_t> region(static_cast<std::size_t>(task.model.grid.cells()), 0);
  for (int j = n / 2; j < n; ++j)
    for (int i = n / 2; i < n; ++i) region[static_cast<std::size_t>(task.model.grid.cell(i, j))] = 1;
  task.loss.region = region;
  return task;
}

// The 3D counterpart of plume_task on n^3 cells: a hot emitter on the floor of a closed box open
// at the top, buoyancy, the CG solver; the upper far quarter of the box as the region to fill.
SmokeTaskOf<fl::SmokeModel3> plume3d_task(int n, int steps) {
  SmokeTaskOf<fl::SmokeModel3> task;
  fl::SmokeSettings s;
  s.steps = steps;
  s.dt = 0.02;
  s.buoyancy = 2.0;
  s.pressure.tolerance = 1e-6;
  const fl::Side closed = fl::Side::kClosed;
  task.model.reset(fl::Grid3({n, n, n}, 1.0 / n, {closed, closed, closed, fl::Side::kOpen, closed, closed}), s);
  task.model.add_source("emitter", {0.4, 0.1, 0.5}, 0.05, 5.0, 5.0, 0.5, 1.2, 0.3);
  const fl::Grid3& g = task.model.grid;
  task.loss.region.assign(static_cast<std::size_t>(g.cells()), 0);
  for (int k = 0; k < n; ++k)
    for (int j = n / 2; j < n; ++j)
      for (int i = n / 2; i < n; ++i) task.loss.region[static_cast<std::size_t>(g.cell(i, j, k))] = 1;
  return task;
}

// Forward and gradient medians, interleaved; the loss and the gradient with respect to the
// initial velocity.
template <class Model>
json measure(SmokeTaskOf<Model> task, int repeats, int threads) {
  set_thread_count(threads);
  const int steps = task.model.settings.steps;
  auto system = system_of(task.model);
  fl::SmokeLossOf<Model> loss(task.model, task.loss);
  Rollout rollout(system, loss, steps, RolloutOptions{});
  rollout.loss_and_gradient();  // warm-up
  std::vector<double> forward, gradient, forward_cpu, gradient_cpu;
  double value = 0.0;
  // Process CPU time too: on a shared machine it is the steadier measure.
  const int runs = repeats_for(time_of([&] { rollout.loss_and_gradient(); }), repeats);
  for (int r = 0; r < runs; ++r) {
    forward_cpu.push_back(cpu_time_of([&] { forward.push_back(time_of([&] { rollout.loss(); })); }));
    gradient_cpu.push_back(cpu_time_of([&] { gradient.push_back(time_of([&] { value = rollout.loss_and_gradient(); })); }));
  }
  return {{"forward_s", median(forward)},
          {"gradient_s", median(gradient)},
          {"forward_cpu_s", median(forward_cpu)},
          {"gradient_cpu_s", median(gradient_cpu)},
          {"runs", runs},
          {"loss", value},
          {"pressure_iterations_max", system.projection().max_iterations_seen()},
          {"stored_mb", static_cast<double>(rollout.stats().stored_bytes) / (1024.0 * 1024.0)},
          {"gradient", task.model.initial_velocity.adjoints()}};
}

// The PyTorch peer on the same task.
json measure_peer(const std::string& python, const SmokeTask& task, int repeats, int threads) {
  const fl::SmokeModel& m = task.model;
  const json settings = {{"nx", m.grid.nx()},
                         {"ny", m.grid.ny()},
                         {"cell_size", m.grid.h()},
                         {"dt", m.settings.dt},
                         {"steps", m.settings.steps},
                         {"jacobi_iterations", m.settings.pressure.jacobi_iterations},
                         {"backtrace", m.settings.backtrace == fl::Backtrace::kEuler ? "euler" : "midpoint"},
                         {"threads", threads},
                         {"repeats", repeats},
                         {"initial_density", m.initial_density.values()},
                         {"initial_velocity", m.initial_velocity.values()},
                         {"target", task.loss.target}};
  const std::filesystem::path file =
      std::filesystem::temp_directory_path() / ("simgrad_smoke_peer_" + std::to_string(getpid()) + ".json");
  json result = run_peer(python, "smoke_torch.py", settings, file);
  std::filesystem::remove(file);
  return result;
}

json entry(const std::string& name, const json& run, int threads) {
  json b = {{"name", name},
            {"forward_s", run.value("forward_s", 0.0)},
            {"gradient_s", run.value("gradient_s", 0.0)},
            {"gradient_over_forward", run.value("gradient_s", 0.0) / run.value("forward_s", 1.0)},
            {"forward_cpu_s", run.value("forward_cpu_s", 0.0)},
            {"gradient_cpu_s", run.value("gradient_cpu_s", 0.0)},
            {"pressure_iterations_max", run.value("pressure_iterations_max", 0)},
            {"stored_mb", run.value("stored_mb", 0.0)},
            {"peak_rss_mb", run["peak_rss_mb"]},
            {"threads", threads}};
  if (run.contains("error")) b["error"] = run["error"];
  return b;
}

}  // namespace

void fluid_benchmarks(const std::regex& filter, int repeats, int threads, const std::function<void(const json&)>& report) {
  const int used_threads = threads > 0 ? threads : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  for (const char* solver : {"cg", "jacobi:6"}) {
    const std::string name = std::string("fluid/cells:128x128/steps:100/solver:") + solver;
    if (!std::regex_search(name, filter)) continue;
    const bool jacobi = solver[0] == 'j';
    json run = in_child([&] {
      json r = measure(jacobi ? smoke_task(128, 100, true) : plume_task(128, 100), repeats, threads);
      r.erase("gradient");
      return r;
    });
    json b = entry(name, run, used_threads);
    b["scenario"] = jacobi ? "DiffTaichi's smoke task at 128 x 128 (periodic, 6 Jacobi sweeps)"
                           : "hot emitter in a closed box open at the top, buoyancy, MIC(0)-CG to 1e-6 with implicit adjoint";
    report(b);
  }
  // 3D: the CG plume, then one optional scheme at a time.
  for (const char* variant : {"solver:cg", "solver:jacobi:40", "solver:cg/advection:maccormack", "solver:cg/confinement:0.2"}) {
    const std::string name3d = std::string("fluid/cells:64x64x64/steps:100/") + variant;
    if (!std::regex_search(name3d, filter)) continue;
    const std::string v = variant;
    json run = in_child([&] {
      SmokeTaskOf<fl::SmokeModel3> task = plume3d_task(64, 100);
      fl::SmokeSettings& s = task.model.settings;
      if (v == "solver:jacobi:40") {
        s.pressure.solver = fl::PressureSolver::kJacobi;
        s.pressure.jacobi_iterations = 40;
      } else if (v == "solver:cg/advection:maccormack") {
        s.velocity_advection = s.carried_advection = fl::AdvectionScheme::kMacCormack;
      } else if (v == "solver:cg/confinement:0.2") {
        s.confinement = true;
        task.model.confinement.values()[0] = 0.2;
      }
      json r = measure(std::move(task), repeats, threads);
      r.erase("gradient");
      return r;
    });
    json b = entry(name3d, run, used_threads);
    b["scenario"] = "3D: hot emitter in a closed box open at the top, buoyancy, " +
                    std::string(v == "solver:jacobi:40" ? "40 Jacobi sweeps (unrolled adjoint)"
                                                        : "MIC(0)-CG to 1e-6 with implicit adjoint") +
                    (v == "solver:cg/advection:maccormack" ? ", MacCormack advection with limiter" : "") +
                    (v == "solver:cg/confinement:0.2" ? ", vorticity confinement 0.2" : "");
    report(b);
  }
  // The midpoint trace (the simulator's default), then one Euler step back as in DiffTaichi.
  for (const fl::Backtrace backtrace : {fl::Backtrace::kMidpoint, fl::Backtrace::kEuler}) {
    const bool euler = backtrace == fl::Backtrace::kEuler;
    const std::string name = std::string("fluid_smoke_target/cells:110x110/steps:100/jacobi:6") + (euler ? "/backtrace:euler" : "");
    if (!std::regex_search(name, filter)) continue;
    json ours = in_child([&] { return measure(smoke_task(110, 100, true, backtrace), repeats, threads); });
    json b = entry(name, ours, used_threads);
    b["backtrace"] = euler ? "euler" : "midpoint";
    const std::string python = peer_python();
    if (python.empty()) {
      b["reference"] = "none: python3 with torch not found (install Debian's python3-torch)";
    } else {
      json peer = in_child([&] { return measure_peer(python, smoke_task(110, 100, true, backtrace), repeats, used_threads); });
      b["reference"] = "plain PyTorch (bench/peers/smoke_torch.py), same discretisation, " + std::to_string(used_threads) + " threads";
      if (peer.contains("error")) {
        b["reference_error"] = peer["error"];
      } else {
        b["reference_forward_s"] = peer.value("forward_s", 0.0);
        b["reference_s"] = peer.value("gradient_s", 0.0);
        b["reference_peak_rss_mb"] = peer["peak_rss_mb"];
        b["ours_over_reference"] = b["gradient_s"].get<double>() / peer.value("gradient_s", 1.0);
        b["reference_over_ours"] = peer.value("gradient_s", 0.0) / b["gradient_s"].get<double>();
        b["reference_gradient_cpu_s"] = peer.value("gradient_cpu_s", 0.0);
        b["reference_over_ours_cpu"] = peer.value("gradient_cpu_s", 0.0) / b["gradient_cpu_s"].get<double>();
        b["loss_difference"] = std::abs(peer.value("loss", 0.0) - ours.value("loss", 0.0));
        b["gradient_max_rel_difference"] = gradient_difference(ours["gradient"], peer["gradient"]);
      }
    }
    report(b);
  }
}

}  // namespace simgrad::app
