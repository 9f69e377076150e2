#include "bench/fem_reference.hpp"

#include <cmath>
#include <stdexcept>

namespace simgrad::app {

namespace {

// det and cofactor matrix (det F^-T) of a row-major 3 x 3 matrix.
double det_and_cofactor(const double f[9], double cof[9]) {
  cof[0] = f[4] * f[8] - f[5] * f[7];
  cof[1] = f[5] * f[6] - f[3] * f[8];
  cof[2] = f[3] * f[7] - f[4] * f[6];
  cof[3] = f[7] * f[2] - f[8] * f[1];
  cof[4] = f[8] * f[0] - f[6] * f[2];
  cof[5] = f[6] * f[1] - f[7] * f[0];
  cof[6] = f[1] * f[5] - f[2] * f[4];
  cof[7] = f[2] * f[3] - f[0] * f[5];
  cof[8] = f[0] * f[4] - f[1] * f[3];
  return f[0] * cof[0] + f[1] * cof[1] + f[2] * cof[2];
}

}  // namespace

std::vector<double> reference_fem_rollout(const fem::FemModel<3>& model, int steps) {
  if (!model.planes.empty()) throw std::invalid_argument("reference: no planes");
  for (double b : model.damping.values())
    if (b != 0.0) throw std::invalid_argument("reference: no stiffness damping");
  const Index n = model.node_count, elements = model.element_count();
  const bool corotated = model.settings.material == fem::MaterialModel::kCorotated;
  std::vector<double> x(model.initial_position.values().begin(), model.initial_position.values().end());
  std::vector<double> v(model.initial_velocity.values().begin(), model.initial_velocity.values().end());
  std::vector<double> force(static_cast<std::size_t>(3 * n));
  std::vector<double> mu(static_cast<std::size_t>(elements)), lambda(static_cast<std::size_t>(elements));
  for (Index e = 0; e < elements; ++e) {
    const double youngs = model.youngs.values()[model.element_regions.node(e, 0)];
    const double poisson = model.poisson.values()[model.element_regions.node(e, 0)];
    mu[e] = youngs / (2.0 * (1.0 + poisson));
    lambda[e] = youngs * poisson / ((1.0 + poisson) * (1.0 - 2.0 * poisson));
  }
  const double* w = model.inverse_mass.values().data();
  const double* g = model.gravity.values().data();
  const double dt = model.settings.dt;
  const double decay = std::exp(-model.mass_damping.values()[0] * dt);

  for (int t = 0; t < steps; ++t) {
    std::fill(force.begin(), force.end(), 0.0);
    for (Index e = 0; e < elements; ++e) {
      const Index nodes[4] = {model.elements.node(e, 0), model.elements.node(e, 1), model.elements.node(e, 2),
                              model.elements.node(e, 3)};
      const double* dm = model.rest_inverse.values().data() + 9 * e;
      double ds[9], f[9], cof[9], p[9];
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) ds[3 * r + c] = x[3 * nodes[c + 1] + r] - x[3 * nodes[0] + r];
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) f[3 * r + c] = ds[3 * r] * dm[c] + ds[3 * r + 1] * dm[3 + c] + ds[3 * r + 2] * dm[6 + c];
      const double j = det_and_cofactor(f, cof);
      if (corotated) {
        // Polar rotation by eight Newton steps X <- (X + X^-T) / 2.
        double rot[9], rc[9];
        for (int k = 0; k < 9; ++k) rot[k] = f[k];
        for (int it = 0; it < 8; ++it) {
          const double inv_det = 1.0 / det_and_cofactor(rot, rc);
          for (int k = 0; k < 9; ++k) rot[k] = 0.5 * (rot[k] + inv_det * rc[k]);
        }
        for (int k = 0; k < 9; ++k) p[k] = 2.0 * mu[e] * (f[k] - rot[k]) + lambda[e] * (j - 1.0) * cof[k];
      } else {
        const double inv_j = 1.0 / j, log_j = std::log(j);
        for (int k = 0; k < 9; ++k) p[k] = mu[e] * (f[k] - inv_j * cof[k]) + lambda[e] * log_j * inv_j * cof[k];
      }
      // H = -V P Dm^-T: column c goes to node c + 1.
      const double volume = model.rest_volume.values()[e];
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
          const double h = -volume * (p[3 * r] * dm[3 * c] + p[3 * r + 1] * dm[3 * c + 1] + p[3 * r + 2] * dm[3 * c + 2]);
          force[3 * nodes[c + 1] + r] += h;
          force[3 * nodes[0] + r] -= h;
        }
    }
    for (Index i = 0; i < n; ++i) {
      if (w[i] == 0.0) {
        v[3 * i] = v[3 * i + 1] = v[3 * i + 2] = 0.0;
        continue;
      }
      for (int c = 0; c < 3; ++c) {
        v[3 * i + c] = decay * v[3 * i + c] + dt * (w[i] * force[3 * i + c] + g[c]);
        x[3 * i + c] += dt * v[3 * i + c];
      }
    }
  }
  std::vector<double> state(x);
  state.insert(state.end(), v.begin(), v.end());
  return state;
}

}  // namespace simgrad::app
