#include "scenario/fluid3d_scenario.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "scenario/fluid_scenario.hpp"
#include "sims/fluid/smoke3d.hpp"
#include "sims/fluid/solid_shape3.hpp"

namespace simgrad::app {

namespace fl = simgrad::fluid;
using nlohmann::json;

namespace {

// The grid: "cells": [nx, ny, nz], "cell_size", "sides": one word for all six, or {"left",
// "right", "bottom", "top", "front" (z low), "back" (z high)}.
fl::Grid3 read_grid3(const ScenarioNode& node) {
  const std::vector<std::int64_t> n = node.integers("cells", 2, 512, 3);
  const double h = node.positive("cell_size");
  std::array<fl::Side, 6> s{};
  static constexpr const char* kNames[6] = {"left", "right", "bottom", "top", "front", "back"};
  if (node.has("sides") && node.member("sides").json().is_string()) {
    const fl::Side all = read_side(node, "sides");
    s.fill(all);
  } else if (auto sides = node.optional_child("sides")) {
    for (std::size_t k = 0; k < 6; ++k) s[k] = read_side(*sides, kNames[k]);
    for (std::size_t a = 0; a < 3; ++a)
      if ((s[2 * a] == fl::Side::kPeriodic) != (s[2 * a + 1] == fl::Side::kPeriodic))
        sides->fail(kNames[2 * a + 1], "a periodic side needs its opposite side periodic too");
  }
  return fl::Grid3({static_cast<int>(n[0]), static_cast<int>(n[1]), static_cast<int>(n[2])}, h, s);
}

// A box [x0, y0, z0, x1, y1, z1] from field `key`.
std::vector<double> read_box(const ScenarioNode& node, std::string_view key) {
  std::vector<double> b = node.numbers(key, 6);
  if (!(b[3] > b[0] && b[4] > b[1] && b[5] > b[2]))
    node.fail(key, "expected [x0, y0, z0, x1, y1, z1] with x1 > x0, y1 > y0 and z1 > z0");
  return b;
}

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

// An obstacle: {"box": [x0, y0, z0, x1, y1, z1]}, {"sphere": [x, y, z, r]} or {"cylinder": [a, b,
// r, lo, hi], "axis": "x" | "y" | "z" (default y)}.
fl::SolidShape3 read_shape3(const ScenarioNode& node) {
  fl::SolidShape3 s;
  if (node.has("sphere")) {
    s.kind = fl::SolidShape3::kSphere;
    s.v = node.numbers("sphere", 4);
    if (!(s.v[3] > 0.0)) node.fail("sphere", "expected [x, y, z, r] with a radius r > 0");
  } else if (node.has("cylinder")) {
    s.kind = fl::SolidShape3::kCylinder;
    s.v = node.numbers("cylinder", 5);
    const std::string axis = node.choice("axis", {"x", "y", "z"}, "y");
    s.axis = axis[0] - 'x';
    if (!(s.v[2] > 0.0 && s.v[4] > s.v[3]))
      node.fail("cylinder", "expected [a, b, r, lo, hi]: a centre over the other two axes, a radius r > 0, hi > lo");
  } else {
    s.v = read_box(node, "box");
  }
  return s;
}

class Fluid3dScenario final : public FluidScenarioOf<fl::SmokeModel3, fl::Smoke3> {
 public:
  Fluid3dScenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
    steps = static_cast<int>(root.integer("steps", 1, 100000));
    fl::Grid3 grid = read_grid3(root.child("grid"));
    if (root.has("obstacles")) {
      for (const ScenarioNode& o : root.array("obstacles")) obstacles_.push_back(read_shape3(o.as_object()));
      grid.set_solid(fl::solid_mask(grid, obstacles_));
    }
    const fl::SmokeSettings s = read_smoke_settings(root, steps, grid.h(), 3);
    model_.reset(std::move(grid), s);
    if (s.confinement) model_.confinement.value[0] = root.non_negative("vorticity_confinement");
    if (root.has("initial_velocity")) {
      const std::vector<double> v = root.numbers("initial_velocity", 3);
      std::size_t at = 0;
      for (int a = 0; a < 3; ++a)
        for (Index k = 0, n = model_.grid.face_count(a); k < n; ++k) model_.initial_velocity.value[at++] = v[static_cast<std::size_t>(a)];
    }
    read_fluid_sources(root, model_, 3);
    set_up(root, overrides, read_loss(root.child("loss")));
  }

  nlohmann::json summary() override {
    const auto final_state = problem_->rollout().final_state();
    const fl::Grid3& g = model_.grid;
    json j = {{"cells", {g.n(0), g.n(1), g.n(2)}},
              {"sources", model_.source_names},
              {"vents", model_.vent_names},
              {"pressure_iterations_max", system_->projection().max_iterations_seen()}};
    if (!final_state.empty()) {
      j["final_region_density"] = loss_->region_density(final_state);
      double mass = 0.0;
      for (double v : fl::fields_of(g, final_state).density) mass += v;
      j["final_smoke_mass"] = mass * g.h() * g.h() * g.h();
    }
    return j;
  }

  // The density averaged along z per frame (a side view, y up; at most 64 x 64 samples, 0-255 of
  // the run's largest); obstacles and the target region as outlines, sources as circles with
  // the flow they drive projected onto the x-y plane.
  nlohmann::json frames(std::span<const double> x) override {
    problem_->assign(x);
    const fl::Grid3& g = model_.grid;
    const int stride_cells = std::max(1, (std::max(g.n(0), g.n(1)) + 63) / 64);
    const int nx = (g.n(0) + stride_cells - 1) / stride_cells, ny = (g.n(1) + stride_cells - 1) / stride_cells;
    const Pictures pictures = record_pictures([&](std::span<const double> state) {
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
    const std::vector<std::vector<double>>& views = pictures.views;
    const std::vector<int>& times = pictures.times;
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
    for (const fl::SolidShape3& o : obstacles_) {
      bool round;
      const std::array<double, 4> b = side_view(o, round);
      if (round) circle(b[0], b[1], b[2], -1.0);
      else rectangle(b[0], b[1], b[2], b[3], -1.0);
    }
    if (!region_.empty()) rectangle(region_[0], region_[1], region_[3], region_[4], 0.5);
    for (int s = 0; s < model_.source_count(); ++s) {
      const std::size_t si = static_cast<std::size_t>(s);
      circle(model_.source_x.value[si], model_.source_y.value[si], model_.source_radius.value[si], 1.0);
    }
    for (const std::array<double, 4>& segment : vent_segments(model_))
      lines.push_back({segment[0], segment[1], segment[2], segment[3], 1.0});
    json out = {{"legend", "smoke density averaged along z, a side view (dark: dense); obstacles blue, target region "
                           "outlined, sources red with the flow they drive, boundary vents red on their walls with the "
                           "flow they drive"},
                {"scale", 1.0},
                {"background", {{"lines", lines}}},
                {"frames", json::array()}};
    for (std::size_t f = 0; f < views.size(); ++f) {
      json arrows = json::array();
      for (int s = 0; s < model_.source_count(); ++s) {
        int knot;
        double fraction;
        const double speed = model_.scheduled(model_.speed, s, times[f], knot, fraction);
        const double angle = model_.scheduled(model_.angle, s, times[f], knot, fraction);
        const double tilt = model_.scheduled(model_.tilt, s, times[f], knot, fraction);
        const double length = 2.0 * model_.source_radius.value[static_cast<std::size_t>(s)] * std::min(2.0, speed) * std::cos(tilt);
        arrows.push_back({model_.source_x.value[static_cast<std::size_t>(s)], model_.source_y.value[static_cast<std::size_t>(s)],
                          length * std::cos(angle), length * std::sin(angle)});
      }
      add_vent_arrows(model_, times[f], arrows);
      out["frames"].push_back(density_frame(times[f], views[f], pictures.largest, nx, ny, g.h() * stride_cells, arrows));
    }
    return out;
  }

 private:
  fl::SmokeLossSettings read_loss(const ScenarioNode& loss) {
    fl::SmokeLossSettings l;
    if (loss.has("target_image")) loss.fail("target_image", "3D grids take a \"region\" to fill, not a target image");
    region_ = read_box(loss, "region");
    l.region = fl::solid_mask(model_.grid, {fl::SolidShape3{fl::SolidShape3::kBox, region_, 1}});
    if (std::none_of(l.region.begin(), l.region.end(), [](std::uint8_t r) { return r != 0; }))
      loss.fail("region", "the region holds no cell centre");
    l.region_step = static_cast<int>(loss.integer("region_step", 0, steps, steps));
    if (loss.has("region_density")) l.region_target = loss.non_negative("region_density");
    l.smoothness = loss.non_negative("smoothness", 0.0);
    return l;
  }

  std::vector<fl::SolidShape3> obstacles_;
  std::vector<double> region_;
};

}  // namespace

std::unique_ptr<Scenario> load_fluid3d_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides) {
  try {
    return std::make_unique<Fluid3dScenario>(root, overrides);
  } catch (const std::invalid_argument& e) {
    root.fail("grid", e.what());
  }
}

}  // namespace simgrad::app
