#include "bench/mass_spring_reference.hpp"

#include <cmath>
#include <stdexcept>

namespace simgrad::app {

std::vector<double> reference_mass_spring_rollout(const softbody::MassSpringModel<3>& model, int steps) {
  const Index n = model.node_count;
  const Index m = model.spring_count();
  std::vector<double> x(model.initial_position.values().begin(), model.initial_position.values().end());
  std::vector<double> v(model.initial_velocity.values().begin(), model.initial_velocity.values().end());
  std::vector<double> f(static_cast<std::size_t>(3 * n));
  const double* k = model.stiffness.values().data();
  const double* c = model.damping.values().data();
  const double* rest = model.rest_length.values().data();
  const double* w = model.inverse_mass.values().data();
  const double* g = model.gravity.values().data();
  const double dt = model.settings.dt;
  const double decay = std::exp(-model.settings.drag * dt);
  const double eps = model.settings.length_epsilon;
  const softbody::PenaltySettings& pen = model.settings.penalty;
  for (const auto& plane : model.planes)
    if (plane.model != softbody::ContactModel::kPenalty) throw std::invalid_argument("reference: penalty planes only");

  for (int t = 0; t < steps; ++t) {
    std::fill(f.begin(), f.end(), 0.0);
    for (Index s = 0; s < m; ++s) {
      const Index a = model.springs.node(s, 0), b = model.springs.node(s, 1);
      double d[3], dv[3];
      for (int i = 0; i < 3; ++i) {
        d[i] = x[3 * b + i] - x[3 * a + i];
        dv[i] = v[3 * b + i] - v[3 * a + i];
      }
      const double length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]) + eps;
      const double inv_length = 1.0 / length;
      const double u[3] = {inv_length * d[0], inv_length * d[1], inv_length * d[2]};
      const double speed = dv[0] * u[0] + dv[1] * u[1] + dv[2] * u[2];
      const double tension = k[s] * (length - rest[s]) + c[s] * speed;
      for (int i = 0; i < 3; ++i) {
        f[3 * a + i] += tension * u[i];
        f[3 * b + i] -= tension * u[i];
      }
    }
    for (Index p = 0; p < n; ++p) {
      double* xp = &x[3 * p];
      double* vp = &v[3 * p];
      if (w[p] == 0.0) {
        vp[0] = vp[1] = vp[2] = 0.0;
        continue;
      }
      double fp[3] = {f[3 * p], f[3 * p + 1], f[3 * p + 2]};
      for (const auto& plane : model.planes) {
        const double* nrm = plane.normal.c;
        const double gap = nrm[0] * xp[0] + nrm[1] * xp[1] + nrm[2] * xp[2] - plane.offset;
        const double bx = pen.sharpness * -gap;
        if (bx < -746.0) continue;  // exp underflows: no contact force
        const double soft = bx > 0 ? -gap + std::log1p(std::exp(-bx)) / pen.sharpness : std::log1p(std::exp(bx)) / pen.sharpness;
        const double fn = pen.stiffness * soft;
        const double vn = nrm[0] * vp[0] + nrm[1] * vp[1] + nrm[2] * vp[2];
        double vt[3];
        for (int i = 0; i < 3; ++i) vt[i] = vp[i] - vn * nrm[i];
        const double sp = std::sqrt(vt[0] * vt[0] + vt[1] * vt[1] + vt[2] * vt[2] + pen.friction_speed * pen.friction_speed);
        for (int i = 0; i < 3; ++i) fp[i] += fn * nrm[i] - plane.friction * fn / sp * vt[i];
      }
      for (int i = 0; i < 3; ++i) {
        vp[i] = decay * vp[i] + dt * (w[p] * fp[i] + g[i]);
        xp[i] += dt * vp[i];
      }
    }
  }
  std::vector<double> state(x);
  state.insert(state.end(), v.begin(), v.end());
  return state;
}

}  // namespace simgrad::app
