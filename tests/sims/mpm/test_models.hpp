// Small MPM models for the tests: a block of particles of one material in a box of walls.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/rollout.hpp"
#include "sims/mpm/model.hpp"
#include "tests/sims/rollout_gradient.hpp"

namespace simgrad::mpm::testing {

// A D-dimensional grid of `nodes` per axis, dx = 1 / nodes, and a block of `material` of half
// size `half` at `centre` (each axis), with a small swirl in its initial velocity so that every
// kernel sees shear.
template <int D>
MpmModel<D> block_model(Material material, int nodes = 24, double half = 0.1, double centre = 0.5, double dt = 2e-3) {
  MpmModel<D> m;
  for (int d = 0; d < D; ++d) m.settings.nodes[d] = nodes;
  m.settings.dx = 1.0 / nodes;
  m.settings.dt = dt;
  m.settings.gravity[D - 1] = -2.0;
  BodyOptions<D> b;
  b.material = material;
  for (int d = 0; d < D; ++d) {
    b.centre[d] = centre;
    b.half_extent[d] = half;
  }
  b.youngs = 200.0;
  b.poisson = 0.25;
  b.density = 10.0;
  b.bulk_modulus = 100.0;
  b.friction_angle = 35.0;
  b.hardening = 5.0;
  m.add_body(b);
  for (Index p = 0; p < m.particle_count; ++p) {
    double* x = m.initial_position.values().data() + p * D;
    double* v = m.initial_velocity.values().data() + p * D;
    v[0] = 0.3 * (x[1] - centre);
    v[1] = -0.3 * (x[0] - centre) + 0.1 * std::sin(7.0 * x[0]);
  }
  return m;
}

using simgrad::testing::expect_gradient;

// A rollout's gradient in `array` against central differences of step 1e-4 (relative): the
// differences converge to the same digits from 1e-3 to 1e-5, while at 1e-6 those of a loss of
// order 1 lose to rounding the digits small derivatives need.
template <int K>
double expect_array_gradient(Rollout& rollout, Array<K>& array, const std::string& label, int directions = 3, double rtol = 1e-5) {
  return simgrad::testing::expect_array_gradient(rollout, array, label, directions, rtol, 1e-10, 1e-4);
}

}  // namespace simgrad::mpm::testing
