#include "sims/creature/tunables.hpp"

namespace simgrad::creature {

const std::vector<tune::TunableInfo>& controller_tunables() {
  using tune::TunableDefault;
  static const std::vector<tune::TunableInfo> table = {
      {"weights1", "1", "hidden unit and input", "neural controller: input to hidden weights",
       TunableDefault::text("normal(0, 2 sqrt(2 / (hidden + inputs))), drawn from controller.seed")},
      {"bias1", "1", "hidden unit", "neural controller: hidden biases", TunableDefault::number(0.0)},
      {"weights2", "1", "actuator and hidden unit", "neural controller: hidden to output weights",
       TunableDefault::text("normal(0, 3 sqrt(2 / (hidden + springs))), drawn from controller.seed")},
      {"bias2", "1", "actuator", "neural controller: output biases", TunableDefault::number(0.0)},
      {"amplitude", "1", "actuator", "sine bank: amplitude before tanh", TunableDefault::number(1.0)},
      {"phase", "rad", "actuator", "sine bank: phase", TunableDefault::text("2 pi k / actuators for actuator k")},
      {"bias", "1", "actuator", "sine bank: offset before tanh", TunableDefault::number(0.0)},
  };
  return table;
}

}  // namespace simgrad::creature
