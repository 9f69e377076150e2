#include "report/mpm_frames.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <string>

#include "core/rollout.hpp"
#include "sims/mpm/material.hpp"

namespace simgrad::report {

namespace mp = simgrad::mpm;
using nlohmann::json;

namespace {

const char* const kMaterialNames[] = {"corotated", "neo_hookean", "sand", "snow", "liquid"};
// Per material, three shades from low to high stress.
const char* const kPalette[] = {"#9ecae1", "#3182bd", "#08306b", "#fdd0a2", "#fd8d3c", "#a63603", "#e0c68c",
                                "#c49a3c", "#7f5f12", "#d9d9d9", "#969696", "#404040", "#a1d99b", "#31a354", "#00441b"};

// The shade of a particle's stress: its Kirchhoff stress's size over its material's modulus.
template <int D>
int stress_level(const mp::MpmModel<D>& m, Index p, const mp::Mat<double, D>& f, double plastic) {
  mp::MaterialConstants<double> c{0.0, 0.0, 0.0, 0.0, 0.0, m.settings.critical_compression, m.settings.critical_stretch};
  const mp::Material kind = m.material[static_cast<std::size_t>(p)];
  double modulus = m.bulk_modulus.values()[p];
  c.bulk_modulus = modulus;
  if (kind != mp::Material::kLiquid) {
    fem::lame_parameters(m.youngs.values()[p], m.poisson.values()[p], c.mu, c.lambda);
    c.friction_angle = m.friction_angle.values()[p] * std::numbers::pi / 180.0;
    c.hardening = m.hardening.values()[p];
    modulus = m.youngs.values()[p];
  }
  const mp::Mat<double, D> tau = mp::kirchhoff_stress(kind, f, plastic, c);
  const double size = std::sqrt(fem::contract(tau, tau)) / modulus;
  return size < 0.005 ? 0 : size < 0.02 ? 1 : 2;
}

}  // namespace

template <int D>
json mpm_summary(mp::Mpm<D>& system, std::span<const double> final_state) {
  const mp::MpmModel<D>& m = system.model();
  json materials = json::object();
  for (mp::Material k : m.material) materials[kMaterialNames[static_cast<int>(k)]] = materials.value(kMaterialNames[static_cast<int>(k)], 0) + 1;
  json out = {{"dimension", D},
              {"particles", m.particle_count},
              {"nodes", m.node_count()},
              {"bodies", m.body.empty() ? 0 : m.body.back() + 1},
              {"materials", materials}};
  if (final_state.empty() || m.particle_count == 0) return out;
  Vec<double, D> centre = Vec<double, D>::zero();
  double lowest = INFINITY, farthest = -INFINITY;
  for (Index p = 0; p < m.particle_count; ++p) {
    for (int d = 0; d < D; ++d) centre[d] += final_state[static_cast<std::size_t>(p * D + d)];
    lowest = std::min(lowest, final_state[static_cast<std::size_t>(p * D + D - 1)]);
    farthest = std::max(farthest, final_state[static_cast<std::size_t>(p * D)]);
  }
  std::vector<double> mean(centre.c, centre.c + D);
  for (double& x : mean) x /= static_cast<double>(m.particle_count);
  out["centre"] = mean;
  out["lowest"] = lowest;
  out["farthest"] = farthest;
  return out;
}

template <int D>
json mpm_frames(mp::Mpm<D>& system, TrajectoryLoss& loss, int steps) {
  const mp::MpmModel<D>& m = system.model();
  const mp::MpmSettings<D>& s = m.settings;
  const Index n = m.particle_count;
  const Index every = std::max<Index>(1, n / 4000);  // at most about 4,000 points a frame
  const int stride = std::max(1, steps / 60);
  json frames = json::array();
  json centre_x = {{"name", "centre x"}, {"x", json::array()}, {"y", json::array()}};
  json centre_y = {{"name", "centre height"}, {"x", json::array()}, {"y", json::array()}};
  RolloutOptions options;
  options.observer = [&](int t, std::span<const double> state) {
    if (t % stride != 0 && t != steps) return;
    const Field<D * D> f = system.deformations(state);
    const Field<1> plastic = system.plastic(state);
    json points = json::array(), classes = json::array();
    double cx = 0.0, cy = 0.0;
    for (Index p = 0; p < n; ++p) {
      cx += state[static_cast<std::size_t>(p * D)];
      cy += state[static_cast<std::size_t>(p * D + D - 1)];
      if (p % every != 0) continue;
      points.push_back({state[static_cast<std::size_t>(p * D)], state[static_cast<std::size_t>(p * D + D - 1)]});
      const mp::Mat<double, D> fp = mp::Mat<double, D>::from_rows(load<double, D * D>(f.value, p));
      classes.push_back(3 * static_cast<int>(m.material[static_cast<std::size_t>(p)]) + stress_level(m, p, fp, plastic.value[p]));
    }
    centre_x["x"].push_back(t * s.dt);
    centre_x["y"].push_back(cx / static_cast<double>(n));
    centre_y["x"].push_back(t * s.dt);
    centre_y["y"].push_back(cy / static_cast<double>(n));
    char label[32];
    std::snprintf(label, sizeof label, "t = %.3f s", t * s.dt);
    frames.push_back({{"label", label}, {"time", t * s.dt}, {"points", points}, {"classes", classes}});
  };
  Rollout(system, loss, steps, options).loss();
  // The walls' inner faces and the colliders' outlines.
  json background = json::array();
  const double x0 = s.bound * s.dx, x1 = (s.nodes[0] - 1 - s.bound) * s.dx, y0 = s.bound * s.dx, y1 = (s.nodes[D - 1] - 1 - s.bound) * s.dx;
  for (const auto& l : {std::array<double, 4>{x0, y0, x1, y0}, {x1, y0, x1, y1}, {x1, y1, x0, y1}, {x0, y1, x0, y0}})
    background.push_back({l[0], l[1], l[2], l[3], 0.0});
  for (const mp::Collider<D>& c : s.colliders) {
    const double cx = c.centre[0], cy = c.centre[D - 1];
    if (c.shape == mp::ColliderShape::kSphere) {
      constexpr int kSides = 24;
      for (int k = 0; k < kSides; ++k) {
        const double a0 = 2.0 * std::numbers::pi * k / kSides, a1 = 2.0 * std::numbers::pi * (k + 1) / kSides;
        background.push_back({cx + c.radius * std::cos(a0), cy + c.radius * std::sin(a0), cx + c.radius * std::cos(a1),
                              cy + c.radius * std::sin(a1), 0.0});
      }
    } else {
      const double hx = c.half_extent[0], hy = c.half_extent[D - 1];
      for (const auto& l : {std::array<double, 4>{cx - hx, cy - hy, cx + hx, cy - hy}, {cx + hx, cy - hy, cx + hx, cy + hy},
                            {cx + hx, cy + hy, cx - hx, cy + hy}, {cx - hx, cy + hy, cx - hx, cy - hy}})
        background.push_back({l[0], l[1], l[2], l[3], 0.0});
    }
  }
  return {{"legend", std::to_string(n) + " particles" + (every > 1 ? " (every " + std::to_string(every) + "th drawn)" : "") +
                         ": jelly blue, neo-Hookean orange, sand ochre, snow grey, liquid green; darker: more stress"},
          {"palette", std::vector<std::string>(std::begin(kPalette), std::end(kPalette))},
          {"background", {{"lines", background}}},
          {"frames", frames},
          {"charts", {{{"title", "centre of the particles"}, {"x_label", "s"}, {"y_label", "m"}, {"series", {centre_x, centre_y}}}}}};
}

template json mpm_summary<2>(mp::Mpm<2>&, std::span<const double>);
template json mpm_summary<3>(mp::Mpm<3>&, std::span<const double>);
template json mpm_frames<2>(mp::Mpm<2>&, TrajectoryLoss&, int);
template json mpm_frames<3>(mp::Mpm<3>&, TrajectoryLoss&, int);

}  // namespace simgrad::report
