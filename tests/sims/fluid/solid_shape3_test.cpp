// 3D obstacles from shapes: the mask holds the cells a sphere or an axis-aligned cylinder covers
// (their volumes, and cells just inside and outside), and flow neither enters nor leaves them.
#include "sims/fluid/solid_shape3.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "core/rng.hpp"
#include "core/rollout.hpp"
#include "sims/fluid/boundary_vent.hpp"
#include "sims/fluid/losses.hpp"
#include "sims/fluid/smoke.hpp"

namespace simgrad::fluid {
namespace {

constexpr std::array<Side, 6> kClosed = {Side::kClosed, Side::kClosed, Side::kClosed,
                                         Side::kClosed, Side::kClosed, Side::kClosed};

double solid_volume(const Grid3& g, const std::vector<std::uint8_t>& mask) {
  double cells = 0.0;
  for (std::uint8_t m : mask) cells += m;
  return cells * g.h() * g.h() * g.h();
}

TEST(SolidShape3, SphereCoversItsVolume) {
  const Grid3 g({20, 20, 20}, 0.05, kClosed);
  const SolidShape3 sphere{SolidShape3::kSphere, {0.5, 0.52, 0.48, 0.3}, 1};
  const std::vector<std::uint8_t> mask = solid_mask(g, {sphere});
  EXPECT_NEAR(solid_volume(g, mask), 4.0 / 3.0 * std::numbers::pi * 0.027, 0.05 * 4.0 / 3.0 * std::numbers::pi * 0.027);
  // Cell (9, 10, 9) is centred 0.026 from the centre; (15, 10, 9) 0.275; (16, 10, 9) 0.325.
  EXPECT_TRUE(mask[static_cast<std::size_t>(g.cell(9, 10, 9))]);
  EXPECT_TRUE(mask[static_cast<std::size_t>(g.cell(15, 10, 9))]);
  EXPECT_FALSE(mask[static_cast<std::size_t>(g.cell(16, 10, 9))]);
  EXPECT_FALSE(mask[static_cast<std::size_t>(g.cell(2, 2, 2))]);
}

TEST(SolidShape3, CylindersFollowTheirAxis) {
  const Grid3 g({20, 20, 20}, 0.05, kClosed);
  for (int axis = 0; axis < 3; ++axis) {
    // Radius 0.2 around (0.5, 0.5) over the other two axes, from 0.2 to 0.8 along the axis.
    const SolidShape3 cylinder{SolidShape3::kCylinder, {0.5, 0.5, 0.2, 0.2, 0.8}, axis};
    const std::vector<std::uint8_t> mask = solid_mask(g, {cylinder});
    const double volume = std::numbers::pi * 0.04 * 0.6;
    EXPECT_NEAR(solid_volume(g, mask), volume, 0.08 * volume) << axis;
    // Along the axis at index 5 (0.275) inside, at 2 (0.125) outside; across, 3 cells off (0.177
    // from the axis) inside, 5 cells off (0.276) outside.
    auto at = [&](int along, int off) {
      std::array<int, 3> ijk = {10, 10, 10};
      ijk[static_cast<std::size_t>(axis)] = along;
      ijk[static_cast<std::size_t>(axis == 0 ? 1 : 0)] += off;
      return mask[static_cast<std::size_t>(g.cell(ijk[0], ijk[1], ijk[2]))] != 0;
    };
    EXPECT_TRUE(at(5, 0)) << axis;
    EXPECT_FALSE(at(2, 0)) << axis;
    EXPECT_TRUE(at(10, 3)) << axis;
    EXPECT_FALSE(at(10, 5)) << axis;
  }
}

// A vent blows into a room holding a sphere and a cylinder; after every step the faces of
// every solid cell carry no velocity.
TEST(SolidShape3, FlowDoesNotEnterSolids) {
  SmokeModel3 m;
  SmokeSettings s;
  s.dt = 0.03;
  s.steps = 5;
  s.buoyancy = 1.0;
  Grid3 g({8, 8, 8}, 0.125, {Side::kClosed, Side::kClosed, Side::kClosed, Side::kOpen, Side::kClosed, Side::kClosed});
  g.set_solid(solid_mask(g, {SolidShape3{SolidShape3::kSphere, {0.5, 0.4, 0.5, 0.2}, 1},
                             SolidShape3{SolidShape3::kCylinder, {0.8, 0.3, 0.1, 0.0, 0.7}, 1}}));
  m.reset(g, s);
  for (std::size_t k = 0; k < m.initial_velocity.values().size(); ++k) m.initial_velocity.values()[k] = 0.3 * standard_normal(3, 0, k);
  m.add_boundary_vent("inlet", 0, {0.4, 0.5}, {0.3, 0.3}, 1.0, 1.0, 1.0);
  Smoke3 system(m);
  SmokeLoss3 loss(m, {{}, 1.0, std::vector<std::uint8_t>(static_cast<std::size_t>(g.cells()), 1), -1, {}, 0.0});
  RolloutOptions o;
  int solid_cells = 0;
  o.observer = [&](int, std::span<const double> state) {
    const ConstFields3View f = fields_of(m.grid, state);
    const Lattice3 cl = m.grid.cell_lattice();
    solid_cells = 0;
    for (Index c = 0; c < m.grid.cells(); ++c) {
      if (!m.grid.solid(c)) continue;
      ++solid_cells;
      const std::array<int, 3> ijk = cl.coordinates(c);
      for (int a = 0; a < 3; ++a) {
        const std::size_t as = static_cast<std::size_t>(a);
        EXPECT_EQ(f.velocity[as][static_cast<std::size_t>(m.grid.low_face(a, ijk))], 0.0);
        EXPECT_EQ(f.velocity[as][static_cast<std::size_t>(m.grid.high_face(a, ijk))], 0.0);
      }
    }
  };
  Rollout(system, loss, s.steps, o).loss();
  EXPECT_GT(solid_cells, 10);
}

}  // namespace
}  // namespace simgrad::fluid
