// `simgrad bench`: the engine's figures of merit, measured side by side in one run.
//
// For 3D mass-spring jelly blocks of about 1e3, 1e5 and 1e6 springs over T steps:
//   forward_s, gradient_s and their ratio (the gradient includes its forward pass);
//   reference_s, the same forward physics as a hand-written loop, and ours_over_reference, both
//   single-threaded so the comparison is of code, not of parallelism;
//   peak_rss_mb of the process that ran the gradient.
// And the memory benchmark: T = 10,000 steps under `all` and `binomial:S` with S = 2 sqrt(T).
// The machine's limits (machine_limits.cpp) come first; the jelly entries report the fraction of
// them their forward pass reaches.
// Every configuration runs in a child process of its own, so that its peak memory is its own;
// times are medians over --repeats runs.
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <regex>
#include <string>
#include <vector>

#include "bench/bench.hpp"
#include "bench/bench_support.hpp"
#include "bench/mass_spring_reference.hpp"
#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/softbody/losses.hpp"
#include "sims/softbody/mass_spring.hpp"
#include "sims/structure/bridge_generator.hpp"
#include "sims/structure/rating.hpp"
#include "sims/vehicle/manoeuvre.hpp"
#include "sims/vehicle/telemetry_loss.hpp"

namespace simgrad::app {

using nlohmann::json;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

// Wall time of f().
double time_of(const std::function<void()>& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// CPU time of f(), all threads of the process.
double cpu_time_of(const std::function<void()>& f) {
  const std::clock_t start = std::clock();
  f();
  return static_cast<double>(std::clock() - start) / CLOCKS_PER_SEC;
}

// How many times to repeat a measurement: at least `repeats`, and for short runs enough for
// about a second in all (at most 50), so that medians of millisecond runs are not noise.
int repeats_for(double seconds_per_run, int repeats) {
  const int for_a_second = seconds_per_run > 0 ? static_cast<int>(1.0 / seconds_per_run) : 50;
  return std::min(50, std::max(repeats, for_a_second));
}

// Runs `body` in a child process; returns its JSON result with the child's peak RSS added.
json in_child(const std::function<json()>& body) {
  int fds[2];
  if (pipe(fds) != 0) throw std::runtime_error("bench: pipe failed");
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error("bench: fork failed");
  if (pid == 0) {
    close(fds[0]);
    std::string text;
    try {
      text = body().dump();
    } catch (const std::exception& e) {
      text = json{{"error", e.what()}}.dump();
    }
    std::size_t written = 0;
    while (written < text.size()) {
      const ssize_t w = write(fds[1], text.data() + written, text.size() - written);
      if (w <= 0) break;
      written += static_cast<std::size_t>(w);
    }
    close(fds[1]);
    _exit(0);
  }
  close(fds[1]);
  std::string text;
  char buffer[4096];
  ssize_t r;
  while ((r = read(fds[0], buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(r));
  close(fds[0]);
  int status = 0;
  struct rusage usage {};
  wait4(pid, &status, 0, &usage);
  json result = text.empty() ? json{{"error", "benchmark process died"}} : json::parse(text);
  result["peak_rss_mb"] = static_cast<double>(usage.ru_maxrss) / 1024.0;
  return result;
}

std::string peer_python() {
  if (const char* p = std::getenv("SIMGRAD_PYTHON")) return p;
  for (const char* candidate : {"/usr/bin/python3", "python3"})
    if (std::system((std::string(candidate) + " -c 'import torch' > /dev/null 2>&1").c_str()) == 0) return candidate;
  return "";
}

std::string venv_peer_python(const std::string& module) {
  const char* given = std::getenv("SIMGRAD_MPM_PYTHON");
  const std::string python = given != nullptr ? given : std::string(SIMGRAD_SOURCE_DIR) + "/build-bench-venv/bin/python";
  if (std::system((python + " -c 'import " + module + "' > /dev/null 2>&1").c_str()) == 0) return python;
  return "";
}

json run_peer(const std::string& python, const std::string& script, const json& settings,
              const std::filesystem::path& settings_file) {
  std::FILE* f = std::fopen(settings_file.c_str(), "w");
  if (f == nullptr) return {{"error", "cannot write " + settings_file.string()}};
  std::fputs(settings.dump().c_str(), f);
  std::fclose(f);
  const std::string path = std::string(SIMGRAD_SOURCE_DIR) + "/bench/peers/" + script;
  std::FILE* pipe = popen((python + " " + path + " " + settings_file.string()).c_str(), "r");
  std::string text;
  char buffer[4096];
  std::size_t r;
  while ((r = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) text.append(buffer, r);
  const int status = pclose(pipe);
  if (status != 0 || text.empty()) return {{"error", "the peer " + script + " failed (exit status " + std::to_string(status) + ")"}};
  // The result is the last line: some engines print a banner first.
  const std::size_t end = text.find_last_not_of('\n');
  const std::size_t start = text.rfind('\n', end);
  return json::parse(text.substr(start == std::string::npos ? 0 : start + 1, end + 1 - (start == std::string::npos ? 0 : start + 1)));
}

double gradient_difference(const json& a, const json& b) {
  double worst = 0.0, scale = 0.0;
  auto compare = [&](const json& x, const json& y) {
    for (std::size_t k = 0; k < x.size() && k < y.size(); ++k) {
      worst = std::max(worst, std::abs(x[k].get<double>() - y[k].get<double>()));
      scale = std::max(scale, std::abs(x[k].get<double>()));
    }
  };
  auto as_array = [](const json& v) { return v.is_array() ? v : json::array({v}); };
  if (a.is_array()) {
    compare(a, as_array(b));
  } else {
    for (const auto& item : a.items())
      if (b.contains(item.key())) compare(as_array(item.value()), as_array(b[item.key()]));
  }
  return scale > 0.0 ? worst / scale : worst;
}

// Medians of the forward times of a rollout and of a hand-written reference that returns the
// same final state, interleaved, and the largest difference between their final states.
json time_against_reference(Rollout& rollout, const std::function<std::vector<double>()>& reference_run, int repeats) {
  std::vector<double> ours, reference;
  double max_difference = 0.0;
  const int runs = repeats_for(time_of([&] { rollout.loss(); }), repeats);
  for (int r = 0; r < runs; ++r) {
    ours.push_back(time_of([&] { rollout.loss(); }));
    std::vector<double> state;
    reference.push_back(time_of([&] { state = reference_run(); }));
    for (std::size_t i = 0; i < state.size(); ++i)
      max_difference = std::max(max_difference, std::abs(state[i] - rollout.final_state()[i]));
  }
  return {{"forward_1thread_s", median(ours)}, {"reference_s", median(reference)}, {"max_state_difference", max_difference}};
}

namespace {

namespace sb = simgrad::softbody;

// Medians of forward and gradient times of a rollout, interleaved.
json time_rollout(Rollout& rollout, int repeats) {
  std::vector<double> forward, gradient;
  const int runs = repeats_for(time_of([&] { rollout.loss_and_gradient(); }), repeats);
  for (int r = 0; r < runs; ++r) {
    forward.push_back(time_of([&] { rollout.loss(); }));
    gradient.push_back(time_of([&] { rollout.loss_and_gradient(); }));
  }
  return {{"forward_s", median(forward)}, {"gradient_s", median(gradient)}, {"runs", runs}};
}

// A jelly block of side n on a penalty ground, falling and bouncing.
sb::MassSpringModel<3> bench_block(int n, int steps) {
  sb::MassSpringModel<3> m = sb::make_jelly_block(n, n, n, 0.02, {{0.0, 0.0, 0.01}}, steps);
  m.settings.dt = 5e-4;
  m.settings.drag = 0.5;
  m.settings.penalty = {2e4, 2e3, 0.05};
  for (double& k : m.stiffness.values()) k = 1e3;
  for (double& c : m.damping.values()) c = 0.2;
  for (double& w : m.inverse_mass.values()) w = 100.0;  // 10 g per node
  m.gravity.values()[2] = -9.8;
  sb::ContactPlane<3> ground;
  ground.normal = {{0.0, 0.0, 1.0}};
  ground.friction = 0.5;
  m.planes.push_back(ground);
  m.enable_adjoints(true, true, true, false, false, true, true);
  return m;
}

// Springs in a jelly block of side n: edges, face diagonals and body diagonals.
double springs_of(int n) {
  const double m = n - 1.0;
  return 3.0 * n * n * m + 6.0 * n * m * m + 4.0 * m * m * m;
}

// The side of the jelly block whose spring count is nearest (in ratio) to `springs`.
int side_for(double springs) {
  int best = 2;
  for (int n = 2; n < 200; ++n)
    if (std::abs(std::log(springs_of(n) / springs)) < std::abs(std::log(springs_of(best) / springs))) best = n;
  return best;
}

// The least one forward step of a jelly block moves and computes, against which the machine's
// limits are read. Each spring (spring_force.hpp) reads its two node indices and its stiffness,
// damping and rest length: 32 bytes; each node reads its position, velocity, force and inverse
// mass, and writes its force and next position and velocity: 152 bytes. Flops of a spring,
// counted on its law: d 3, |d| 5 and a square root, + epsilon 1, 1 / l a division, u 3,
// v_b - v_a 3, its dot with u 5, the tension 4, T u 3, the deposits into both ends 6: 35, one
// square root and one division among them. Of a node (integrate.hpp): the decayed velocity, w f + g
// and its step 15, the position 6: 21, its plane contact (an exponential and a logarithm) left out.
StepCost jelly_step_cost(double springs, double nodes) {
  return {32.0 * springs + 152.0 * nodes, 35.0 * springs + 21.0 * nodes, springs};
}

}  // namespace

json fractions_of_limits(const StepCost& cost, int steps, double seconds, int threads, const json& limits) {
  const std::string suffix = threads == 1 ? "_1thread" : "";
  auto limit = [&](const std::string& key) { return limits.value(key + suffix, 0.0); };
  const double mul_add_peak = std::max({limit("scalar_mul_add_gflops"), limit("sse2_mul_add_gflops"),
                                        limit("avx2_mul_add_gflops")});
  const double vector_divider = std::max(limit("scalar_sqrt_div_giga_per_s"), limit("avx2_sqrt_div_giga_per_s"));
  const double gb_s = cost.bytes * steps / seconds * 1e-9, gflops = cost.flops * steps / seconds * 1e-9;
  const double roots = cost.square_roots * steps / seconds * 1e-9;
  auto fraction = [](double achieved, double peak) { return peak > 0.0 ? json(achieved / peak) : json(nullptr); };
  json out = {{"gb_s", gb_s},
              {"gflops", gflops},
              {"fraction_of_triad", fraction(gb_s, limit("triad_gb_s"))},
              {"fraction_of_mul_add_peak", fraction(gflops, mul_add_peak)}};
  if (cost.square_roots > 0.0) {
    out["fraction_of_scalar_sqrt_div"] = fraction(roots, limit("scalar_sqrt_div_giga_per_s"));
    out["fraction_of_vector_sqrt_div"] = fraction(roots, vector_divider);
  }
  return out;
}

namespace {

// The jelly's loss: every node's distance to where it started, 5 mm lower, at the first and the
// last step (the frame of `target`, n x 3 values, twice).
std::vector<double> jelly_target(const sb::MassSpringModel<3>& m) {
  std::vector<double> target(m.initial_position.values().begin(), m.initial_position.values().end());
  for (std::size_t i = 2; i < target.size(); i += 3) target[i] -= 0.005;
  return target;
}
sb::TrajectoryMatchLoss<3> jelly_loss(sb::MassSpring<3>& system, int steps) {
  const sb::MassSpringModel<3>& m = system.model();
  std::vector<std::int32_t> markers;
  for (Index i = 0; i < m.node_count; ++i) markers.push_back(static_cast<std::int32_t>(i));
  std::vector<double> frames = jelly_target(m);
  frames.insert(frames.end(), frames.begin(), frames.end());
  return sb::TrajectoryMatchLoss<3>(system, markers, steps, frames);
}

// Forward and gradient of one block under a policy, medians over repeats.
json measure_rollout(int side, int steps, const std::string& policy, int repeats, int threads) {
  set_thread_count(threads);
  sb::MassSpringModel<3> m = bench_block(side, steps);
  sb::MassSpring<3> system(m);
  sb::TrajectoryMatchLoss<3> loss = jelly_loss(system, steps);
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse(policy);
  Rollout rollout(system, loss, steps, options);
  json out = time_rollout(rollout, repeats);
  out.update({{"springs", m.spring_count()},
              {"nodes", m.node_count},
              {"stored_mb", static_cast<double>(rollout.stats().stored_bytes) / (1024.0 * 1024.0)},
              {"forward_steps", rollout.stats().forward_steps}});
  return out;
}

// The jelly block as its peers read it (bench/peers/jelly_*.py): nodes, springs, constants, the
// ground and the loss's target frame.
json jelly_model_json(int side, int steps) {
  const sb::MassSpringModel<3> m = bench_block(side, steps);
  const sb::ContactPlane<3>& ground = m.planes.at(0);
  std::vector<std::int32_t> springs;
  for (Index s = 0; s < m.spring_count(); ++s)
    for (int end = 0; end < 2; ++end) springs.push_back(static_cast<std::int32_t>(m.springs.node(s, end)));
  return {{"position", m.initial_position.values()},
          {"velocity", m.initial_velocity.values()},
          {"springs", springs},
          {"stiffness", m.stiffness.values()},
          {"damping", m.damping.values()},
          {"rest_length", m.rest_length.values()},
          {"inverse_mass", m.inverse_mass.values()},
          {"gravity", m.gravity.values()},
          {"dt", m.settings.dt},
          {"drag", m.settings.drag},
          {"length_epsilon", m.settings.length_epsilon},
          {"penalty", {{"stiffness", m.settings.penalty.stiffness},
                       {"sharpness", m.settings.penalty.sharpness},
                       {"friction_speed", m.settings.penalty.friction_speed}}},
          {"plane", {{"normal", ground.normal.c}, {"offset", ground.offset}, {"friction", ground.friction}}},
          {"reference", jelly_target(m)}};
}

// The jelly's loss and its gradient with respect to the initial velocities and the stiffnesses,
// which the peers must reproduce.
json jelly_loss_and_gradient(int side, int steps, int threads) {
  set_thread_count(threads);
  sb::MassSpringModel<3> m = bench_block(side, steps);
  sb::MassSpring<3> system(m);
  sb::TrajectoryMatchLoss<3> loss = jelly_loss(system, steps);
  Rollout rollout(system, loss, steps);
  const double value = rollout.loss_and_gradient();
  return {{"loss", value},
          {"gradient", {{"initial_velocity", m.initial_velocity.adjoints()}, {"stiffness", m.stiffness.adjoints()}}}};
}

// Forward time of the engine and of the hand-written loop, single-threaded, interleaved.
json measure_reference(int side, int steps, int repeats) {
  set_thread_count(1);
  sb::MassSpringModel<3> m = bench_block(side, steps);
  sb::MassSpring<3> system(m);
  sb::TrajectoryMatchLoss<3> loss(system, {0}, steps, std::vector<double>(6, 0.0));
  Rollout rollout(system, loss, steps);
  return time_against_reference(rollout, [&] { return reference_mass_spring_rollout(m, steps); }, repeats);
}

// A batch of BMW 320i cars (single-track or four-wheel) fitted to a recorded manoeuvre, window k
// starting at sample k mod steps; `reference`: the same forward steps as a plain loop over cars
// and steps.
struct VehicleBench {
  vehicle::VehicleModel model = vehicle::published_vehicle("bmw_320i");
  vehicle::Telemetry telemetry;
  std::unique_ptr<vehicle::VehicleBatch> system;
  std::unique_ptr<vehicle::TelemetryLoss> loss;

  VehicleBench(int cars, int steps, vehicle::ChassisModel chassis) {
    model.settings.chassis = chassis;
    vehicle::ManoeuvreOptions o;
    o.duration = 2.0 * steps * model.settings.dt;
    telemetry = vehicle::drive_manoeuvre(model, o);
    vehicle::TelemetryFit fit;
    fit.steps = steps;
    for (int k = 0; k < cars; ++k) fit.starts.push_back(k % steps);
    fit.scale = vehicle::channel_scales(telemetry);
    fit.weight.fill(1.0);
    vehicle::setup_windows(model, telemetry, fit);
    system = std::make_unique<vehicle::VehicleBatch>(model);
    loss = std::make_unique<vehicle::TelemetryLoss>(*system, telemetry, fit);
  }

  // The final states of all cars by a plain loop calling the step function directly.
  std::vector<double> reference_rollout() const {
    vehicle::Params<double> p;
    for (int i = 0; i < vehicle::kParamCount; ++i) p[i] = model.params.values()[i];
    std::vector<double> out(static_cast<std::size_t>(system->state_size()));
    std::copy(model.initial_state.values().begin(), model.initial_state.values().end(), out.begin());
    const bool four = system->four_wheel();
    double* chassis_out = out.data() + model.initial_state.values().size();
    for (int k = 0; k < model.cars; ++k) {
      vehicle::CarState<double> x;
      for (int c = 0; c < vehicle::kStateSize; ++c) x[c] = out[k * vehicle::kStateSize + c];
      vehicle::ChassisState<double> q = vehicle::rolling_chassis(x[vehicle::kVx], model.settings.wheel_radius);
      for (int t = 0; t < model.steps; ++t) {
        const double* u = model.controls.data() + (static_cast<std::size_t>(t) * model.cars + k) * vehicle::kControlSize;
        if (four) {
          const vehicle::FourWheelState<double> n = vehicle::four_wheel_step(
              p, model.settings, x, q, u[vehicle::kSteer], u[vehicle::kThrottle], u[vehicle::kBrake]);
          x = n.car;
          q = n.chassis;
        } else {
          x = vehicle::single_track_step(p, model.settings, x, u[vehicle::kSteer], u[vehicle::kThrottle], u[vehicle::kBrake]);
        }
      }
      for (int c = 0; c < vehicle::kStateSize; ++c) out[k * vehicle::kStateSize + c] = x[c];
      if (four) std::copy(q.c, q.c + vehicle::kChassisSize, chassis_out + k * vehicle::kChassisSize);
    }
    return out;
  }
};

// Forward and gradient of a batch of cars, medians over repeats.
json measure_vehicle(int cars, int steps, int repeats, int threads, vehicle::ChassisModel chassis) {
  set_thread_count(threads);
  VehicleBench bench(cars, steps, chassis);
  Rollout rollout(*bench.system, *bench.loss, steps);
  return time_rollout(rollout, repeats);
}

// Forward time of the engine (its loss included) and of the plain loop, single-threaded, interleaved.
json measure_vehicle_reference(int cars, int steps, int repeats, vehicle::ChassisModel chassis) {
  set_thread_count(1);
  VehicleBench bench(cars, steps, chassis);
  Rollout rollout(*bench.system, *bench.loss, steps);
  return time_against_reference(rollout, [&] { return bench.reference_rollout(); }, repeats);
}

}  // namespace

// A benchmark's entry from its run alone (bench_support.hpp).
json entry_without_reference(const std::string& name, const json& run) {
  const double forward = run.value("forward_s", 0.0), gradient = run.value("gradient_s", 0.0);
  json b = {{"name", name},
            {"forward_s", forward},
            {"gradient_s", gradient},
            {"gradient_over_forward", forward > 0.0 ? gradient / forward : 0.0},
            {"reference", nullptr},
            {"reference_s", nullptr},
            {"ours_over_reference", nullptr},
            {"peak_rss_mb", run["peak_rss_mb"]}};
  if (run.contains("error")) b["error"] = run["error"];
  return b;
}

// A benchmark's entry against its reference run (bench_support.hpp).
json entry_against_reference(const std::string& name, const json& run, const json& ref, const std::string& reference,
                             int threads) {
  json b = {{"name", name},
            {"forward_s", run.value("forward_s", 0.0)},
            {"gradient_s", run.value("gradient_s", 0.0)},
            {"gradient_over_forward", run.value("gradient_s", 0.0) / run.value("forward_s", 1.0)},
            {"reference", reference},
            {"forward_1thread_s", ref.value("forward_1thread_s", 0.0)},
            {"reference_s", ref.value("reference_s", 0.0)},
            {"ours_over_reference", ref.value("forward_1thread_s", 0.0) / ref.value("reference_s", 1.0)},
            {"reference_max_state_difference", ref.value("max_state_difference", 0.0)},
            {"peak_rss_mb", run["peak_rss_mb"]},
            {"threads", threads > 0 ? threads : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN))}};
  if (run.contains("error")) b["error"] = run["error"];
  return b;
}

namespace {

// Rating and its full gradient (every joint position and member area) of a Pratt bridge of
// about `members` members under `cases` load cases: self-weight and a vehicle at a different
// deck joint in each.
json measure_structure(int members, int cases, int repeats, int threads) {
  namespace st = simgrad::structure;
  set_thread_count(threads);
  const int panels = (members + 6) / 4;  // a Pratt truss of n panels has 4n - 3 members
  st::Structure s = st::make_bridge(st::BridgeType::pratt, panels, 4.0, 5.0, {"steel", 2e11, 2.5e8, 7850, 1.5},
                                    {"tube", 4e-3, 2e-5, 2e-4});
  for (int c = 0; c < cases; ++c)
    s.model.load_cases.push_back({"vehicle", {{1 + (panels - 2) * c / std::max(1, cases - 1), {0, -2e5, 0}}}, true, {0, -9.81, 0}});
  s.model.rating.weights = {0.0, 1e-3, 1.0, 10.0, 1.0, 10.0, 0.0};
  st::StructureAnalysis analysis(s.model);
  st::Design gradient;
  std::vector<double> forward, backward;
  const int runs = repeats_for(time_of([&] { analysis.rate_with_gradient(s.design, gradient); }), repeats);
  for (int r = 0; r < runs; ++r) {
    forward.push_back(time_of([&] { analysis.rate(s.design); }));
    backward.push_back(time_of([&] { analysis.rate_with_gradient(s.design, gradient); }));
  }
  return {{"forward_s", median(forward)}, {"gradient_s", median(backward)}, {"runs", runs},
          {"members", s.model.members.size()}, {"joints", s.model.joint_count}};
}

}  // namespace

json peer_table(const json& benchmarks) {
  json rows = json::array();
  auto row = [&](const json& b, const std::string& peer, const json& forward, const json& gradient, const json& memory,
                 const json& loss_difference, const json& gradient_difference) {
    const double ours_forward = b.value("forward_s", 0.0), ours_gradient = b.value("gradient_s", 0.0);
    auto over = [](double ours, const json& theirs) {
      return theirs.is_number() && theirs.get<double>() > 0.0 ? json(ours / theirs.get<double>()) : json(nullptr);
    };
    rows.push_back({{"benchmark", b.value("name", "")},
                    {"peer", peer},
                    {"forward_s", ours_forward},
                    {"peer_forward_s", forward},
                    {"forward_ours_over_peer", over(ours_forward, forward)},
                    {"gradient_s", ours_gradient},
                    {"peer_gradient_s", gradient},
                    {"gradient_ours_over_peer", over(ours_gradient, gradient)},
                    {"peak_rss_mb", b.value("peak_rss_mb", json(nullptr))},
                    {"peer_peak_rss_mb", memory},
                    {"loss_difference", loss_difference},
                    {"gradient_max_rel_difference", gradient_difference}});
  };
  const json none;
  for (const json& b : benchmarks) {
    // Entries beside several peers hold each peer's figures in an object of its own.
    for (const char* peer : {"taichi", "warp", "torch"})
      if (b.contains(peer) && b[peer].is_object() && !b[peer].contains("error")) {
        const json& p = b[peer];
        row(b, peer, p["forward_s"], p["gradient_s"], p.value("peak_rss_mb", none), p.value("loss_relative_difference", none),
            p.value("gradient_max_rel_difference", none));
      }
    if (b.contains("peer") && b["peer"].is_object() && !b["peer"].contains("error")) {
      const json& p = b["peer"];
      row(b, p.contains("taichi") ? "taichi" : "warp", p["forward_s"], p["gradient_s"], p.value("peak_rss_mb", none), none, none);
    }
    // The PyTorch peers' figures are the entry's reference_* fields.
    if (b.contains("reference_s") && b.contains("reference_forward_s"))
      row(b, "torch", b["reference_forward_s"], b["reference_s"], b.value("reference_peak_rss_mb", none),
          b.value("loss_difference", none), b.value("gradient_max_rel_difference", none));
  }
  return rows;
}

json run_benchmarks(const BenchOptions& options, int threads, const std::function<void(const json&)>& report_entry) {
  const std::regex filter(options.peers && options.filter.empty() ? kPeerBenchmarks
                          : options.filter.empty()                ? ".*"
                                                                  : options.filter);
  const int repeats = std::max(1, options.repeats);
  json benchmarks = json::array();
  auto report = [&](const json& b) {
    benchmarks.push_back(b);
    report_entry(b);
  };
  const int team = threads > 0 ? threads : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));

  // The machine's limits, measured once, the first time an entry is read against them.
  json limits;
  auto machine_limits = [&]() -> const json& {
    if (limits.is_null()) limits = in_child([&] { return measure_machine_limits(threads, std::max(repeats, 5)); });
    return limits;
  };
  if (std::regex_search("machine_limits", filter)) {
    json b = machine_limits();
    b["name"] = "machine_limits";
    report(b);
  }

  for (double size : {1e3, 1e5, 1e6}) {
    const std::string name = "mass_spring/springs:" + std::to_string(static_cast<long>(size)) +
                             "/steps:" + std::to_string(options.steps);
    if (!std::regex_search(name, filter)) continue;
    const int side = side_for(size);
    json run = in_child([&] { return measure_rollout(side, options.steps, "all", repeats, threads); });
    json ref = in_child([&] { return measure_reference(side, options.steps, repeats); });
    json b = entry_against_reference(name, run, ref, "hand-written plain C++ loop, same physics, 1 thread", threads);
    b["springs"] = run.value("springs", 0);
    b["thread_speedup"] = ref.value("forward_1thread_s", 0.0) / run.value("forward_s", 1.0);
    const StepCost cost = jelly_step_cost(run.value("springs", 0.0), run.value("nodes", 0.0));
    b["forward_limits"] = fractions_of_limits(cost, options.steps, run.value("forward_s", 1.0), team, machine_limits());
    b["forward_1thread_limits"] = fractions_of_limits(cost, options.steps, ref.value("forward_1thread_s", 1.0), 1, machine_limits());
    report(b);
  }

  // The jelly of about 10^5 springs beside the same model, loss and steps in DiffTaichi's engine
  // (taichi) and NVIDIA Warp, both on their CPU backends, and in plain PyTorch
  // (bench/peers/jelly_*.py, written here; scripts/setup_bench.sh installs them): times, memory,
  // and whether loss and gradient agree.
  const int peer_side = side_for(1e5);
  const std::string peers_name = "mass_spring_peers/springs:" + std::to_string(static_cast<long>(springs_of(peer_side))) +
                                 "/steps:" + std::to_string(options.steps);
  if (std::regex_search(peers_name, filter)) {
    const int steps = options.steps;
    const json run = in_child([&] { return measure_rollout(peer_side, steps, "all", repeats, threads); });
    const json ours = in_child([&] { return jelly_loss_and_gradient(peer_side, steps, threads); });
    json b = entry_without_reference(peers_name, run);
    b["springs"] = run.value("springs", 0);
    b["loss"] = ours.value("loss", 0.0);
    const json settings = {{"model", jelly_model_json(peer_side, steps)}, {"steps", steps}, {"repeats", repeats}, {"threads", team}};
    for (const std::string peer : {"taichi", "warp", "torch"}) {
      const std::string python = peer == "torch" ? peer_python() : venv_peer_python(peer);
      json p = python.empty() ? json{{"error", peer + " not installed (scripts/setup_bench.sh)"}}
                              : run_peer(python, "jelly_" + peer + ".py", settings,
                                         std::filesystem::temp_directory_path() / ("simgrad_jelly_" + peer + ".json"));
      if (!p.contains("error")) {
        p["forward_ours_over_peer"] = b["forward_s"].get<double>() / p["forward_s"].get<double>();
        p["gradient_ours_over_peer"] = b["gradient_s"].get<double>() / p["gradient_s"].get<double>();
        p["loss_relative_difference"] = std::abs(p.value("loss", 0.0) - ours.value("loss", 0.0)) / std::abs(ours.value("loss", 1.0));
        p["gradient_max_rel_difference"] = gradient_difference(ours["gradient"], p["gradient"]);
        p.erase("gradient");
      }
      b[peer] = p;
    }
    report(b);
  }

  // Single-track and four-wheel cars: one car over a long recording, and 10,000 cars
  // (multiple-shooting windows, or a fleet) batched.
  for (const auto chassis : {vehicle::ChassisModel::kSingleTrack, vehicle::ChassisModel::kFourWheel})
  for (const std::pair<int, int>& size : {std::pair{1, 10000}, std::pair{10000, 200}}) {
    // Plain variables, not a structured binding: clang 14 (the fuzz build) cannot capture one.
    const int cars = size.first, steps = size.second;
    const std::string name = std::string(chassis == vehicle::ChassisModel::kFourWheel ? "vehicle_four_wheel" : "vehicle_single_track") +
                             "/cars:" + std::to_string(cars) + "/steps:" + std::to_string(steps);
    if (!std::regex_search(name, filter)) continue;
    json run = in_child([&] { return measure_vehicle(cars, steps, repeats, threads, chassis); });
    json ref = in_child([&] { return measure_vehicle_reference(cars, steps, repeats, chassis); });
    json b = entry_against_reference(
        name, run, ref, "plain loop over cars and steps calling the same step function, no loss, 1 thread", threads);
    b["car_steps_per_s"] = static_cast<double>(cars) * steps / run.value("forward_s", 1.0);
    report(b);
  }

  const int long_steps = 10000;
  const std::string memory_name = "mass_spring_memory/springs:10000/steps:10000";
  if (std::regex_search(memory_name, filter)) {
    const int side = side_for(1e4);
    const int s = static_cast<int>(std::lround(2 * std::sqrt(static_cast<double>(long_steps))));
    const std::string binomial = "binomial:" + std::to_string(s);
    json all = in_child([&] { return measure_rollout(side, long_steps, "all", repeats, threads); });
    json bin = in_child([&] { return measure_rollout(side, long_steps, binomial, repeats, threads); });
    report({{"name", memory_name},
            {"springs", all.value("springs", 0)},
            {"policy", binomial},
            {"forward_s", bin.value("forward_s", 0.0)},
            {"gradient_s", bin.value("gradient_s", 0.0)},
            {"gradient_over_forward", bin.value("gradient_s", 0.0) / bin.value("forward_s", 1.0)},
            {"reference", "checkpoint policy all"},
            {"reference_s", all.value("gradient_s", 0.0)},
            {"ours_over_reference", bin.value("gradient_s", 0.0) / all.value("gradient_s", 1.0)},
            {"peak_rss_mb", bin["peak_rss_mb"]},
            {"reference_peak_rss_mb", all["peak_rss_mb"]},
            {"peak_rss_ratio", bin["peak_rss_mb"].get<double>() / all["peak_rss_mb"].get<double>()},
            {"stored_mb", bin.value("stored_mb", 0.0)},
            {"reference_stored_mb", all.value("stored_mb", 0.0)},
            {"forward_steps", bin.value("forward_steps", 0)}});
  }
  const std::string structure_name = "structure/members:10000/load_cases:20";
  if (std::regex_search(structure_name, filter)) {
    json run = in_child([&] { return measure_structure(10000, 20, repeats, threads); });
    json b = entry_without_reference(structure_name, run);
    b["members"] = run.value("members", 0);
    report(b);
  }
  contagion_benchmarks(filter, repeats, threads, report);
  creature_benchmarks(filter, repeats, threads, report);
  fluid_benchmarks(filter, repeats, threads, report);
  fem_benchmarks(filter, options.steps, repeats, threads, machine_limits, report);
  rigid_benchmarks(filter, options.steps, repeats, threads, report);
  mpm_benchmarks(filter, options.steps, repeats, threads, report);
  return benchmarks;
}

}  // namespace simgrad::app
