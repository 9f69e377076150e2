// The MPM model: what does not change during a rollout (the grid, the walls and colliders, the
// particles' materials, volumes and actuators, settings) and the parameters being tuned (per
// particle: Young's modulus, Poisson ratio, density, friction angle, hardening, bulk modulus, the
// initial positions and velocities; per step and actuator: the controls), each an Array whose
// adjoint the rollout accumulates into. A region's constants are one tuned value over its
// particles (the binder's groups); a global one, uniform.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/field.hpp"
#include "sims/mpm/material.hpp"

namespace simgrad::mpm {

// What a wall or collider does to the grid velocity of a node inside it, with n its normal
// (pointing out of the obstacle) and v_n = v . n:
//   sticky       v = 0 where v_n < 0 (the node moves into it; DiffTaichi's walls)
//   slip         v -= v_n n always (no friction, no separation)
//   separating   where v_n < 0: v -= v_n n, and Coulomb friction mu takes |v_t| to
//                max(0, |v_t| + mu v_n) (a ground with friction)
enum class WallKind : std::uint8_t { kSticky, kSlip, kSeparating };

struct Wall {
  WallKind kind = WallKind::kSeparating;
  double friction = 0.0;
};

enum class ColliderShape : std::uint8_t { kBox, kSphere };

// A static obstacle: an axis-aligned box (centre, half extents) or a sphere (centre, radius).
template <int D>
struct Collider {
  ColliderShape shape = ColliderShape::kBox;
  Vec<double, D> centre = Vec<double, D>::zero();
  Vec<double, D> half_extent = Vec<double, D>::zero();
  double radius = 0.0;
  Wall wall;
};

template <int D>
struct MpmSettings {
  Vec<int, D> nodes;   // grid nodes per axis; node i sits at i dx
  double dx = 1.0 / 128.0;
  double dt = 1e-4;
  Vec<double, D> gravity = Vec<double, D>::zero();
  int bound = 3;       // the walls' thickness in cells
  // The domain's walls, two per axis: [2 d] at x_d = 0, [2 d + 1] at the far end.
  Wall walls[2 * D];
  std::vector<Collider<D>> colliders;
  double actuation_strength = 1.0;  // active Kirchhoff stress per unit signal
  // Relaxations (0: hard): softplus sharpness of separating walls' contact (per unit speed) and
  // of the return mappings (per unit strain).
  double boundary_sharpness = 0.0;
  double plastic_sharpness = 0.0;
  double critical_compression = 2.5e-2;  // snow theta_c
  double critical_stretch = 7.5e-3;      // snow theta_s
  // dt may be at most cfl dx / c, c the fastest elastic wave speed of a particle at rest.
  double cfl = 1.0;
};

// A particle or setting that cannot be simulated: names the field (as the tunables table and
// the scenario call it) and, for a particle's value, the particle.
class MpmInputError : public std::invalid_argument {
 public:
  MpmInputError(std::string field, Index particle, const std::string& message)
      : std::invalid_argument(field + (particle >= 0 ? " of particle " + std::to_string(particle) : "") + ": " + message),
        field_(std::move(field)),
        particle_(particle),
        message_(message) {}
  const std::string& field() const { return field_; }
  Index particle() const { return particle_; }
  // What is wrong, without the field and particle.
  const std::string& message() const { return message_; }

 private:
  std::string field_;
  Index particle_;
  std::string message_;
};

// A particle that left the grid during a run.
class ParticleLeftGrid : public std::runtime_error {
 public:
  ParticleLeftGrid(int step, Index particle, const std::string& where)
      : std::runtime_error("step " + std::to_string(step) + ": particle " + std::to_string(particle) + " left the grid " + where),
        step_(step),
        particle_(particle) {}
  int step() const { return step_; }
  Index particle() const { return particle_; }

 private:
  int step_;
  Index particle_;
};

// A block of particles to add: a box (centre, half extents) or a sphere, filled on a lattice of
// `spacing` (default: half a cell, DiffTaichi's two particles per cell and axis).
template <int D>
struct BodyOptions {
  ColliderShape shape = ColliderShape::kBox;
  Vec<double, D> centre = Vec<double, D>::zero();
  Vec<double, D> half_extent = Vec<double, D>::zero();
  double radius = 0.0;
  double spacing = 0.0;          // 0: dx / 2
  Vec<int, D> counts{};          // particles per axis of a box; 0: from the spacing
  double volume = 0.0;           // per particle; 0: spacing^D
  Material material = Material::kCorotated;
  double youngs = 1e4, poisson = 0.3, density = 1e3;
  double friction_angle = 30.0;  // degrees
  double hardening = 10.0;
  double bulk_modulus = 1e4;
  Vec<double, D> velocity = Vec<double, D>::zero();
  int actuator = -1;             // -1: passive
  Vec<double, D> direction = Vec<double, D>::unit(D - 1);  // of the active stress
};

template <int D>
struct MpmModel {
  MpmSettings<D> settings;
  Index particle_count = 0;
  int actuator_count = 0;
  std::vector<Material> material;    // per particle
  std::vector<std::int32_t> actuator;  // per particle, -1: passive
  std::vector<int> body;             // per particle: which added body it came from
  Array<1> volume;                   // per particle, reference volume
  Array<D> direction;                // per particle, unit direction of the active stress

  // Parameters (per particle, but the controls).
  Array<1> youngs, poisson, density;
  Array<1> friction_angle;   // degrees
  Array<1> hardening;
  Array<1> bulk_modulus;
  Array<D> initial_position, initial_velocity;
  Array<1> controls;         // per step and actuator; a step past the last row reads the last

  // Adds the particles of a body; returns how many.
  Index add_body(const BodyOptions<D>& body);
  // Sets the number of steps the controls cover (rows of actuator_count signals, zeros).
  void resize_controls(int steps);
  // Throws MpmInputError naming the field (and particle) of the first value that cannot be
  // simulated: a particle outside the grid, a non-positive density or volume, nu outside
  // (-1, 0.5), a non-positive modulus, dt beyond the CFL limit of a particle's material.
  void validate() const;
  // The largest dt the CFL limit allows for these particles at rest.
  double max_stable_dt() const;
  // A copy with the hard boundaries and return mappings (sharpnesses 0).
  MpmModel hard_twin() const;
  Index node_count() const;
  // Every tunable array, for clearing adjoints.
  std::vector<Array<1>*> scalar_parameters();
};

extern template struct MpmModel<2>;
extern template struct MpmModel<3>;

}  // namespace simgrad::mpm
