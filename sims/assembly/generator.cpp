#include "sims/assembly/generator.hpp"

#include <string>

#include "core/rng.hpp"

namespace simgrad::assembly {

Assembly random_assembly(std::uint64_t seed, const GeneratorOptions& options) {
  std::uint64_t draws = 0;
  // A uniform number in [lo, hi), the next of this seed's stream.
  auto uniform = [&](double lo, double hi) { return lo + (hi - lo) * uniform01(seed, 0, draws++); };
  Assembly a;
  a.name = "random_" + std::to_string(seed);
  const double length = uniform(0.3, 0.7), width = uniform(0.15, 0.3), height = uniform(0.05, 0.1);
  a.parts.push_back({.name = "body", .type = PartType::kBlock, .size = {{length, width, height}}, .mass = uniform(2.0, 5.0)});
  const int pairs = options.min_pairs + static_cast<int>(uniform(0.0, 1.0) * (options.max_pairs - options.min_pairs + 1));
  for (int p = 0; p < pairs; ++p) {
    // Pairs spread from the front to the back; a single pair sits at a random place.
    const double x = pairs == 1 ? uniform(-0.3, 0.3) * length : (0.5 - static_cast<double>(p) / (pairs - 1)) * 0.8 * length;
    const bool wheels = uniform(0.0, 1.0) < options.wheel_chance;
    const double thigh = uniform(0.1, 0.25), shin = uniform(0.08, 0.2), radius = uniform(0.05, 0.12);
    const double hip_strength = uniform(4.0, 12.0), knee_strength = uniform(2.0, 6.0);
    const bool knee_motor = uniform(0.0, 1.0) < options.knee_motor_chance;
    const double knee_stiffness = uniform(1.0, 6.0);
    for (const double side : {1.0, -1.0}) {
      const std::string tag = std::to_string(p) + (side > 0 ? "l" : "r");
      const Vec3<double> at{{x, side * 0.5 * width, -0.25 * height}};
      if (wheels) {
        a.parts.push_back({.name = "wheel" + tag, .type = PartType::kWheel, .radius = radius, .width = 0.04, .mass = 0.3});
        a.connections.push_back({.name = "axle" + tag, .type = ConnectionType::kHinge, .parent = "body",
                                 .child = "wheel" + tag, .at = at + Vec3<double>{{0.0, side * 0.03, 0.0}}});
        a.actuators.push_back({.name = "drive" + tag, .type = ActuatorType::kMotor, .connection = "axle" + tag,
                               .strength = 0.2 * hip_strength * radius});
        continue;
      }
      a.parts.push_back({.name = "thigh" + tag, .type = PartType::kRod, .length = thigh, .radius = 0.03, .mass = 0.4 * thigh / 0.2});
      a.parts.push_back({.name = "shin" + tag, .type = PartType::kRod, .length = shin, .radius = 0.025, .mass = 0.2 * shin / 0.2});
      a.connections.push_back({.name = "hip" + tag, .type = ConnectionType::kHinge, .parent = "body", .child = "thigh" + tag,
                               .at = at, .range = std::pair{-1.0, 1.0}});
      a.connections.push_back({.name = "knee" + tag, .type = ConnectionType::kHinge, .parent = "thigh" + tag,
                               .child = "shin" + tag, .at_word = "end", .range = std::pair{-1.0, 1.0},
                               .stiffness = knee_motor ? 0.0 : knee_stiffness});
      a.actuators.push_back({.name = "hip_motor" + tag, .type = ActuatorType::kMotor, .connection = "hip" + tag,
                             .strength = hip_strength});
      if (knee_motor)
        a.actuators.push_back({.name = "knee_motor" + tag, .type = ActuatorType::kMotor, .connection = "knee" + tag,
                               .strength = knee_strength});
    }
  }
  return a;
}

}  // namespace simgrad::assembly
