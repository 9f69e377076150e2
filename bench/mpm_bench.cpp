// `simgrad bench` for the material point method (sims/mpm):
//   mpm_forward/particles:N/steps:T   a 2D jelly block (fixed corotated) dropping onto sticky
//     walls: the engine's forward and gradient (with respect to every particle's initial velocity
//     and Young's modulus) and their ratio, and the forward pass on one thread against a
//     hand-written MLS-MPM loop of the same physics (bench/mpm_reference.cpp).
//   mpm_memory/particles:N/steps:T   peak memory of that gradient under `all` and `binomial:S`.
//   mpm_diffmpm/steps:1023/iterations:I   DiffTaichi's diffmpm task: its robot (128 x 128 grid,
//     1,023 steps, four actuated legs) driven by a sine bank, tuned to move right by plain
//     gradient descent with DiffTaichi's learning rate 0.1; the loss of every iteration.
//   mpm_diffmpm_3d/steps:512/iterations:3   DiffTaichi's 3D robot (64^3 grid, sixteen actuators):
//     its loss over a few iterations and the time of one.
//   mpm_3d_memory/particles:P/steps:T   a 3D block of about a million particles: the gradient's
//     peak memory and time under `binomial:S`.
// Every configuration runs in a child process of its own; times are wall-clock medians.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include "bench/mpm_reference.hpp"
#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/control/controller.hpp"
#include "sims/mpm/losses.hpp"
#include "sims/mpm/mpm.hpp"

namespace simgrad::app {

namespace {

using nlohmann::json;
namespace mp = simgrad::mpm;

// A jelly block of `side` x `side` cells (four particles a cell) on a grid of `nodes`^2, thrown
// down and to the right inside sticky walls.
mp::MpmModel<2> jelly_block(int nodes, int side) {
  mp::MpmModel<2> m;
  m.settings.nodes = {{nodes, nodes}};
  m.settings.dx = 1.0 / nodes;
  m.settings.dt = 2e-4;
  m.settings.gravity = {{0.0, -9.8}};
  for (mp::Wall& w : m.settings.walls) w = {mp::WallKind::kSticky, 0.0};
  mp::BodyOptions<2> b;
  b.half_extent = {{0.5 * side / nodes, 0.5 * side / nodes}};
  b.centre = {{0.5, 0.1 + b.half_extent[1] + 4.0 / nodes}};
  b.youngs = 1e4;
  b.poisson = 0.3;
  b.density = 1e3;
  b.velocity = {{1.0, -1.0}};
  m.add_body(b);
  m.initial_velocity.set_differentiable(true);
  m.youngs.set_differentiable(true);
  return m;
}

struct JellyBench {
  mp::MpmModel<2> model;
  std::unique_ptr<mp::Mpm<2>> system;
  std::unique_ptr<mp::MpmLoss<2>> loss;
  JellyBench(int nodes, int side) : model(jelly_block(nodes, side)) {
    system = std::make_unique<mp::Mpm<2>>(model);
    mp::MpmLossSettings<2> s;
    s.target = {{0.6, 0.2}};
    s.target_weight = 1.0;
    loss = std::make_unique<mp::MpmLoss<2>>(model.particle_count, s);
  }
};

json measure(int nodes, int side, int steps, int repeats, int threads, const CheckpointPolicy& policy) {
  set_thread_count(threads);
  JellyBench bench(nodes, side);
  Rollout rollout(*bench.system, *bench.loss, steps, {.checkpoint = policy});
  std::vector<double> forward, gradient;
  const int runs = repeats_for(time_of([&] { rollout.loss_and_gradient(); }), repeats);
  for (int r = 0; r < runs; ++r) {
    forward.push_back(time_of([&] { rollout.loss(); }));
    gradient.push_back(time_of([&] { rollout.loss_and_gradient(); }));
  }
  return {{"forward_s", median(forward)}, {"gradient_s", median(gradient)}, {"runs", runs},
          {"particles", bench.model.particle_count}, {"stored_mb", rollout.stats().stored_bytes / 1e6}};
}

json measure_reference(int nodes, int side, int steps, int repeats) {
  set_thread_count(1);
  JellyBench bench(nodes, side);
  Rollout rollout(*bench.system, *bench.loss, steps);
  return time_against_reference(rollout, [&] { return reference_mpm_rollout(bench.model, steps); }, repeats);
}

// DiffTaichi's optimizer: `iterations` steps of plain gradient descent at `rate` on the
// controller's parameters; {"losses" (one per iteration), "gradient_s" (the median time of one)}.
json descend(Rollout& rollout, control::Controller& controller, int iterations, double rate) {
  json losses = json::array();
  std::vector<double> times;
  for (int it = 0; it < iterations; ++it) {
    double l = 0.0;
    times.push_back(time_of([&] { l = rollout.loss_and_gradient(); }));
    losses.push_back(l);
    for (auto& [name, array] : controller.parameters())
      for (Index k = 0; k < array->size(); ++k) array->values()[k] -= rate * array->adjoints()[k];
  }
  return {{"losses", losses}, {"gradient_s", median(times)}};
}

// DiffTaichi's robot (diffmpm.py's robot(): a 0.3 x 0.1 body on four 0.05 x 0.1 legs, offset
// (0.1, 0.03), int(w / dx) * 2 particles per axis, unit particle volume and mass, mu = lambda =
// 10) on its 128 x 128 grid with its walls (3 cells, sticky), gravity 3.8 and dt 1e-3.
mp::MpmModel<2> diffmpm_robot() {
  mp::MpmModel<2> m;
  m.settings.nodes = {{128, 128}};
  m.settings.dx = 1.0 / 128.0;
  m.settings.dt = 1e-3;
  m.settings.gravity = {{0.0, -3.8}};
  m.settings.actuation_strength = 4.0;
  for (mp::Wall& w : m.settings.walls) w = {mp::WallKind::kSticky, 0.0};
  auto rect = [&](double x, double y, double w, double h, int actuator) {
    mp::BodyOptions<2> b;
    b.centre = {{0.1 + x + 0.5 * w, 0.03 + y + 0.5 * h}};
    b.half_extent = {{0.5 * w, 0.5 * h}};
    b.counts = {{static_cast<int>(w * 128.0) * 2, static_cast<int>(h * 128.0) * 2}};
    b.volume = 1.0;
    b.density = 1.0;
    b.youngs = 25.0;  // mu = lambda = 10
    b.poisson = 0.25;
    b.actuator = actuator;
    b.direction = {{0.0, 1.0}};
    m.add_body(b);
  };
  rect(0.0, 0.1, 0.3, 0.1, -1);
  rect(0.0, 0.0, 0.05, 0.1, 0);
  rect(0.05, 0.0, 0.05, 0.1, 1);
  rect(0.2, 0.0, 0.05, 0.1, 2);
  rect(0.25, 0.0, 0.05, 0.1, 3);
  return m;
}

json diffmpm(int iterations, int threads) {
  set_thread_count(threads);
  mp::MpmModel<2> model = diffmpm_robot();
  constexpr int kSteps = 1023;  // DiffTaichi's forward(): steps - 1 advances of 1,024
  model.resize_controls(kSteps);
  mp::Mpm<2> system(model);
  control::ControllerLayout layout;
  layout.creatures = 1;
  layout.dt = model.settings.dt;
  layout.omega = 20.0;  // DiffTaichi's actuation_omega
  layout.strength.assign(4, 1.0);
  control::SineBank controller(layout);
  system.set_controller(&controller);
  mp::MpmLossSettings<2> s;
  s.progress_weight = 1.0;  // loss = -mean x
  mp::MpmLoss<2> loss(model.particle_count, s);
  Rollout rollout(system, loss, kSteps);
  std::vector<double> forward;
  for (int r = 0; r < 3; ++r) forward.push_back(time_of([&] { rollout.loss(); }));
  json out = descend(rollout, controller, iterations, 0.1);
  out["particles"] = model.particle_count;
  out["forward_s"] = median(forward);
  return out;
}

// DiffTaichi's 3D robot (diffmpm3d.py's robot(): four legs of four actuated 0.05 x 0.035 x 0.1
// blocks under a body of three 0.1 x 0.07 x 0.1 blocks, three particles per cell and axis, offset
// (0.1, 0.05, 0.3)) on a 64^3 grid, y up, sticky walls, gravity 10, dt 2e-3, neo-Hookean with
// mu = lambda = 10, active stress 5 along z, sixteen actuators driven by a sine bank; `iterations` of gradient descent at DiffTaichi's
// learning rate 30 over `steps` steps.
json diffmpm_3d(int steps, int iterations, int threads) {
  set_thread_count(threads);
  mp::MpmModel<3> m;
  for (int d = 0; d < 3; ++d) m.settings.nodes[d] = 64;
  m.settings.dx = 1.0 / 64.0;
  m.settings.dt = 2e-3;
  m.settings.gravity[1] = -10.0;
  m.settings.actuation_strength = 5.0;
  for (mp::Wall& w : m.settings.walls) w = {mp::WallKind::kSticky, 0.0};
  auto block = [&](double x, double y, double z, double w, double h, double d, int actuator) {
    mp::BodyOptions<3> b;
    b.centre = {{0.1 + x + 0.5 * w, 0.05 + y + 0.5 * h, 0.3 + z + 0.5 * d}};
    b.half_extent = {{0.5 * w, 0.5 * h, 0.5 * d}};
    b.counts = {{static_cast<int>(w * 64.0 * 3.0), static_cast<int>(h * 64.0 * 3.0), static_cast<int>(d * 64.0 * 3.0)}};
    b.volume = 1.0;
    b.density = 1.0;
    b.material = mp::Material::kNeoHookean;  // diffmpm3d's mu (F F^T - I) + lambda ln J I
    b.youngs = 25.0;
    b.poisson = 0.25;
    b.actuator = actuator;
    b.direction = {{0.0, 0.0, 1.0}};  // its A = diag(0, 0, 1)
    m.add_body(b);
  };
  const double size = 0.1;
  int actuators = 0;
  for (int leg = 0; leg < 4; ++leg)
    for (int i = 0; i < 4; ++i)
      block(leg / 2 * size * 2 + size / 2 * (i / 2), 0.7 * size / 2 * (i % 2), leg % 2 * size * 2, size / 2, 0.7 * size / 2, size, actuators++);
  for (int i = 0; i < 3; ++i) block(size * i, 0.0, size, size, 0.7 * size, size, -1);
  m.resize_controls(steps);
  mp::Mpm<3> system(m);
  control::ControllerLayout layout;
  layout.creatures = 1;
  layout.dt = m.settings.dt;
  layout.omega = 40.0;  // diffmpm3d's actuation_omega
  layout.strength.assign(static_cast<std::size_t>(actuators), 1.0);
  control::SineBank controller(layout);
  system.set_controller(&controller);
  mp::MpmLossSettings<3> s;
  s.progress_weight = 1.0;
  mp::MpmLoss<3> loss(m.particle_count, s);
  Rollout rollout(system, loss, steps, {.checkpoint = CheckpointPolicy::parse("binomial:32")});
  const double forward = time_of([&] { rollout.loss(); });
  json out = descend(rollout, controller, iterations, 30.0);
  out["particles"] = m.particle_count;
  out["forward_s"] = forward;
  return out;
}

// A 3D block of side^3 particles (two per cell and axis) on a grid of nodes^3, its gradient with
// respect to the initial velocities over `steps` steps under binomial:`states`.
json memory_3d(int nodes, int side, int steps, int states, int threads) {
  set_thread_count(threads);
  mp::MpmModel<3> m;
  for (int d = 0; d < 3; ++d) m.settings.nodes[d] = nodes;
  m.settings.dx = 1.0 / nodes;
  m.settings.dt = 2e-4;
  m.settings.gravity[2] = -9.8;
  mp::BodyOptions<3> b;
  for (int d = 0; d < 3; ++d) {
    b.half_extent[d] = 0.25 * side / nodes;
    b.centre[d] = 0.5;
  }
  b.youngs = 1e4;
  b.density = 1e3;
  m.add_body(b);
  m.initial_velocity.set_differentiable(true);
  mp::Mpm<3> system(m);
  mp::MpmLossSettings<3> s;
  s.progress_weight = 1.0;
  mp::MpmLoss<3> loss(m.particle_count, s);
  Rollout rollout(system, loss, steps, {.checkpoint = CheckpointPolicy::parse("binomial:" + std::to_string(states))});
  const double forward = time_of([&] { rollout.loss(); });
  const double gradient = time_of([&] { rollout.loss_and_gradient(); });
  return {{"particles", m.particle_count}, {"forward_s", forward}, {"gradient_s", gradient},
          {"state_mb", system.state_size() * 8.0 / 1e6}, {"stored_mb", rollout.stats().stored_bytes / 1e6}};
}

}  // namespace

void mpm_benchmarks(const std::regex& filter, int steps, int repeats, int threads, const std::function<void(const json&)>& report) {
  for (const auto& [grid_nodes, particle_side] : {std::pair{128, 35}, std::pair{512, 140}}) {
    const int nodes = grid_nodes, side = particle_side;  // lambdas below capture these (clang 14 cannot capture bindings)
    const int t = nodes > 128 ? std::max(1, steps / 10) : steps;
    const std::string tag = "particles:" + std::to_string(4 * side * side) + "/steps:" + std::to_string(t);
    if (std::regex_search("mpm_forward/" + tag, filter)) {
      const json run = in_child([&] { return measure(nodes, side, t, repeats, threads, CheckpointPolicy::parse("all")); });
      const json ref = in_child([&] { return measure_reference(nodes, side, t, repeats); });
      report(entry_against_reference("mpm_forward/" + tag, run, ref, "hand-written MLS-MPM loop, same physics, 1 thread", threads));
    }
    if (std::regex_search("mpm_memory/" + tag, filter))
      for (const std::string policy : {"all", "binomial:10"}) {
        const json run = in_child([&] { return measure(nodes, side, t, 1, threads, CheckpointPolicy::parse(policy)); });
        json b = entry_without_reference("mpm_memory/" + tag + "/" + policy, run);
        b["stored_mb"] = run.value("stored_mb", 0.0);
        report(b);
      }
  }
  // Side by side with NVIDIA Warp's CPU backend on the same block and steps (bench/peers/mpm_warp.py).
  const std::string peers = "mpm_peers/warp/particles:4900/steps:200";
  if (std::regex_search(peers, filter)) {
    const json run = in_child([&] { return measure(128, 35, 200, repeats, threads, CheckpointPolicy::parse("all")); });
    json b = entry_without_reference(peers, run);
    const std::string python = venv_peer_python("warp");
    const json peer = python.empty() ? json{{"error", "warp-lang not installed (scripts/setup_bench.sh)"}}
                                     : run_peer(python, "mpm_warp.py", {{"nodes", 128}, {"side", 35}, {"steps", 200}, {"repeats", repeats}, {"threads", threads}},
                                                std::filesystem::temp_directory_path() / "simgrad_mpm_warp.json");
    b["peer"] = peer;
    if (!peer.contains("error")) {
      b["forward_over_warp"] = b["forward_s"].get<double>() / peer["forward_s"].get<double>();
      b["gradient_over_warp"] = b["gradient_s"].get<double>() / peer["gradient_s"].get<double>();
    }
    report(b);
  }
  const int iterations = 100;
  const std::string name = "mpm_diffmpm/steps:1023/iterations:" + std::to_string(iterations);
  if (std::regex_search(name, filter)) {
    const json run = in_child([&] { return diffmpm(iterations, threads); });
    json b = entry_without_reference(name, run);
    b["losses"] = run.value("losses", json::array());
    b["particles"] = run.value("particles", 0);
    // DiffTaichi's own engine on the same task, CPU backend, double precision (bench/peers/diffmpm_taichi.py).
    const std::string python = venv_peer_python("taichi");
    const json peer = python.empty() ? json{{"error", "taichi not installed (scripts/setup_bench.sh)"}}
                                     : run_peer(python, "diffmpm_taichi.py", {{"threads", threads}, {"steps", 1023}, {"repeats", repeats}, {"iterations", iterations}},
                                                std::filesystem::temp_directory_path() / "simgrad_mpm_taichi.json");
    b["peer"] = peer;
    if (!peer.contains("error")) {
      b["forward_over_taichi"] = b["forward_s"].get<double>() / peer["forward_s"].get<double>();
      b["gradient_over_taichi"] = b["gradient_s"].get<double>() / peer["gradient_s"].get<double>();
    }
    report(b);
  }
  const std::string robot3d = "mpm_diffmpm_3d/steps:512/iterations:3";
  if (std::regex_search(robot3d, filter)) {
    const json run = in_child([&] { return diffmpm_3d(512, 3, threads); });
    json b = entry_without_reference(robot3d, run);
    b["losses"] = run.value("losses", json::array());
    b["particles"] = run.value("particles", 0);
    report(b);
  }
  const std::string big = "mpm_3d_memory/particles:1000000/steps:8/binomial:3";
  if (std::regex_search(big, filter)) {
    const json run = in_child([&] { return memory_3d(128, 100, 8, 3, threads); });
    json b = entry_without_reference(big, run);
    for (const char* k : {"particles", "state_mb", "stored_mb"}) b[k] = run.value(k, json());
    report(b);
  }
}

}  // namespace simgrad::app
