// FEM bodies for creatures: a text-row plan (body_plan.hpp) assembled into linear triangles
// instead of springs. Every square module is two triangles split along its rising diagonal, a
// '^' foot is its one triangle; 'R' modules are stiffer by the grid's stiff factor and 'B'
// modules heavier, so that each corner carries about the block's mass. An 'H' or 'V' module is
// one actuator: its two triangles' rest shapes stretch along x or y by 1 + the controller's
// output (at most the grid's actuation strength; an active strain, fem_model.hpp), as its
// springs' rest lengths would.
#pragma once

#include <string>
#include <vector>

#include "sims/creature/body_plan.hpp"
#include "sims/fem/model.hpp"

namespace simgrad::creature {

// The material of an FEM body (2D, plane strain, per unit thickness).
struct FemBodyOptions {
  double youngs_modulus = 1e4;  // N/m per unit thickness; stable at dt = 0.004 with the lumped masses
  double poisson_ratio = 0.3;
  double damping = 0.0;         // Rayleigh stiffness-proportional beta (s)
  fem::MaterialModel material = fem::MaterialModel::kNeoHookean;
};

// Assembles the rows into `model` with the body options (time step, steps, gravity, drag
// as mass-proportional damping, ground): nodes numbered as parse_grid numbers them (so a plan's
// head and block carry over), density such that an inner node weighs 1. Returns each actuator's
// strength, in module order (bottom row first, left to right). GridError for bad rows, and for
// rows without an actuator.
std::vector<double> assemble_fem(const std::vector<std::string>& rows, const GridOptions& grid,
                                 const FemBodyOptions& options, const BodyOptions& body,
                                 fem::FemModel<2>& model);

}  // namespace simgrad::creature
