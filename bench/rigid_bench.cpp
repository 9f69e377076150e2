// `simgrad bench` for the rigid-body simulator, side by side with MuJoCo's own C engine (Debian's
// libmujoco-dev, 2.2.2) loading the same MJCF file, with the same timestep, integrator and
// controls:
//   rigid_forward_<model>/worlds:N/substeps:S   world-steps per second of N copies of a model
//     (simgrad's RigidWorlds, one thread per block of worlds) against MuJoCo stepping N mjData in
//     a loop on one thread and, for N > 1, in an OpenMP loop over worlds on the same threads.
//     simgrad's contact is a penalty model that needs substeps; MuJoCo's is a constraint solver,
//     so with contact the two simulate different physics (the entries say so and give both
//     final root heights).
//   rigid_gradient_<model>/steps:T[/substeps:S]  the gradient of a T-step loss with respect to
//     every control: simgrad's reverse mode against MuJoCo's finite-difference transition
//     matrices (mjd_transitionFD) at each step chained backward; times, their ratio, simgrad's
//     gradient over forward, and on the contact-free double pendulum the two gradients'
//     largest relative difference.
//   rigid_memory_<model>/worlds:N/steps:10T  peak memory of the gradient under checkpoint
//     policies `all` and `binomial:S`.
// Every configuration runs in a child process of its own; times are wall-clock medians.
#include <unistd.h>

#ifdef SIMGRAD_HAVE_MUJOCO
#include <mujoco/mujoco.h>
#endif

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/rigid/losses.hpp"
#include "sims/rigid/mjcf.hpp"
#include "sims/rigid/rigid_worlds.hpp"

namespace simgrad::app {

namespace {

using nlohmann::json;
namespace rg = simgrad::rigid;

// The substeps the rigid scenarios run penalty contact with (examples/rigid_half_cheetah_run.json).
constexpr int kScenarioSubsteps = 5;
// MuJoCo's finite-difference step for mjd_transitionFD (the value its own tools default to).
[[maybe_unused]] constexpr double kFiniteDifferenceStep = 1e-6;

// The standard MJCF file of a model (examples/data/mjcf/).
std::filesystem::path model_file(const std::string& model) {
  return std::filesystem::path(SIMGRAD_SOURCE_DIR) / "examples" / "data" / "mjcf" / (model + ".xml");
}

// How far into each actuator's control range the benchmark's controls swing: the cart of the
// double pendulum must stay clear of its rail's limits (a constraint in MuJoCo, a penalty in
// simgrad), and the ant must stay on its feet (at 0.3 MuJoCo's ant flips over within 5 s and its
// torso, which has no contact in this model, sinks through the floor).
double control_fraction(const std::string& model) { return model == "inverted_double_pendulum" ? 0.02 : 0.05; }

// Where a model starts, at rest: the ant on its feet in the pose its file gives Brax (the custom
// numeric init_qpos in ant.xml; its qpos0 has the ankles 30 degrees outside their limits, which
// kicks it off the floor), the others at qpos0 (the humanoid stands, then falls).
std::vector<double> start_qpos(const std::string& model, const rg::RigidModel& m) {
  if (model == "ant") return {0.0, 0.0, 0.55, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, -1.0, 0.0, -1.0, 0.0, 1.0};
  return m.qpos0;
}

// simgrad's model of `worlds` copies over `steps` steps, each world starting at start_qpos at
// rest, under smooth deterministic controls inside the control range (different per world and
// actuator); only the controls are differentiable.
rg::RigidModel bench_model(const std::string& model, int worlds, int steps, int substeps) {
  rg::RigidModel m = rg::load_mjcf(model_file(model), {.ignore_visual = true});
  m.settings.substeps = substeps;
  m.resize(worlds, steps);
  const std::vector<double> start = start_qpos(model, m);
  if (start.size() != static_cast<std::size_t>(m.nq)) throw std::runtime_error("bench: the start of " + model + " does not fit its nq");
  for (int w = 0; w < worlds; ++w)
    std::copy(start.begin(), start.end(), m.initial_qpos.values().begin() + static_cast<std::ptrdiff_t>(w) * m.nq);
  m.set_differentiable(false);
  m.controls.set_differentiable(true);
  const double fraction = control_fraction(model);
  const auto nu = static_cast<std::size_t>(m.nu());
  for (int t = 0; t < steps; ++t)
    for (int w = 0; w < worlds; ++w)
      for (std::size_t a = 0; a < nu; ++a) {
        const rg::Actuator& act = m.actuators[a];
        const double lo = act.ctrl_limited ? act.ctrl_range[0] : -1.0, hi = act.ctrl_limited ? act.ctrl_range[1] : 1.0;
        const double phase = 0.05 * t + 1.3 * static_cast<double>(a) + 0.7 * w;
        m.controls.values()[(static_cast<std::size_t>(t) * static_cast<std::size_t>(worlds) + static_cast<std::size_t>(w)) * nu + a] =
            0.5 * (lo + hi) + fraction * 0.5 * (hi - lo) * std::sin(phase);
      }
  return m;
}

// The loss both engines evaluate: squared distances of the final joint coordinates to the
// start's (quaternion coordinates excluded, their tangent spaces differ from qpos) and of the
// final velocities to zero, plus the controls' mean squared size.
rg::RigidLossSettings bench_loss(const rg::RigidModel& m) {
  rg::RigidLossSettings s;
  s.qpos_target.assign(m.initial_qpos.values().begin(), m.initial_qpos.values().begin() + m.nq);
  s.qpos_weight.assign(static_cast<std::size_t>(m.nq), 1.0);
  for (const rg::Joint& joint : m.joints) {
    const int first = joint.type == rg::JointType::kFree ? 3 : joint.type == rg::JointType::kBall ? 0 : -1;
    if (first < 0) continue;
    for (int k = 0; k < 4; ++k) s.qpos_weight[static_cast<std::size_t>(joint.qpos_address + first + k)] = 0.0;
  }
  s.qvel_target.assign(static_cast<std::size_t>(m.nv), 0.0);
  s.qvel_weight.assign(static_cast<std::size_t>(m.nv), 0.1);
  s.effort_weight = 0.01;
  return s;
}

// World 0's [qpos, qvel] in a batched state.
std::vector<double> first_world(const rg::RigidModel& m, std::span<const double> state) {
  return {state.begin(), state.begin() + m.nq + m.nv};
}

// How many of `steps` steps simgrad takes before a world's state stops being finite or its mass
// matrix singular (penalty contact at a model's own timestep can diverge): `steps` if none
// fails. The benchmarks then time the first half of the steps before that (the last few grow
// without bound), so that a rate is still measured on states that are still physical.
int steps_before_divergence(const std::string& model, int worlds, int steps, int substeps) {
  rg::RigidModel m = bench_model(model, worlds, steps, substeps);
  rg::RigidWorlds system(m);
  std::vector<double> state(static_cast<std::size_t>(system.state_size())), next(state.size());
  system.initial_state(state);
  for (int t = 0; t < steps; ++t) {
    try {
      system.step(t, state, next, {});
    } catch (const std::exception&) {
      return t;
    }
    state.swap(next);
  }
  return steps;
}

// The divergence fields of an entry: how many steps were timed, and at which step the run
// diverged, if it did.
void note_divergence(json& out, int steps, int stable, int timed) {
  out["timed_steps"] = timed;
  if (stable < steps) out["diverged_at_step"] = stable;
}

// simgrad's forward rollout of `worlds` worlds over `steps` steps (fewer if it diverges): medians
// of wall and CPU time, world-steps per second, world 0's final state.
// Carries a measurement's divergence (where simgrad went non-finite, how many steps were timed)
// into its benchmark entry.
void copy_divergence(const json& run, json& entry) {
  if (!run.contains("diverged_at_step")) return;
  entry["diverged_at_step"] = run["diverged_at_step"];
  entry["timed_steps"] = run["timed_steps"];
}

json measure_simgrad_forward(const std::string& model, int worlds, int steps, int substeps, int threads, int repeats) {
  set_thread_count(threads);
  const int stable = steps_before_divergence(model, worlds, steps, substeps);
  if (stable < 2) throw std::runtime_error("the first steps diverge");
  const int timed = stable == steps ? steps : stable / 2;
  rg::RigidModel m = bench_model(model, worlds, timed, substeps);
  rg::RigidWorlds system(m);
  rg::RigidLoss loss(m, bench_loss(m));
  Rollout rollout(system, loss, timed);
  const double first = time_of([&] { rollout.loss(); });  // warm-up
  std::vector<double> wall, cpu;
  const int runs = repeats_for(first, repeats);
  for (int r = 0; r < runs; ++r) cpu.push_back(cpu_time_of([&] { wall.push_back(time_of([&] { rollout.loss(); })); }));
  const double forward = median(wall);
  json out = {{"forward_s", forward},
              {"forward_cpu_s", median(cpu)},
              {"runs", runs},
              {"world_steps_per_s", static_cast<double>(worlds) * timed / forward},
              {"final_state", first_world(m, rollout.final_state())}};
  note_divergence(out, steps, stable, timed);
  return out;
}

// simgrad's forward and gradient (every control) of `worlds` worlds over `steps` steps (fewer if
// it diverges) under a checkpoint policy, interleaved: medians, the loss, the gradient when
// asked for, memory kept.
json measure_simgrad_gradient(const std::string& model, int worlds, int steps, int substeps, const std::string& policy,
                              int threads, int repeats, bool with_gradient) {
  set_thread_count(threads);
  const int stable = steps_before_divergence(model, worlds, steps, substeps);
  if (stable < 2) throw std::runtime_error("the first steps diverge");
  const int timed = stable == steps ? steps : stable / 2;
  rg::RigidModel m = bench_model(model, worlds, timed, substeps);
  rg::RigidWorlds system(m);
  rg::RigidLoss loss(m, bench_loss(m));
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse(policy);
  Rollout rollout(system, loss, timed, options);
  double value = 0.0;
  const double first = time_of([&] { value = rollout.loss_and_gradient(); });  // warm-up
  std::vector<double> forward, gradient, forward_cpu, gradient_cpu;
  const int runs = repeats_for(first, repeats);
  for (int r = 0; r < runs; ++r) {
    forward_cpu.push_back(cpu_time_of([&] { forward.push_back(time_of([&] { rollout.loss(); })); }));
    gradient_cpu.push_back(cpu_time_of([&] { gradient.push_back(time_of([&] { value = rollout.loss_and_gradient(); })); }));
  }
  json out = {{"forward_s", median(forward)},
              {"gradient_s", median(gradient)},
              {"forward_cpu_s", median(forward_cpu)},
              {"gradient_cpu_s", median(gradient_cpu)},
              {"runs", runs},
              {"loss", value},
              {"stored_mb", static_cast<double>(rollout.stats().stored_bytes) / (1024.0 * 1024.0)},
              {"forward_steps", rollout.stats().forward_steps},
              {"final_state", first_world(m, rollout.final_state())}};
  if (with_gradient) out["gradient"] = m.controls.adjoints();
  note_divergence(out, steps, stable, timed);
  return out;
}

#ifdef SIMGRAD_HAVE_MUJOCO

// A compiled MuJoCo model and one mjData per world.
struct MujocoWorlds {
  mjModel* model = nullptr;
  std::vector<mjData*> data;

  MujocoWorlds(const std::string& name, int worlds) {
    char error[1000] = "";
    model = mj_loadXML(model_file(name).c_str(), nullptr, error, sizeof error);
    if (model == nullptr) throw std::runtime_error("MuJoCo cannot load " + model_file(name).string() + ": " + error);
    for (int w = 0; w < worlds; ++w) data.push_back(mj_makeData(model));
  }
  MujocoWorlds(const MujocoWorlds&) = delete;
  MujocoWorlds& operator=(const MujocoWorlds&) = delete;
  ~MujocoWorlds() {
    for (mjData* d : data) mj_deleteData(d);
    if (model != nullptr) mj_deleteModel(model);
  }

  // World w's [qpos, qvel].
  std::vector<double> state(int w) const {
    const mjData* d = data[static_cast<std::size_t>(w)];
    std::vector<double> s(d->qpos, d->qpos + model->nq);
    s.insert(s.end(), d->qvel, d->qvel + model->nv);
    return s;
  }
};

// Puts world d back at `start` at rest at time 0 with a cold solver. mj_resetData does this too,
// but it clears all of mjData's buffers (0.15 to 0.25 ms for these models, 10 to 150 steps' worth).
void reset_state(const mjModel* m, mjData* d, const std::vector<double>& start) {
  d->time = 0.0;
  std::copy_n(start.data(), m->nq, d->qpos);
  std::fill_n(d->qvel, m->nv, 0.0);
  std::fill_n(d->act, m->na, 0.0);
  std::fill_n(d->qacc_warmstart, m->nv, 0.0);
  std::fill_n(d->ctrl, m->nu, 0.0);
}

// The start and controls of simgrad's benchmark model, to drive MuJoCo with the very same numbers.
struct BenchInputs {
  std::vector<double> start;     // qpos, the same for every world
  std::vector<double> controls;  // steps x worlds x actuators
};
BenchInputs bench_inputs(const std::string& model, int worlds, int steps) {
  const rg::RigidModel m = bench_model(model, worlds, steps, 1);
  return {{m.initial_qpos.values().begin(), m.initial_qpos.values().begin() + m.nq},
          {m.controls.values().begin(), m.controls.values().end()}};
}

// MuJoCo stepping `worlds` mjData over `steps` steps, in a loop (threads 1) or in an OpenMP loop
// over worlds: medians of wall time, world-steps per second, world 0's final state.
json measure_mujoco_forward(const std::string& model, int worlds, int steps, int threads, int repeats) {
  MujocoWorlds mj(model, worlds);
  const BenchInputs inputs = bench_inputs(model, worlds, steps);
  const std::vector<double>& controls = inputs.controls;
  const int nu = mj.model->nu;
  auto run = [&] {
    // Worlds are independent; each thread steps whole worlds, one mjData each.
#pragma omp parallel for num_threads(threads) schedule(static) if (threads > 1)
    for (int w = 0; w < worlds; ++w) {
      mjData* d = mj.data[static_cast<std::size_t>(w)];
      reset_state(mj.model, d, inputs.start);
      for (int t = 0; t < steps; ++t) {
        std::copy_n(controls.data() + (static_cast<std::size_t>(t) * static_cast<std::size_t>(worlds) + static_cast<std::size_t>(w)) * static_cast<std::size_t>(nu),
                    nu, d->ctrl);
        mj_step(mj.model, d);
      }
    }
  };
  const double first = time_of(run);  // warm-up
  std::vector<double> wall, cpu;
  const int runs = repeats_for(first, repeats);
  for (int r = 0; r < runs; ++r) cpu.push_back(cpu_time_of([&] { wall.push_back(time_of(run)); }));
  const double forward = median(wall);
  return {{"forward_s", forward},
          {"forward_cpu_s", median(cpu)},
          {"runs", runs},
          {"world_steps_per_s", static_cast<double>(worlds) * steps / forward},
          {"final_state", mj.state(0)}};
}

// The gradient of bench_loss over `steps` steps with respect to every control by MuJoCo's
// finite differences: at each step of the forward pass mjd_transitionFD gives
// A = d x_{t+1} / d x_t and B = d x_{t+1} / d u_t (x in MuJoCo's tangent space,
// [dqpos (nv), qvel (nv)]); the backward pass chains the vector-Jacobian products
// g_t = A_t^T g_{t+1} and dL/du_t = B_t^T g_{t+1} + the control cost's derivative.
json measure_mujoco_gradient(const std::string& model, int steps, bool centered, int repeats, bool with_gradient) {
  MujocoWorlds mj(model, 1);
  const mjModel* m = mj.model;
  mjData* d = mj.data[0];
  const BenchInputs inputs = bench_inputs(model, 1, steps);
  const std::vector<double>& controls = inputs.controls;
  const rg::RigidLossSettings loss = bench_loss(bench_model(model, 1, 0, 1));
  const int nv = m->nv, nu = m->nu, n = 2 * nv + m->na;
  const auto un = static_cast<std::size_t>(n), unu = static_cast<std::size_t>(nu);
  // Each qpos coordinate's index in the tangent space, -1 for quaternion coordinates (weight 0).
  std::vector<int> tangent(static_cast<std::size_t>(m->nq), -1);
  for (int j = 0; j < m->njnt; ++j) {
    const int q = m->jnt_qposadr[j], v = m->jnt_dofadr[j];
    if (m->jnt_type[j] == mjJNT_HINGE || m->jnt_type[j] == mjJNT_SLIDE) tangent[static_cast<std::size_t>(q)] = v;
    if (m->jnt_type[j] == mjJNT_FREE)
      for (int k = 0; k < 3; ++k) tangent[static_cast<std::size_t>(q + k)] = v + k;
  }
  std::vector<double> A(static_cast<std::size_t>(steps) * un * un), B(static_cast<std::size_t>(steps) * un * unu);
  std::vector<double> g(un), previous(un), gradient(static_cast<std::size_t>(steps) * unu);
  double value = 0.0;
  std::vector<double> final_state;
  auto run = [&] {
    reset_state(m, d, inputs.start);
    for (int t = 0; t < steps; ++t) {
      std::copy_n(controls.data() + static_cast<std::size_t>(t) * unu, nu, d->ctrl);
      mjd_transitionFD(m, d, kFiniteDifferenceStep, centered ? 1 : 0, A.data() + static_cast<std::size_t>(t) * un * un,
                       B.data() + static_cast<std::size_t>(t) * un * unu, nullptr, nullptr);
      mj_step(m, d);
    }
    final_state = mj.state(0);
    // The loss and its derivative with respect to the final state, in the tangent space.
    value = 0.0;
    std::fill(g.begin(), g.end(), 0.0);
    for (std::size_t i = 0; i < loss.qpos_weight.size(); ++i) {
      if (loss.qpos_weight[i] == 0.0) continue;
      const double e = d->qpos[i] - loss.qpos_target[i];
      value += loss.qpos_weight[i] * e * e;
      g[static_cast<std::size_t>(tangent[i])] += 2.0 * loss.qpos_weight[i] * e;
    }
    for (std::size_t i = 0; i < loss.qvel_weight.size(); ++i) {
      const double e = d->qvel[i] - loss.qvel_target[i];
      value += loss.qvel_weight[i] * e * e;
      g[static_cast<std::size_t>(nv) + i] += 2.0 * loss.qvel_weight[i] * e;
    }
    const double effort_scale = loss.effort_weight / steps;
    for (const double u : controls) value += effort_scale * u * u;
    for (int t = steps - 1; t >= 0; --t) {
      const double* a = A.data() + static_cast<std::size_t>(t) * un * un;
      const double* b = B.data() + static_cast<std::size_t>(t) * un * unu;
      double* gu = gradient.data() + static_cast<std::size_t>(t) * unu;
      for (std::size_t k = 0; k < unu; ++k) gu[k] = 2.0 * effort_scale * controls[static_cast<std::size_t>(t) * unu + k];
      for (std::size_t i = 0; i < un; ++i)
        for (std::size_t k = 0; k < unu; ++k) gu[k] += b[i * unu + k] * g[i];
      std::fill(previous.begin(), previous.end(), 0.0);
      for (std::size_t i = 0; i < un; ++i)
        for (std::size_t j = 0; j < un; ++j) previous[j] += a[i * un + j] * g[i];
      g.swap(previous);
    }
  };
  const double first = time_of(run);  // warm-up
  std::vector<double> wall, cpu;
  const int runs = repeats_for(first, repeats);
  for (int r = 0; r < runs; ++r) cpu.push_back(cpu_time_of([&] { wall.push_back(time_of(run)); }));
  // The same forward pass without the derivatives: that mjd_transitionFD left each state as it
  // found it, so the derivatives were taken along the plain trajectory.
  reset_state(m, d, inputs.start);
  for (int t = 0; t < steps; ++t) {
    std::copy_n(controls.data() + static_cast<std::size_t>(t) * unu, nu, d->ctrl);
    mj_step(m, d);
  }
  double trajectory_difference = 0.0;
  const std::vector<double> plain = mj.state(0);
  for (std::size_t i = 0; i < plain.size(); ++i) trajectory_difference = std::max(trajectory_difference, std::abs(plain[i] - final_state[i]));
  json out = {{"gradient_s", median(wall)},
              {"gradient_cpu_s", median(cpu)},
              {"runs", runs},
              {"loss", value},
              {"final_state", final_state},
              {"fd_trajectory_difference", trajectory_difference}};
  if (with_gradient) out["gradient"] = gradient;
  return out;
}

#endif  // SIMGRAD_HAVE_MUJOCO

// Why an entry has no MuJoCo figures: the build did not find it.
[[maybe_unused]] constexpr const char* kNoMujoco = "none: built without MuJoCo (libmujoco-dev was not found at configure time)";

// The largest difference between two states over the largest entry of the first.
[[maybe_unused]] double state_difference(const json& a, const json& b) {
  if (!a.is_array() || !b.is_array()) return -1.0;
  return gradient_difference(a, b);
}

// The forward benchmarks of one model at one batch size, for each substep count in `substeps`
// (MuJoCo measured once for all of them: its step does not substep).
void forward_benchmarks(const std::string& model, int worlds, int steps, const std::vector<int>& substeps,
                        const std::regex& filter, int repeats, int threads,
                        const std::function<void(const json&)>& report) {
  const int used = threads > 0 ? threads : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  // One world runs on one thread in both engines; a batch on all the bench's threads.
  const int batch_threads = worlds == 1 ? 1 : used;
  std::vector<std::string> names;
  bool any = false;
  for (const int s : substeps) {
    names.push_back("rigid_forward_" + model + "/worlds:" + std::to_string(worlds) + "/substeps:" + std::to_string(s));
    any = any || std::regex_search(names.back(), filter);
  }
  if (!any) return;
  [[maybe_unused]] json loop, omp;
#ifdef SIMGRAD_HAVE_MUJOCO
  loop = in_child([&] { return measure_mujoco_forward(model, worlds, steps, 1, repeats); });
  if (worlds > 1) omp = in_child([&] { return measure_mujoco_forward(model, worlds, steps, used, repeats); });
#endif
  const bool contact = model != "inverted_double_pendulum";
  for (std::size_t k = 0; k < substeps.size(); ++k) {
    if (!std::regex_search(names[k], filter)) continue;
    json run = in_child([&] { return measure_simgrad_forward(model, worlds, steps, substeps[k], batch_threads, repeats); });
    json b = entry_without_reference(names[k], run);
    b["gradient_s"] = nullptr;
    b["gradient_over_forward"] = nullptr;
    b.update({{"model", model},
              {"worlds", worlds},
              {"steps", steps},
              {"substeps", substeps[k]},
              {"threads", batch_threads},
              {"forward_cpu_s", run.value("forward_cpu_s", 0.0)},
              {"world_steps_per_s", run.value("world_steps_per_s", 0.0)}});
    copy_divergence(run, b);
    if (contact)
      b["physics"] = "simgrad: penalty contact and joint limits, " + std::to_string(substeps[k]) +
                     " substep(s) a step; MuJoCo: a constraint solver for contact and limits. The physics differ.";
#ifdef SIMGRAD_HAVE_MUJOCO
    // The fair reference: one thread against one thread, an OpenMP batch against a batch.
    const json& fair = worlds > 1 ? omp : loop;
    b["reference"] = worlds > 1 ? "MuJoCo " + std::string(mj_versionString()) + ", one mjData per world, OpenMP over worlds, " +
                                      std::to_string(used) + " threads"
                                : "MuJoCo " + std::string(mj_versionString()) + ", one mjData, 1 thread";
    b["reference_s"] = fair.value("forward_s", 0.0);
    // Time per world-step over MuJoCo's (the same as the times' ratio unless simgrad diverged
    // and timed fewer steps).
    b["ours_over_reference"] = fair.value("world_steps_per_s", 0.0) / std::max(1e-300, run.value("world_steps_per_s", 0.0));
    b["mujoco_world_steps_per_s"] = fair.value("world_steps_per_s", 0.0);
    // The same ratio in process CPU time (all threads), steadier on a shared machine.
    b["reference_cpu_s"] = fair.value("forward_cpu_s", 0.0);
    b["ours_over_reference_cpu"] = run.value("forward_cpu_s", 0.0) / std::max(1, run.value("timed_steps", steps)) /
                                   std::max(1e-300, fair.value("forward_cpu_s", 0.0) / steps);
    b["mujoco_loop_1thread_s"] = loop.value("forward_s", 0.0);
    b["mujoco_loop_1thread_world_steps_per_s"] = loop.value("world_steps_per_s", 0.0);
    b["ours_rate_over_mujoco"] = run.value("world_steps_per_s", 0.0) / std::max(1e-300, fair.value("world_steps_per_s", 0.0));
    if (contact) {
      // Where the root body ended (qpos[2], its height): the two contact models' outcomes.
      if (run.contains("final_state")) b["final_root_height"] = run["final_state"][2];
      if (loop.contains("final_state")) b["mujoco_final_root_height"] = loop["final_state"][2];
    } else {
      b["final_state_rel_difference"] = state_difference(loop["final_state"], run["final_state"]);
    }
    if (loop.contains("error")) b["reference_error"] = loop["error"];
#else
    b["reference"] = kNoMujoco;
#endif
    report(b);
  }
}

// The gradient benchmarks of one model over `steps` steps, one for each substep count:
// simgrad (forward and gradient) against MuJoCo's finite-difference chain (forward differences;
// centered too where `centered`; measured once, as its step does not substep), with the
// gradients' largest relative difference where `compare` (the contact-free model).
void gradient_benchmarks(const std::string& model, int steps, const std::vector<int>& substeps, [[maybe_unused]] bool centered,
                         bool compare, const std::regex& filter, int repeats,
                         const std::function<void(const json&)>& report) {
  const bool contact = model != "inverted_double_pendulum";
  std::vector<std::string> names;
  bool any = false;
  for (const int s : substeps) {
    names.push_back("rigid_gradient_" + model + "/steps:" + std::to_string(steps) +
                    (contact ? "/substeps:" + std::to_string(s) : ""));
    any = any || std::regex_search(names.back(), filter);
  }
  if (!any) return;
  [[maybe_unused]] json forward, central;
#ifdef SIMGRAD_HAVE_MUJOCO
  forward = in_child([&] { return measure_mujoco_gradient(model, steps, false, repeats, compare); });
  if (centered) central = in_child([&] { return measure_mujoco_gradient(model, steps, true, repeats, compare); });
#endif
  for (std::size_t k = 0; k < substeps.size(); ++k) {
    if (!std::regex_search(names[k], filter)) continue;
    // One world: a gradient along one trajectory, on one thread in both engines.
    json run = in_child([&] { return measure_simgrad_gradient(model, 1, steps, substeps[k], "all", 1, repeats, compare); });
    json b = entry_without_reference(names[k], run);
    b.update({{"model", model},
              {"steps", steps},
              {"substeps", substeps[k]},
              {"threads", 1},
              {"forward_cpu_s", run.value("forward_cpu_s", 0.0)},
              {"gradient_cpu_s", run.value("gradient_cpu_s", 0.0)},
              {"gradient_over_forward_cpu", run.value("gradient_cpu_s", 0.0) / run.value("forward_cpu_s", 1.0)},
              {"loss", run.value("loss", 0.0)}});
    // Per step, in case simgrad diverged and timed fewer steps than MuJoCo.
    [[maybe_unused]] const double ours_per_step = run.value("gradient_s", 0.0) / std::max(1, run.value("timed_steps", steps));
    copy_divergence(run, b);
    if (contact)
      b["physics"] = "simgrad: penalty contact, " + std::to_string(substeps[k]) +
                     " substep(s) a step; MuJoCo: constraint solver. The physics and so the gradients differ; times only.";
#ifdef SIMGRAD_HAVE_MUJOCO
    b["reference"] = "MuJoCo " + std::string(mj_versionString()) +
                     ": mjd_transitionFD (forward differences, eps 1e-6) at every step, chained backward, 1 thread";
    b["reference_s"] = forward.value("gradient_s", 0.0);
    const double reference_per_step = forward.value("gradient_s", 0.0) / steps;
    b["ours_over_reference"] = ours_per_step / std::max(1e-300, reference_per_step);
    b["reference_over_ours"] = reference_per_step / std::max(1e-300, ours_per_step);
    b["reference_cpu_s"] = forward.value("gradient_cpu_s", 0.0);
    b["reference_over_ours_cpu"] = forward.value("gradient_cpu_s", 0.0) / steps /
                                   std::max(1e-300, run.value("gradient_cpu_s", 0.0) / std::max(1, run.value("timed_steps", steps)));
    b["mujoco_fd_trajectory_difference"] = forward.value("fd_trajectory_difference", 0.0);
    if (forward.contains("error")) b["reference_error"] = forward["error"];
    if (compare) {
      b["mujoco_loss"] = forward.value("loss", 0.0);
      b["final_state_rel_difference"] = state_difference(forward["final_state"], run["final_state"]);
      b["gradient_max_rel_difference"] = gradient_difference(run["gradient"], forward["gradient"]);
    }
    if (centered) {
      b["mujoco_centered_s"] = central.value("gradient_s", 0.0);
      b["mujoco_centered_over_ours"] = central.value("gradient_s", 0.0) / steps / std::max(1e-300, ours_per_step);
      b["mujoco_centered_cpu_s"] = central.value("gradient_cpu_s", 0.0);
      if (compare) b["gradient_max_rel_difference_centered"] = gradient_difference(run["gradient"], central["gradient"]);
    }
#else
    b["reference"] = kNoMujoco;
#endif
    report(b);
  }
}

}  // namespace

void rigid_benchmarks(const std::regex& filter, int steps, int repeats, int threads,
                      const std::function<void(const json&)>& report) {
  // A batch runs a tenth of the horizon, so that 256 humanoids stay within seconds.
  const int batch_steps = std::max(1, steps / 10);
  for (const char* model : {"ant", "humanoid"})
    for (const int worlds : {1, 256})
      forward_benchmarks(model, worlds, worlds == 1 ? steps : batch_steps, {1, kScenarioSubsteps}, filter, repeats, threads,
                         report);
  for (const int worlds : {1, 256})
    forward_benchmarks("inverted_double_pendulum", worlds, worlds == 1 ? steps : batch_steps, {1}, filter, repeats, threads,
                       report);

  gradient_benchmarks("inverted_double_pendulum", steps, {1}, true, true, filter, repeats, report);
  for (const char* model : {"ant", "humanoid"})
    gradient_benchmarks(model, steps, {1, kScenarioSubsteps}, false, false, filter, repeats, report);

  // Memory: the double pendulum in a batch of worlds over ten times the horizon, `all` against
  // binomial:S with S = 2 sqrt(T) kept states; 32 worlds keep the states well above the
  // process's own few megabytes and the gradient within seconds.
  const int worlds = 32, long_steps = 10 * steps;
  const std::string name = "rigid_memory_inverted_double_pendulum/worlds:" + std::to_string(worlds) +
                           "/steps:" + std::to_string(long_steps);
  if (std::regex_search(name, filter)) {
    const int kept = static_cast<int>(std::lround(2 * std::sqrt(static_cast<double>(long_steps))));
    const std::string binomial = "binomial:" + std::to_string(kept);
    const int used = threads > 0 ? threads : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
    json all = in_child([&] { return measure_simgrad_gradient("inverted_double_pendulum", worlds, long_steps, 1, "all", used, 1, false); });
    json bin = in_child([&] { return measure_simgrad_gradient("inverted_double_pendulum", worlds, long_steps, 1, binomial, used, 1, false); });
    json b = entry_without_reference(name, bin);
    b.update({{"policy", binomial},
              {"threads", used},
              {"reference", "checkpoint policy all"},
              {"reference_s", all.value("gradient_s", 0.0)},
              {"ours_over_reference", bin.value("gradient_s", 0.0) / all.value("gradient_s", 1.0)},
              {"reference_peak_rss_mb", all["peak_rss_mb"]},
              {"peak_rss_ratio", bin["peak_rss_mb"].get<double>() / all["peak_rss_mb"].get<double>()},
              {"stored_mb", bin.value("stored_mb", 0.0)},
              {"reference_stored_mb", all.value("stored_mb", 0.0)},
              {"reference_gradient_over_forward", all.value("gradient_s", 0.0) / all.value("forward_s", 1.0)},
              {"forward_steps", bin.value("forward_steps", 0)}});
    if (all.contains("error")) b["reference_error"] = all["error"];
    report(b);
  }
}

}  // namespace simgrad::app
