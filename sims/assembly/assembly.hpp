// Player-built machines. An assembly is a graph: parts (the things a game's catalogue offers),
// connections (a joint between a parent part and a child part) and actuators (a motor or servo
// on a connection). build() checks the graph and compiles it to MJCF, which the rigid simulator
// reads as it reads any model (sims/rigid/mjcf.hpp); so an assembly is a rigid model with every
// rigid tunable, contact model and controller, and its MJCF (to_mjcf) loads in MuJoCo as it is.
//
// Frames. Every part has its own frame, parallel to the world's at the start. A part's origin is
// the point it hangs from: a connection puts the child's origin at the point `at` of the parent's
// frame, and the joint sits there. Shapes in their part's frame:
//   block  box of full sides `size`, centred on -`child_at` (its centre unless set otherwise)
//   fin    a block with thin defaults; fluid drag acts on its flat inertia box (fluid_force.hpp)
//   rod    capsule of `radius` from the origin to `length` along the unit `direction`
//   wheel  cylinder of `radius` and `width` centred on the origin, its axis the joint's axis
//   soft_pad, soft_cell  a box of full sides `size` like a block's, made of point masses on
//          springs (a lattice of 3 x 3 x 2 nodes for a pad, 3 x 3 x 3 for a cell, joined along
//          the edges and diagonals of its cells, springs of `stiffness` and `damping`); its top
//          layer is held to its parent by anchor springs (sims/rigid/soft_force.hpp). A soft
//          part hangs from a rigid part by a fixed connection and carries nothing.
// A point `at` may also be written as "end" (a rod's far end) or "centre".
//
// A spring connection is not a joint: a spring-damper from the parent's point `at` to the child's
// point `to`, at rest at their distance at the start (sims/rigid/body_spring_force.hpp). The child
// hangs by its own connection, so a spring may join any two rigid parts, the root included, and
// closes a loop that a second joint would over-constrain.
//
// Contact: the machine's rigid parts touch the ground, the environment's obstacles and its loads,
// not each other (a player's machine overlapping itself is not an error, and a joint's two parts
// touch by construction); loads touch everything; soft parts touch the ground only.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sims/rigid/model.hpp"

namespace simgrad::assembly {

using rigid::Vec3;

enum class PartType { kBlock, kRod, kWheel, kFin, kSoftPad, kSoftCell };
enum class ConnectionType { kHinge, kSlider, kBall, kFixed, kSpring };
enum class ActuatorType { kMotor, kServo };

struct Part {
  std::string name;
  PartType type = PartType::kBlock;
  Vec3<double> size{{0.1, 0.1, 0.1}};          // block, fin: full sides, m
  double length = 0.2, radius = 0.02;          // rod: m; wheel: radius
  double width = 0.04;                         // wheel, m
  Vec3<double> direction{{0.0, 0.0, -1.0}};    // rod, unit, in the part's frame
  Vec3<double> child_at = Vec3<double>::zero();  // block, fin: the hanging point, part frame
  std::optional<double> mass;                  // kg; absent: density 1000 kg/m^3 (MuJoCo's)
  double friction = 1.0;                       // sliding friction coefficient with the ground
  double stiffness = 1000.0;                   // soft parts: N/m per spring
  double damping = 1.0;                        // soft parts: N s/m per spring
};

struct Connection {
  std::string name;
  ConnectionType type = ConnectionType::kHinge;
  std::string parent, child;
  Vec3<double> at = Vec3<double>::zero();      // the child's origin in the parent's frame
  std::string at_word;                         // or a named point of the parent ("end", "centre")
  Vec3<double> to = Vec3<double>::zero();      // spring: its end on the child, child's frame
  std::string to_word;                         // or a named point of the child
  Vec3<double> axis{{0.0, 1.0, 0.0}};          // hinge, slider; also a wheel's axle
  std::optional<std::pair<double, double>> range;  // rad (hinge) or m (slider)
  double stiffness = 0.0;                      // a joint's spring: N m/rad or N/m; a spring's: N/m
  double damping = 0.1;                        // N m s/rad or N s/m
  double armature = 0.01;                      // kg m^2 or kg
};

struct Actuator {
  std::string name;
  ActuatorType type = ActuatorType::kMotor;
  std::string connection;
  double strength = 1.0;  // motor: torque (N m) or force (N) at signal 1; servo: the largest
  double gain = 10.0;     // servo: N m/rad or N/m
};

// A box in the machine's world: fixed (a step to climb, a wall, a platform) or, listed among the
// loads, loose (a crate to carry or push, a free body).
struct WorldBox {
  std::string name;
  Vec3<double> size{{0.2, 0.2, 0.2}};          // full sides, m
  Vec3<double> at = Vec3<double>::zero();      // its centre in the world, m
  std::optional<double> mass;                  // loads, kg; absent: density 1000 kg/m^3
  double friction = 1.0;
};

// Where the machine stands and what surrounds it.
struct Environment {
  bool ground = true;                           // an infinite plane at z = 0
  std::vector<WorldBox> obstacles;              // fixed boxes
  std::vector<WorldBox> loads;                  // loose boxes
  Vec3<double> gravity{{0.0, 0.0, -9.81}};
  double density = 0.0, viscosity = 0.0;        // a fluid around the parts (0: none)
  double timestep = 0.002;
};

struct Assembly {
  std::string name = "assembly";
  std::vector<Part> parts;
  std::vector<Connection> connections;
  std::vector<Actuator> actuators;
  std::string root;          // the part nothing hangs from; empty: the first part
  bool fixed_base = false;   // the root welded to the world (a crane) instead of free
  std::optional<Vec3<double>> start;  // the root's origin; absent: lifted to stand on the ground
  Environment environment;
};

// An assembly that cannot be built; the message names the part, connection or actuator.
class AssemblyError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The catalogue's names, as files and plans spell them.
const char* part_type_name(PartType type);
const char* connection_type_name(ConnectionType type);
const char* actuator_type_name(ActuatorType type);
std::optional<PartType> part_type_of(const std::string& name);
std::optional<ConnectionType> connection_type_of(const std::string& name);
std::optional<ActuatorType> actuator_type_of(const std::string& name);

// Throws AssemblyError for an assembly that is not a machine: names repeated or unknown, a part
// connected to nothing, a part hung from two parents (a loop: close it with a spring), two
// actuators on one connection, a spring without stiffness or touching a soft part,
// an actuator on a joint it cannot drive, sizes not positive, a soft part mounted other than by
// a fixed connection or carrying another part, an obstacle or load without a positive size, mass
// or friction.
void check(const Assembly& assembly);

// The point a word ("end", "centre") names on a part, in its frame.
std::optional<Vec3<double>> named_point(const Part& part, const std::string& word);

// Where a connection puts its child's origin, in its parent's frame (after check()); for a
// spring, its end on the parent.
Vec3<double> anchor(const Assembly& assembly, const Connection& connection);

// A spring connection's end on the child, in the child's frame (after check()).
Vec3<double> spring_end(const Assembly& assembly, const Connection& spring);

// The shortest text that reads back to x exactly, as MJCF and plans write numbers.
std::string number_text(double x);

// Whether a part is made of point masses rather than one rigid body.
inline bool is_soft(PartType type) { return type == PartType::kSoftPad || type == PartType::kSoftCell; }

// The assembly's rigid parts as MJCF text (after check()); soft parts are simgrad's own.
std::string to_mjcf(const Assembly& assembly);

// check(), then the rigid model the MJCF compiles to, with the default contact and limit springs,
// and the soft parts' nodes, springs and anchors. Throws AssemblyError for a machine that does
// not compile (a singular inertia, say).
rigid::RigidModel build(const Assembly& assembly);

}  // namespace simgrad::assembly
