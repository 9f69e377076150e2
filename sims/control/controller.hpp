// Controllers: what turns time and body state into actuator signals, one set per creature (an
// independent body: a creature of a batch, a world of rigid bodies). Simulators that drive
// actuators build on this library: creatures (signals change springs' rest lengths) and rigid
// bodies (signals are actuator controls).
//
//   SineBank         open loop: signal = strength tanh(bias + amplitude sin(omega t dt + phase)),
//                    three tuned numbers per actuator.
//   NeuralController DiffTaichi's mass_spring controller: inputs are 10 sine clocks
//                    sin(omega t dt + 2 pi j / 10), each node's offset from the centre and its
//                    velocity (both scaled by 0.05) and the goal minus the centre; 32 tanh hidden
//                    units; one tanh output per actuator, times the actuator's strength.
//                    A body without nodes (a rigid machine) feeds its `sensed` values instead
//                    of the offsets, velocities and goal.
// On a creature a signal s makes an actuated spring's rest length L (1 + s). Creatures are independent: each
// has its own parameters and is evaluated on its own, so a batch gives each creature the bits it
// would have alone, on any number of threads.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/field.hpp"
#include "tune/problem.hpp"

namespace simgrad::control {

// One value a network senses of a body that is not a mass-spring creature (a rigid machine):
// entry `index` of the body's block of the state, times `scale`.
struct SensedValue {
  int index = 0;
  double scale = 1.0;
};

// The shape of a population of identical bodies.
struct ControllerLayout {
  int creatures = 1;
  int nodes = 0;                 // per creature; 0: the body is sensed through `sensed`
  std::vector<SensedValue> sensed;  // per creature, when nodes is 0
  int state_stride = 0;          // per creature, the size of its block of the state (with `sensed`)
  std::vector<double> strength;  // per actuator of one creature: relative rest length change at signal 1
  double dt = 0.004;
  double omega = 10.0;           // clock frequency, radians per unit time

  int actuators() const { return static_cast<int>(strength.size()); }
};

class Controller {
 public:
  explicit Controller(ControllerLayout layout) : layout_(std::move(layout)) {}
  virtual ~Controller() = default;

  // Writes the signals of step t (creatures x actuators) for the mass-spring state
  // [positions, velocities] of all creatures.
  virtual void signals(int t, std::span<const double> body_state, std::span<double> out) = 0;
  // Given the signals' adjoint, adds the adjoint of the body state into `state_adjoint` and
  // accumulates the parameters' adjoints; recomputes what it needs from the state.
  virtual void signals_adjoint(int t, std::span<const double> body_state, std::span<const double> out_adjoint,
                               std::span<double> state_adjoint) = 0;
  // The tuned arrays, named, each creature's entries contiguous.
  virtual std::vector<std::pair<std::string, Array<1>*>> parameters() = 0;

  // Zeroes every parameter adjoint.
  void clear_adjoints();
  // Every parameter array bound to the tuner, one tuned value per entry, within [-bound, bound].
  std::vector<tune::BoundParameter> bind(double bound);
  const ControllerLayout& layout() const { return layout_; }

 protected:
  ControllerLayout layout_;
};

class SineBank final : public Controller {
 public:
  // Amplitude 1, phases spread over the actuators, bias 0, the same for every creature.
  explicit SineBank(ControllerLayout layout);

  void signals(int t, std::span<const double> body_state, std::span<double> out) override;
  void signals_adjoint(int t, std::span<const double> body_state, std::span<const double> out_adjoint,
                       std::span<double> state_adjoint) override;
  std::vector<std::pair<std::string, Array<1>*>> parameters() override;

  Array<1> amplitude, phase, bias;  // per creature and actuator
};

struct NeuralShape {
  int sine_inputs = 10;
  int hidden = 32;
  double state_scale = 0.05;       // DiffTaichi's weight on node offsets and velocities
  Vec<double, 2> goal{{0.9, 0.2}};
};

class NeuralController final : public Controller {
 public:
  NeuralController(ControllerLayout layout, NeuralShape shape = {});

  // DiffTaichi's initialisation: weights1 ~ N(0, 1) sqrt(2 / (hidden + inputs)) 2, weights2 ~
  // N(0, 1) sqrt(2 / (hidden + springs)) 3 (DiffTaichi sizes its output layer by springs), zero
  // biases; normals from the counter-based generator keyed by seed, so every creature gets the
  // same weights unless `distinct` (then keyed by creature too).
  void initialise(std::uint64_t seed, int springs, bool distinct = false);

  void signals(int t, std::span<const double> body_state, std::span<double> out) override;
  void signals_adjoint(int t, std::span<const double> body_state, std::span<const double> out_adjoint,
                       std::span<double> state_adjoint) override;
  std::vector<std::pair<std::string, Array<1>*>> parameters() override;

  int inputs() const {
    return shape_.sine_inputs + (layout_.nodes > 0 ? 4 * layout_.nodes + 2 : static_cast<int>(layout_.sensed.size()));
  }
  const NeuralShape& shape() const { return shape_; }

  Array<1> weights1;  // per creature: hidden x inputs
  Array<1> bias1;     // per creature: hidden
  Array<1> weights2;  // per creature: actuators x hidden
  Array<1> bias2;     // per creature: actuators

 private:
  // The sine clocks of step t, into clocks_: the same for every creature, so computed once.
  void set_clocks(int t);
  // Creature c's input vector (after set_clocks of its step), into u.
  void features(int c, std::span<const double> body_state, double* u) const;
  // Creature c's hidden layer h and output pre-activations z from its input u.
  void layers(int c, const double* u, double* h, double* z) const;

  NeuralShape shape_;
  std::vector<double> scratch_;  // per creature: inputs, hidden, outputs, and their adjoints
  std::vector<double> clocks_;   // this step's sine clocks
  int stride_ = 0;               // scratch per creature
};

}  // namespace simgrad::control
