// FEM physics against physics: a uniaxial stretch against the material laws in closed form, the
// energy of an undamped free vibration under the symplectic integrator, and the static
// deflection of a thin cantilever against Euler-Bernoulli beam theory.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <vector>

#include "core/rollout.hpp"
#include "sims/fem/fem.hpp"
#include "sims/fem/mesh.hpp"
#include "sims/fem/equilibrium.hpp"

namespace simgrad::fem {
namespace {

// A loss that is always zero: rollouts here are run for their states.
class NoLoss : public TrajectoryLoss {
 public:
  bool has_term(int, int) const override { return false; }
  double term(int, std::span<const double>) override { return 0.0; }
  void term_adjoint(int, std::span<const double>, double, std::span<double>) override {}
};

// The stress P11 (along the stretch) and P22 (across it) of the uniaxial strain F = diag(s, 1, 1),
// from the laws as published (Stomakhin et al. 2012; Bonet and Wood), not from the code's.
struct UniaxialStress {
  double along, across;
};
UniaxialStress closed_form(MaterialModel material, double s, double mu, double lambda) {
  if (material == MaterialModel::kCorotated)  // R = I, J = s, J F^-T = diag(1, s, s)
    return {2.0 * mu * (s - 1.0) + lambda * (s - 1.0), lambda * (s - 1.0) * s};
  return {mu * (s - 1.0 / s) + lambda * std::log(s) / s, lambda * std::log(s)};
}

// A unit square or cube stretched uniformly by s along x: the elastic forces on the nodes of the
// face x = 1 add up to -P11 (the face's reference area is 1), those on y = 1 to -P22.
template <int D>
void check_uniaxial_stretch(MaterialModel material, double s) {
  FemMesh<D> mesh;
  if constexpr (D == 2) mesh = make_rectangle_mesh(3, 2, {{1.0, 1.0}}, {{0.0, 0.0}});
  else mesh = make_box_mesh(3, 2, 2, {{1.0, 1.0, 1.0}}, {{0.0, 0.0, 0.0}});
  FemModel<D> model;
  model.build(mesh.positions, mesh.elements, mesh.regions, 1);
  const double youngs = 2e5, poisson = 0.3;
  model.set_material(youngs, poisson, 0.0, 1000.0);
  model.settings.material = material;
  Fem<D> fem(model);
  const Index n = model.node_count;
  std::vector<double> state(2 * D * n, 0.0), force(D * n);
  for (Index i = 0; i < n; ++i)
    for (int c = 0; c < D; ++c) state[i * D + c] = mesh.positions[i * D + c] * (c == 0 ? s : 1.0);
  fem.elastic_forces(state, force);
  double along = 0.0, across = 0.0;
  for (Index i = 0; i < n; ++i) {
    if (mesh.positions[i * D] == 1.0) along += force[i * D];
    if (mesh.positions[i * D + 1] == 1.0) across += force[i * D + 1];
  }
  const double mu = youngs / (2.0 * (1.0 + poisson));
  const double lambda = youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
  const UniaxialStress expected = closed_form(material, s, mu, lambda);
  EXPECT_NEAR(-along, expected.along, 1e-9 * std::abs(expected.along)) << "s = " << s;
  EXPECT_NEAR(-across, expected.across, 1e-9 * std::abs(expected.across)) << "s = " << s;
}

TEST(FemPhysics, UniaxialStretchMatchesTheMaterialLaws) {
  for (double s : {0.8, 1.001, 1.3}) {
    check_uniaxial_stretch<2>(MaterialModel::kCorotated, s);
    check_uniaxial_stretch<2>(MaterialModel::kNeoHookean, s);
    check_uniaxial_stretch<3>(MaterialModel::kCorotated, s);
    check_uniaxial_stretch<3>(MaterialModel::kNeoHookean, s);
  }
}

TEST(FemPhysics, SmallStrainStiffnessIsTheConstrainedModulus) {
  // At small strain both laws give P11 = (lambda + 2 mu) eps = E (1 - nu) / ((1 + nu)(1 - 2 nu)) eps.
  const double youngs = 2e5, poisson = 0.3, eps = 1e-6;
  const double constrained = youngs * (1.0 - poisson) / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
  const double mu = youngs / (2.0 * (1.0 + poisson));
  const double lambda = youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
  for (MaterialModel m : {MaterialModel::kCorotated, MaterialModel::kNeoHookean})
    EXPECT_NEAR(closed_form(m, 1.0 + eps, mu, lambda).along / eps, constrained, 1e-4 * constrained);
}

// The energy of a free, undamped body vibrating after an initial stretch, under symplectic
// Euler: it oscillates around its start without drift, by at most a relative amount that
// shrinks in proportion to the time step (the method conserves a modified energy within O(dt)).
double max_energy_deviation(MaterialModel material, double dt, int steps) {
  const FemMesh<2> mesh = make_rectangle_mesh(8, 2, {{0.4, 0.1}}, {{0.0, 0.0}});
  FemModel<2> model;
  model.build(mesh.positions, mesh.elements, mesh.regions, steps);
  model.set_material(1e4, 0.3, 0.0, 1000.0);
  model.settings.material = material;
  model.settings.dt = dt;
  for (Index i = 0; i < model.node_count; ++i) {
    model.initial_position.values()[2 * i] *= 1.05;                         // stretched along,
    model.initial_velocity.values()[2 * i + 1] = 0.2 * mesh.positions[2 * i];  // and spinning
  }
  Fem<2> fem(model);
  NoLoss loss;
  double start = 0.0, deviation = 0.0;
  RolloutOptions options;
  options.observer = [&](int t, std::span<const double> state) {
    const double e = fem.energy(state);
    if (t == 0) start = e;
    deviation = std::max(deviation, std::abs(e - start) / start);
  };
  Rollout rollout(fem, loss, steps, options);
  rollout.loss();
  return deviation;
}

TEST(FemPhysics, SymplecticEulerConservesEnergyWithinItsBound) {
  // The fastest wave crosses an element (h = 0.05 m) in h / c = 0.05 / sqrt(E' / rho) = 14 ms;
  // dt = 0.5 ms is 1/28 of that. Over 4000 steps (2 s, about 4 periods of the stretch mode):
  for (MaterialModel material : {MaterialModel::kCorotated, MaterialModel::kNeoHookean}) {
    const double coarse = max_energy_deviation(material, 5e-4, 4000);
    const double fine = max_energy_deviation(material, 2.5e-4, 8000);
    EXPECT_LT(coarse, 0.02);  // the stated bound: 2% of the energy at dt = 0.5 ms
    EXPECT_GT(coarse, 0.0);
    // First order in dt: halving the step halves the deviation (within 20%).
    EXPECT_NEAR(fine / coarse, 0.5, 0.1);
  }
}

// Tip deflection of a 2D (plane strain) cantilever of length L and height h, clamped at x = 0,
// under its own weight q = rho g h per unit length: Euler-Bernoulli gives q L^4 / (8 E' I) with
// E' = E / (1 - nu^2) and I = h^3 / 12.
double cantilever_deflection_ratio(int cells_along, int cells_across, double length, double height) {
  const FemMesh<2> mesh = make_rectangle_mesh(cells_along, cells_across, {{length, height}}, {{0.0, 0.0}});
  FemModel<2> model;
  model.build(mesh.positions, mesh.elements, mesh.regions, 1);
  const double youngs = 1e9, poisson = 0.3, density = 1000.0, g = 9.81;
  model.set_material(youngs, poisson, 0.0, density);
  model.gravity.values()[1] = -g;
  for (Index i = 0; i < model.node_count; ++i)
    if (mesh.positions[2 * i] == 0.0) model.pin(i);
  Fem<2> fem(model);
  std::vector<double> x(mesh.positions);
  const StaticResult result = solve_static(fem, x);
  EXPECT_LT(result.iterations, 10);
  // The mean deflection of the tip's nodes.
  double tip = 0.0;
  int count = 0;
  for (Index i = 0; i < model.node_count; ++i)
    if (mesh.positions[2 * i] == length) {
      tip += mesh.positions[2 * i + 1] - x[2 * i + 1];
      ++count;
    }
  tip /= count;
  const double e_plane = youngs / (1.0 - poisson * poisson);
  const double beam_theory = density * g * height * std::pow(length, 4) / (8.0 * e_plane * std::pow(height, 3) / 12.0);
  return tip / beam_theory;
}

TEST(FemPhysics, ThinCantileverDeflectsAsEulerBernoulliPredicts) {
  // Linear triangles are too stiff in bending (shear locking), less so as the mesh is refined;
  // the slenderness L / h = 20 keeps the shear deflection under 1%.
  const double coarse = cantilever_deflection_ratio(80, 4, 1.0, 0.05);
  const double fine = cantilever_deflection_ratio(160, 8, 1.0, 0.05);
  std::printf("cantilever tip deflection / Euler-Bernoulli: %.4f (80 x 4), %.4f (160 x 8)\n", coarse, fine);
  EXPECT_LT(coarse, fine);
  EXPECT_NEAR(fine, 1.0, 0.05);
}

}  // namespace
}  // namespace simgrad::fem
