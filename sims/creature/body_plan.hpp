// Body plans: what a player builds. A plan is a list of nodes and springs (each spring with a
// stiffness and an actuation strength: the relative change of its rest length at full signal),
// written out directly or assembled from a grid of modules given as text rows:
//   .  empty          #  passive soft square      R  stiff passive square
//   V  square whose vertical edges are actuators (DiffTaichi's actuated square)
//   H  square whose horizontal edges are actuators
//   ^  triangle foot hanging under the cell above (DiffTaichi's mesh triangle)
//   B  a block to carry: a passive square whose corners weigh `block_mass` each
// Neighbouring modules share corner nodes and edges. assemble() turns a plan, replicated any
// number of times, into a mass-spring model whose actuators are the plan's actuated springs.
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "core/vec.hpp"
#include "sims/softbody/mass_spring_model.hpp"

namespace simgrad::creature {

struct PlanSpring {
  std::int32_t a = 0, b = 0;
  double length = 0.0;     // rest length
  double stiffness = 0.0;  // force per unit extension
  double actuation = 0.0;  // rest length scales by (1 + actuation * signal); 0: passive
};

struct BodyPlan {
  std::vector<Vec<double, 2>> nodes;
  std::vector<PlanSpring> springs;
  std::int32_t head = 0;  // the node whose position walking and reaching measure
  std::vector<double> mass;          // per node; empty: every node weighs 1
  std::vector<std::int32_t> block;   // the nodes of the block a carrying task measures

  // The actuated springs, in spring order: actuator k drives springs[actuated()[k]].
  std::vector<std::int32_t> actuated() const;
  // Throws std::invalid_argument on a spring joining a node to itself or a missing node, a
  // non-positive length or stiffness, a head or block node that is not a node, or masses that
  // are not one positive number per node.
  void validate() const;
};

// Builds plans from unit cells of a grid, as DiffTaichi's robot configuration does: nodes are
// created on first use and shared, and a spring between two nodes is added once (the first
// module to add it decides its actuation).
class ModuleGrid {
 public:
  ModuleGrid(double spacing, Vec<double, 2> origin) : spacing_(spacing), origin_(origin) {}

  // The node at grid point (i, j) (half-integers allowed), created on first use.
  std::int32_t point(double i, double j);
  // A spring between two nodes at their current distance, unless one joins them already.
  void spring(std::int32_t a, std::int32_t b, double stiffness, double actuation);
  // The square with lower-left corner (i, j): its vertical edges get `vertical`, its horizontal
  // edges `horizontal` as actuation (if not 0), then the rest of its edges and diagonals passive,
  // in DiffTaichi's order.
  void square(int i, int j, double stiffness, double vertical, double horizontal);
  // A triangle from the centre of cell (i, j) to the two top corners of the cell.
  void triangle(int i, int j, double stiffness);

  // A passive square whose corners weigh `mass` and join the plan's block.
  void block(int i, int j, double stiffness, double mass);

  BodyPlan& plan() { return plan_; }

 private:
  double spacing_;
  Vec<double, 2> origin_;
  BodyPlan plan_;
  std::map<std::pair<int, int>, std::int32_t> points_;  // doubled grid coordinates -> node
  std::map<std::pair<std::int32_t, std::int32_t>, bool> springs_;
};

// Settings of the grid form of a plan.
struct GridOptions {
  double spacing = 0.05;
  Vec<double, 2> origin{{0.1, 0.1}};  // position of the lower-left corner of the bottom row
  double stiffness = 3e4;
  double stiff_factor = 2.0;          // 'R' modules: stiffness times this
  double actuation = 0.15;
  double block_mass = 4.0;            // 'B' modules: the mass of each corner
};

// A text-row plan is wrong at a row and column (both from 1, rows counted from the top).
struct GridError : std::invalid_argument {
  GridError(int row, int column, const std::string& message)
      : std::invalid_argument(message), row(row), column(column) {}
  int row, column;
};

// Assembles text rows (top row first) into a plan: modules are added bottom row first, left to
// right. The head is node 0 unless changed afterwards.
BodyPlan parse_grid(const std::vector<std::string>& rows, const GridOptions& options = {});

// DiffTaichi's four mass-spring robots (examples/mass_spring_robot_config.py), index 0-3
// (robotA-robotD), nodes and springs in the order DiffTaichi creates them; the head is node 0.
BodyPlan difftaichi_robot(int index);

// How assemble() and assemble_fem() build a creature's body, and so how it moves (the body's
// model keeps what it needs in its own settings): DiffTaichi's mass_spring values by default.
struct BodyOptions {
  double dt = 0.004;
  int steps = 681;              // DiffTaichi's x[0..681]: steps = 2048 // 3 = 682 positions
  double gravity = -4.8;
  double drag = 15.0;           // velocities decay by exp(-drag dt) per step
  double length_epsilon = 1e-4;
  bool ground = true;            // false: no ground (a swimmer)
  double ground_height = 0.1;
  double ground_friction = 1e6;  // large: a node that lands stops, as in DiffTaichi
  softbody::ContactModel ground_model = softbody::ContactModel::kImpactStop;
  softbody::PenaltySettings penalty;  // for a penalty ground
};

// The mass-spring model of `copies` independent copies of a plan, in one model: copy c holds
// nodes [c n, (c + 1) n), springs [c m, (c + 1) m) and actuators [c a, (c + 1) a), in the plan's
// order, so each copy computes exactly what a lone creature does. Copies overlap in space; they
// do not interact. The actuation array is sized for the options' steps.
softbody::MassSpringModel<2> assemble(const BodyPlan& plan, int copies, const BodyOptions& options);

// The ground of the options: the plane y = ground_height with their friction and contact model.
softbody::ContactPlane<2> ground_plane(const BodyOptions& options);

}  // namespace simgrad::creature
