#include "report/fluid_frames.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <type_traits>
#include <utility>

#include "core/rollout.hpp"

namespace simgrad::report {

namespace fl = simgrad::fluid;
using nlohmann::json;

namespace {

// The domain's length along an axis.
double extent_of(const fl::Grid& g, int axis) { return axis == 0 ? g.width() : g.height(); }
double extent_of(const fl::Grid3& g, int axis) { return g.extent(axis); }

// The boundary vents as line segments [x0, y0, x1, y1] in the x-y picture: a segment along its
// wall, or in 3D a vent on a front or back side as its patch's four edges.
template <class Model>
std::vector<std::array<double, 4>> vent_segments(const Model& model) {
  std::vector<std::array<double, 4>> out;
  for (int v = 0; v < model.vent_count(); ++v) {
    const std::size_t vs = static_cast<std::size_t>(v);
    const int side = model.vent_sides[vs], axis = side / 2;
    // The vent's extent along a tangent axis, clipped to the domain.
    auto span_along = [&](int tangent, double centre, double width) {
      return std::array<double, 2>{std::max(0.0, centre - 0.5 * width),
                                   std::min(extent_of(model.grid, tangent), centre + 0.5 * width)};
    };
    if (axis == 2) {
      const auto x = span_along(0, model.vent_position.values()[vs], model.vent_width.values()[vs]);
      const auto y = span_along(1, model.vent_position2.values()[vs], model.vent_width2.values()[vs]);
      out.push_back({x[0], y[0], x[1], y[0]});
      out.push_back({x[1], y[0], x[1], y[1]});
      out.push_back({x[1], y[1], x[0], y[1]});
      out.push_back({x[0], y[1], x[0], y[0]});
      continue;
    }
    const double wall = side % 2 == 0 ? 0.0 : extent_of(model.grid, axis);
    const auto t = span_along(1 - axis, model.vent_position.values()[vs], model.vent_width.values()[vs]);
    out.push_back(axis == 0 ? std::array<double, 4>{wall, t[0], wall, t[1]} : std::array<double, 4>{t[0], wall, t[1], wall});
  }
  return out;
}

// Appends to `arrows` the flow of each boundary vent on a side seen in the x-y picture at step t:
// from the vent's centre along its wall's inward normal (outward for outflow), as long as the
// vent is wide times its speed (at most twice).
template <class Model>
void add_vent_arrows(const Model& model, int t, json& arrows) {
  for (int v = 0; v < model.vent_count(); ++v) {
    const std::size_t vs = static_cast<std::size_t>(v);
    const int side = model.vent_sides[vs], axis = side / 2;
    if (axis == 2) continue;  // a front or back vent blows along z, out of the picture
    int knot;
    double fraction;
    const double speed = model.scheduled(model.vent_speed, v, t, knot, fraction);
    const double inward = side % 2 == 0 ? 1.0 : -1.0;
    const double length = model.vent_width.values()[vs] * std::min(2.0, std::abs(speed)) * inward * (speed < 0 ? -1 : 1);
    const double wall = side % 2 == 0 ? 0.0 : extent_of(model.grid, axis), along = model.vent_position.values()[vs];
    if (axis == 0) arrows.push_back({wall, along, length, 0.0});
    else arrows.push_back({along, wall, 0.0, length});
  }
}

// Pictures of the density along a run (about 30, and the last step's), each from
// picture(state), with the largest value over all of them.
struct Pictures {
  std::vector<std::vector<double>> views;
  std::vector<int> times;
  double largest = 1e-12;
};

// Appends to `frames` a frame per picture: nx x ny samples of `pixel` metres, 0-255 of the
// largest, with arrows for the flow each source drives at its step (as long as twice its radius
// times its speed, at most twice; in 3D projected onto the x-y plane by the source's tilt) and
// the boundary vents' arrows.
template <class Model>
void add_density_frames(const Model& model, const Pictures& pictures, int nx, int ny, double pixel, json& frames) {
  for (std::size_t f = 0; f < pictures.views.size(); ++f) {
    const int t = pictures.times[f];
    json arrows = json::array();
    for (int s = 0; s < model.source_count(); ++s) {
      const std::size_t si = static_cast<std::size_t>(s);
      int knot;
      double fraction;
      const double speed = model.scheduled(model.speed, s, t, knot, fraction);
      const double angle = model.scheduled(model.angle, s, t, knot, fraction);
      double length = 0.0, sign = 1.0;
      if constexpr (std::is_same_v<Model, fl::SmokeModel3>) {
        const double tilt = model.scheduled(model.tilt, s, t, knot, fraction);
        length = 2.0 * model.source_radius.values()[si] * std::min(2.0, speed) * std::cos(tilt);
      } else {
        length = 2.0 * model.source_radius.values()[si] * std::min(2.0, std::abs(speed));
        sign = speed < 0 ? -1.0 : 1.0;
      }
      arrows.push_back({model.source_x.values()[si], model.source_y.values()[si], length * std::cos(angle) * sign,
                        length * std::sin(angle) * sign});
    }
    add_vent_arrows(model, t, arrows);
    json values = json::array();
    for (double v : pictures.views[f]) values.push_back(static_cast<int>(std::lround(255.0 * v / pictures.largest)));
    frames.push_back({{"label", "step " + std::to_string(t)},
                      {"arrows", std::move(arrows)},
                      {"field", {{"nx", nx}, {"ny", ny}, {"values", values}, {"box", {0.0, 0.0, nx * pixel, ny * pixel}}, {"lo", 0}, {"hi", 255}}}});
  }
}

Pictures record_pictures(System& system, TrajectoryLoss& loss, int steps,
                         const std::function<std::vector<double>(std::span<const double>)>& picture) {
  Pictures p;
  const int stride = std::max(1, steps / 30);
  RolloutOptions record;
  record.observer = [&](int t, std::span<const double> state) {
    if (t % stride != 0 && t != steps) return;
    p.views.push_back(picture(state));
    for (double v : p.views.back()) p.largest = std::max(p.largest, v);
    p.times.push_back(t);
  };
  Rollout(system, loss, steps, record).loss();
  return p;
}

}  // namespace

json smoke_summary(fl::Smoke& system, const fl::SmokeLoss& loss, std::span<const double> final_state) {
  const fl::SmokeModel& model = system.model();
  json j = {{"cells", {model.grid.nx(), model.grid.ny()}},
            {"sources", model.source_names},
            {"vents", model.vent_names},
            {"pressure_iterations_max", system.projection().max_iterations_seen()}};
  if (!final_state.empty()) {
    if (!loss.settings().target.empty()) j["final_image_mismatch"] = loss.image_mismatch(final_state);
    if (!loss.settings().region.empty()) j["final_region_density"] = loss.region_density(final_state);
    const auto d = fl::fields_of(model.grid, final_state).density;
    double mass = 0.0;
    for (double v : d) mass += v;
    j["final_smoke_mass"] = mass * model.grid.h() * model.grid.h();
  }
  return j;
}

json smoke3d_summary(fl::Smoke3& system, const fl::SmokeLoss3& loss, std::span<const double> final_state) {
  const fl::SmokeModel3& model = system.model();
  const fl::Grid3& g = model.grid;
  json j = {{"cells", {g.n(0), g.n(1), g.n(2)}},
            {"sources", model.source_names},
            {"vents", model.vent_names},
            {"pressure_iterations_max", system.projection().max_iterations_seen()}};
  if (!final_state.empty()) {
    j["final_region_density"] = loss.region_density(final_state);
    double mass = 0.0;
    for (double v : fl::fields_of(g, final_state).density) mass += v;
    j["final_smoke_mass"] = mass * g.h() * g.h() * g.h();
  }
  return j;
}

json smoke_frames(fl::Smoke& system, TrajectoryLoss& loss, int steps) {
  const fl::SmokeModel& model = system.model();
  const fl::Grid& g = model.grid;
  const int stride_cells = std::max(1, (std::max(g.nx(), g.ny()) + 63) / 64);
  const int nx = (g.nx() + stride_cells - 1) / stride_cells, ny = (g.ny() + stride_cells - 1) / stride_cells;
  const Pictures pictures = record_pictures(system, loss, steps, [&](std::span<const double> state) {
    const auto d = fl::fields_of(g, state).density;
    std::vector<double> coarse(static_cast<std::size_t>(nx * ny), 0.0);
    std::vector<int> count(coarse.size(), 0);
    for (int j = 0; j < g.ny(); ++j)
      for (int i = 0; i < g.nx(); ++i) {
        const std::size_t k = static_cast<std::size_t>((j / stride_cells) * nx + i / stride_cells);
        coarse[k] += d[static_cast<std::size_t>(g.cell(i, j))];
        ++count[k];
      }
    for (std::size_t k = 0; k < coarse.size(); ++k) coarse[k] /= count[k];
    return coarse;
  });
  json background = {{"lines", json::array()}};
  // A circle [x, y, r] or a box [x0, y0, x1, y1] as line segments.
  auto outline = [&](bool circle, const std::vector<double>& v, double colour) {
    const int sides = circle ? 24 : 4;
    for (int k = 0; k < sides; ++k) {
      double p[2][2];
      for (int e = 0; e < 2; ++e) {
        const int m = (k + e) % sides;
        if (circle) {
          const double a = 2.0 * std::numbers::pi * m / sides;
          p[e][0] = v[0] + v[2] * std::cos(a);
          p[e][1] = v[1] + v[2] * std::sin(a);
        } else {
          p[e][0] = (m == 1 || m == 2) ? v[2] : v[0];
          p[e][1] = m >= 2 ? v[3] : v[1];
        }
      }
      background["lines"].push_back({p[0][0], p[0][1], p[1][0], p[1][1], colour});
    }
  };
  outline(false, {0.0, 0.0, g.width(), g.height()}, 0.0);
  // Obstacles as drawn by the grid: the edges between solid cells and the rest.
  for (int j = 0; j < g.ny(); ++j)
    for (int i = 0; i < g.nx(); ++i) {
      if (!g.solid(g.cell(i, j))) continue;
      const double x0 = i * g.h(), y0 = j * g.h(), x1 = x0 + g.h(), y1 = y0 + g.h();
      auto open = [&](int a, int b) { return a < 0 || b < 0 || a >= g.nx() || b >= g.ny() || !g.solid(g.cell(a, b)); };
      if (open(i - 1, j)) background["lines"].push_back({x0, y0, x0, y1, -1.0});
      if (open(i + 1, j)) background["lines"].push_back({x1, y0, x1, y1, -1.0});
      if (open(i, j - 1)) background["lines"].push_back({x0, y0, x1, y0, -1.0});
      if (open(i, j + 1)) background["lines"].push_back({x0, y1, x1, y1, -1.0});
    }
  for (int s = 0; s < model.source_count(); ++s)
    outline(true,
            {model.source_x.values()[static_cast<std::size_t>(s)], model.source_y.values()[static_cast<std::size_t>(s)],
             model.source_radius.values()[static_cast<std::size_t>(s)]},
            1.0);
  for (const std::array<double, 4>& segment : vent_segments(model))
    background["lines"].push_back({segment[0], segment[1], segment[2], segment[3], 1.0});
  json out = {{"legend", "smoke density (dark: dense); obstacles blue, sources red with the flow they drive, "
                         "boundary vents red on their walls with the flow they drive"},
              {"scale", 1.0},
              {"background", background},
              {"frames", json::array()}};
  add_density_frames(model, pictures, nx, ny, g.h() * stride_cells, out["frames"]);
  return out;
}

namespace {

// A shape's outline in the x-y side view: a rectangle [x0, y0, x1, y1], or a circle [x, y, r]
// for a sphere or a cylinder along z (`round`).
std::array<double, 4> side_view(const fl::SolidShape3& s, bool& round) {
  round = s.kind == fl::SolidShape3::kSphere || (s.kind == fl::SolidShape3::kCylinder && s.axis == 2);
  const std::vector<double>& v = s.v;
  if (s.kind == fl::SolidShape3::kBox) return {v[0], v[1], v[3], v[4]};
  if (s.kind == fl::SolidShape3::kSphere) return {v[0], v[1], v[3], 0.0};
  if (s.axis == 2) return {v[0], v[1], v[2], 0.0};
  if (s.axis == 0) return {v[3], v[0] - v[2], v[4], v[0] + v[2]};
  return {v[0] - v[2], v[3], v[0] + v[2], v[4]};
}

}  // namespace

json smoke3d_frames(fl::Smoke3& system, TrajectoryLoss& loss, int steps, const std::vector<fl::SolidShape3>& obstacles,
                    const std::vector<double>& region) {
  const fl::SmokeModel3& model = system.model();
  const fl::Grid3& g = model.grid;
  const int stride_cells = std::max(1, (std::max(g.n(0), g.n(1)) + 63) / 64);
  const int nx = (g.n(0) + stride_cells - 1) / stride_cells, ny = (g.n(1) + stride_cells - 1) / stride_cells;
  const Pictures pictures = record_pictures(system, loss, steps, [&](std::span<const double> state) {
    const auto d = fl::fields_of(g, state).density;
    std::vector<double> view(static_cast<std::size_t>(nx * ny), 0.0);
    const double per_sample = 1.0 / (static_cast<double>(g.n(2)) * stride_cells * stride_cells);
    const fl::Lattice3 cl = g.cell_lattice();
    for (Index c = 0; c < g.cells(); ++c) {
      const std::array<int, 3> ijk = cl.coordinates(c);
      view[static_cast<std::size_t>((ijk[1] / stride_cells) * nx + ijk[0] / stride_cells)] += d[static_cast<std::size_t>(c)] * per_sample;
    }
    return view;
  });
  json lines = json::array();
  auto rectangle = [&](double x0, double y0, double x1, double y1, double colour) {
    const double p[5][2] = {{x0, y0}, {x1, y0}, {x1, y1}, {x0, y1}, {x0, y0}};
    for (int k = 0; k < 4; ++k) lines.push_back({p[k][0], p[k][1], p[k + 1][0], p[k + 1][1], colour});
  };
  rectangle(0.0, 0.0, g.extent(0), g.extent(1), 0.0);
  auto circle = [&](double cx, double cy, double r, double colour) {
    for (int k = 0; k < 24; ++k) {
      const double a0 = 2.0 * std::numbers::pi * k / 24, a1 = 2.0 * std::numbers::pi * (k + 1) / 24;
      lines.push_back({cx + r * std::cos(a0), cy + r * std::sin(a0), cx + r * std::cos(a1), cy + r * std::sin(a1), colour});
    }
  };
  for (const fl::SolidShape3& o : obstacles) {
    bool round;
    const std::array<double, 4> b = side_view(o, round);
    if (round) circle(b[0], b[1], b[2], -1.0);
    else rectangle(b[0], b[1], b[2], b[3], -1.0);
  }
  if (!region.empty()) rectangle(region[0], region[1], region[3], region[4], 0.5);
  for (int s = 0; s < model.source_count(); ++s) {
    const std::size_t si = static_cast<std::size_t>(s);
    circle(model.source_x.values()[si], model.source_y.values()[si], model.source_radius.values()[si], 1.0);
  }
  for (const std::array<double, 4>& segment : vent_segments(model))
    lines.push_back({segment[0], segment[1], segment[2], segment[3], 1.0});
  json out = {{"legend", "smoke density averaged along z, a side view (dark: dense); obstacles blue, target region "
                         "outlined, sources red with the flow they drive, boundary vents red on their walls with the "
                         "flow they drive"},
              {"scale", 1.0},
              {"background", {{"lines", lines}}},
              {"frames", json::array()}};
  add_density_frames(model, pictures, nx, ny, g.h() * stride_cells, out["frames"]);
  return out;
}

}  // namespace simgrad::report
