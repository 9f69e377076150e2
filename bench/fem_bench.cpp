// `simgrad bench` for FEM soft bodies: a clamped 3D beam of 10,368 linear tetrahedra swinging
// under gravity for a number of steps (1,000 by default), neo-Hookean and corotated. Reports the
// gradient (of a trajectory loss with respect to Young's modulus and Poisson ratio) over the
// forward time, and the forward time against a hand-written loop of the same physics
// (bench/fem_reference.cpp), single-threaded; and the same beam under implicit Euler (gradient
// over forward only). Besides wall times, the process CPU times of the same runs (a loaded
// machine stretches wall times unevenly; CPU time is what the ratio is about).
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_support.hpp"
#include "bench/fem_reference.hpp"
#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/fem/fem.hpp"
#include "sims/fem/mesh.hpp"
#include "sims/softbody/losses.hpp"

namespace simgrad::app {

namespace {

using nlohmann::json;
namespace sb = simgrad::softbody;

// The benchmark body: a 1.2 m beam of 0.15 m square section, clamped at x = 0.
struct FemBench {
  fem::FemModel<3> model;
  std::unique_ptr<fem::Fem<3>> system;
  std::unique_ptr<sb::TrajectoryMatchLoss<3>> loss;

  FemBench(fem::MaterialModel material, int steps, fem::FemIntegrator integrator = fem::FemIntegrator::kSymplecticEuler) {
    const fem::FemMesh<3> mesh = fem::make_beam_mesh(1.2, 0.15, 0.15, 48, 6, {{0.0, 0.0, 0.0}});
    model.build(mesh.positions, mesh.elements, mesh.regions, steps);
    model.set_material(1e6, 0.3, 0.0, 1000.0);
    model.settings.dt = 2e-4;
    model.mass_damping.values()[0] = 1.0;
    model.settings.material = material;
    model.settings.integrator = integrator;
    model.gravity.values()[2] = -9.8;
    for (Index i = 0; i < model.node_count; ++i)
      if (mesh.positions[3 * i] == 0.0) model.pin(i);
    model.youngs.set_differentiable(true);
    model.poisson.set_differentiable(true);
    system = std::make_unique<fem::Fem<3>>(model);
    std::vector<std::int32_t> markers;
    std::vector<double> reference;
    for (Index i = 0; i < model.node_count; ++i) markers.push_back(static_cast<std::int32_t>(i));
    for (int frame = 0; frame < 2; ++frame)
      for (Index i = 0; i < 3 * model.node_count; ++i)
        reference.push_back(model.initial_position.values()[i] - (i % 3 == 2 ? 0.01 * frame : 0.0));
    loss = std::make_unique<sb::TrajectoryMatchLoss<3>>(model.node_count, markers, steps, reference);
  }
};

json measure(fem::MaterialModel material, int steps, int repeats, int threads,
             fem::FemIntegrator integrator = fem::FemIntegrator::kSymplecticEuler) {
  set_thread_count(threads);
  FemBench bench(material, steps, integrator);
  Rollout rollout(*bench.system, *bench.loss, steps);
  std::vector<double> forward, gradient, forward_cpu, gradient_cpu;
  const int runs = repeats_for(time_of([&] { rollout.loss_and_gradient(); }), repeats);
  for (int r = 0; r < runs; ++r) {
    forward_cpu.push_back(cpu_time_of([&] { forward.push_back(time_of([&] { rollout.loss(); })); }));
    gradient_cpu.push_back(cpu_time_of([&] { gradient.push_back(time_of([&] { rollout.loss_and_gradient(); })); }));
  }
  return {{"forward_s", median(forward)}, {"gradient_s", median(gradient)}, {"runs", runs},
          {"forward_cpu_s", median(forward_cpu)}, {"gradient_cpu_s", median(gradient_cpu)},
          {"tets", bench.model.element_count()}, {"nodes", bench.model.node_count}};
}

json measure_reference(fem::MaterialModel material, int steps, int repeats) {
  set_thread_count(1);
  FemBench bench(material, steps);
  Rollout rollout(*bench.system, *bench.loss, steps);
  return time_against_reference(rollout, [&] { return reference_fem_rollout(bench.model, steps); }, repeats);
}

// The least one explicit step of the beam moves and computes, counted on its laws (force.hpp,
// material.hpp). A tetrahedron reads its four node indices, Dm^-1, its rest volume and its Lame
// parameters: 112 bytes; a node, as the jelly's (bench.cpp), 152. Flops of a tetrahedron: the
// edge matrix 9, F = Ds Dm^-1 45, the stress, H = -V P Dm^-T 54, the node forces and deposits 21;
// the corotated stress takes eight polar iterations (a determinant 14, a cofactor matrix 27, the
// average 27, a division) and 2 mu (F - R) + lambda (J - 1) cof F about 80: 624; the neo-Hookean
// one F^-T from the cofactor and a division, mu (F - F^-T) + lambda log J F^-T: about 80 and a
// logarithm. Of a node 21 (integrate.hpp).
StepCost explicit_step_cost(fem::MaterialModel material, double tets, double nodes) {
  const double stress = material == fem::MaterialModel::kCorotated ? 8 * (14 + 27 + 27) + 80 : 80;
  return {112.0 * tets + 152.0 * nodes, (9 + 45 + stress + 54 + 21) * tets + 21.0 * nodes, 0.0};
}

// The run's tetrahedra and CPU times into its entry.
void add_cpu_times(json& entry, const json& run) {
  entry["tets"] = run.value("tets", 0);
  const double forward = run.value("forward_cpu_s", 0.0), gradient = run.value("gradient_cpu_s", 0.0);
  entry["forward_cpu_s"] = forward;
  entry["gradient_cpu_s"] = gradient;
  entry["gradient_over_forward_cpu"] = forward > 0.0 ? gradient / forward : 0.0;
}

}  // namespace

void fem_benchmarks(const std::regex& filter, int steps, int repeats, int threads,
                    const std::function<const json&()>& machine_limits, const std::function<void(const json&)>& report) {
  for (const fem::MaterialModel material : {fem::MaterialModel::kNeoHookean, fem::MaterialModel::kCorotated}) {
    const std::string name = std::string("fem_explicit/tets:10368/steps:") + std::to_string(steps) + "/" +
                             (material == fem::MaterialModel::kCorotated ? "corotated" : "neo_hookean");
    if (!std::regex_search(name, filter)) continue;
    const json run = in_child([&] { return measure(material, steps, repeats, threads); });
    const json ref = in_child([&] { return measure_reference(material, steps, repeats); });
    json b = entry_against_reference(name, run, ref, "hand-written plain C++ loop, same physics, 1 thread", threads);
    add_cpu_times(b, run);
    b["thread_speedup"] = ref.value("forward_1thread_s", 0.0) / run.value("forward_s", 1.0);
    const StepCost cost = explicit_step_cost(material, run.value("tets", 0.0), run.value("nodes", 0.0));
    const int team = threads > 0 ? threads : thread_count();
    b["forward_limits"] = fractions_of_limits(cost, steps, run.value("forward_s", 1.0), team, machine_limits());
    b["forward_1thread_limits"] = fractions_of_limits(cost, steps, ref.value("forward_1thread_s", 1.0), 1, machine_limits());
    report(b);
  }
  // Implicit Euler: a Newton solve with a sparse LU per step and one transposed solve per adjoint
  // step; a twentieth of the steps, as each takes a factorization or more.
  const int implicit_steps = std::max(1, steps / 20);
  const std::string name = "fem_implicit/tets:10368/steps:" + std::to_string(implicit_steps) + "/neo_hookean";
  if (!std::regex_search(name, filter)) return;
  const json run = in_child([&] {
    return measure(fem::MaterialModel::kNeoHookean, implicit_steps, repeats, threads, fem::FemIntegrator::kImplicitEuler);
  });
  json b = entry_without_reference(name, run);
  add_cpu_times(b, run);
  report(b);
}

}  // namespace simgrad::app
