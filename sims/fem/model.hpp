// The FEM soft-body model: what does not change during a rollout (mesh, rest shapes, masses,
// pins, contact planes, settings) and the parameters being tuned (per-region Young's modulus,
// Poisson ratio and Rayleigh damping, gravity, initial state), each an Array whose adjoint the
// rollout accumulates into.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "core/field.hpp"
#include "core/incidence.hpp"
#include "sims/softbody/contact.hpp"
#include "sims/fem/material.hpp"

namespace simgrad::fem {

// An FEM body touches the world as the mass-spring body does (sims/softbody/contact.hpp).
using softbody::ContactBox;
using softbody::ContactModel;
using softbody::ContactPlane;
using softbody::PenaltySettings;

enum class FemIntegrator { kSymplecticEuler, kImplicitEuler };

struct FemSettings {
  FemIntegrator integrator = FemIntegrator::kSymplecticEuler;
  double dt = 1e-3;
  int steps = 1000;
  MaterialModel material = MaterialModel::kCorotated;
  PenaltySettings penalty;
  // Implicit Euler: Newton stops when its update is below this fraction of the largest velocity,
  // or stops shrinking (rounding level).
  double newton_tolerance = 1e-12;
  int newton_iterations = 30;
};

template <int D>
struct FemModel {
  static constexpr int kElementNodes = D + 1;  // triangle or tetrahedron

  FemSettings settings;
  Index node_count = 0;
  Incidence elements;         // arity D + 1
  Incidence element_regions;  // arity 1: each element's region
  int region_count = 0;
  std::vector<ContactPlane<D>> planes;
  std::vector<ContactBox<D>> boxes;  // static obstacles
  std::vector<std::uint8_t> pinned;  // per node
  Array<1> inverse_mass;             // per node; 0 for pinned nodes
  Array<D * D> rest_inverse;         // per element: Dm^-1, row by row
  Array<1> rest_volume;              // per element (area in 2D)
  std::vector<double> density;       // per region, mass per unit volume (per unit area in 2D)

  // Parameters.
  Array<1> youngs;            // per region (Pa)
  Array<1> poisson;           // per region
  Array<1> damping;           // per region: Rayleigh beta (s), stiffness-proportional
  // One entry: Rayleigh alpha (1/s), mass-proportional. Velocities decay by exp(-alpha dt) each
  // step (symplectic Euler), or feel a force -alpha M v (implicit Euler).
  Array<1> mass_damping;
  Array<D> gravity;           // one entry
  Array<D> initial_position;  // per node; also the rest shape
  Array<D> initial_velocity;  // per node

  // Actuated elements (creatures): element e with element_actuator[e] = k >= 0 has its rest
  // shape stretched along axis element_axis[e] by 1 + s, with s (the relative stretch, as a
  // controller's output times its strength) entry k of step t's row of `actuation`
  // (actuator_count entries per step; steps past the last row read the last). No actuators:
  // actuator_count = 0 and the vectors empty.
  int actuator_count = 0;
  std::vector<std::int32_t> element_actuator;
  std::vector<std::uint8_t> element_axis;
  Array<1> actuation;

  Index element_count() const { return elements.elements(); }
  // A copy with every relaxation at its hard twin (the penalty contact's), for re-scoring a tuned
  // model on the hard one without changing it.
  FemModel hard_twin() const;

  // Sets the mesh: rest positions (nodes x D), element nodes (elements x (D + 1)) and each
  // element's region (empty: all in region 0). An element given with negative orientation has
  // two nodes swapped; a degenerate one is an std::invalid_argument naming it. Regions get
  // E = 1e5 Pa, nu = 0.3, no damping and density 1000 until set; no gravity, nothing pinned.
  void build(std::span<const double> positions, std::vector<std::int32_t> element_nodes,
             std::vector<std::int32_t> regions, int steps);
  // Pins a node where it starts (it never moves).
  void pin(Index node);
  // Recomputes the lumped node masses (each element gives each node a (D + 1)-th of its mass)
  // from the densities and pins.
  void update_masses();
  // Sets the same material in every region.
  void set_material(double youngs_modulus, double poisson_ratio, double stiffness_damping, double mass_density);
  // Total mass of the body.
  double total_mass() const;
};

extern template struct FemModel<2>;
extern template struct FemModel<3>;

}  // namespace simgrad::fem
