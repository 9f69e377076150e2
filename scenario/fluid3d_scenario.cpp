#include "scenario/fluid3d_scenario.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "report/fluid_frames.hpp"
#include "scenario/fluid_scenario.hpp"
#include "sims/fluid/smoke.hpp"
#include "sims/fluid/solid_shape3.hpp"

namespace simgrad::scenario {

namespace fl = simgrad::fluid;

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
    if (s.confinement) model_.confinement.values()[0] = root.non_negative("vorticity_confinement");
    if (root.has("initial_velocity")) {
      const std::vector<double> v = root.numbers("initial_velocity", 3);
      std::size_t at = 0;
      for (int a = 0; a < 3; ++a)
        for (Index k = 0, n = model_.grid.face_count(a); k < n; ++k) model_.initial_velocity.values()[at++] = v[static_cast<std::size_t>(a)];
    }
    read_fluid_sources(root, model_, 3);
    set_up(root, overrides, read_loss(root.child("loss")));
  }

  nlohmann::json summary() override { return report::smoke3d_summary(*system_, *loss_, problem_->rollout().final_state()); }

  // The density averaged along z per frame (a side view, y up), obstacles, the target region,
  // sources and vents with the flow they drive (report/fluid_frames.hpp).
  nlohmann::json frames(std::span<const double> x) override {
    problem_->assign(x);
    return report::smoke3d_frames(*system_, *loss_, steps, obstacles_, region_);
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

}  // namespace simgrad::scenario
