#include "sims/structure/vehicle.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace simgrad::structure {

std::vector<double> distances_along(const TrussModel& model, const Design& design, const std::vector<int>& path) {
  const int d = model.dimension();
  std::vector<double> along{0.0};
  for (std::size_t i = 1; i < path.size(); ++i) {
    double l2 = 0.0;
    for (int k = 0; k < d; ++k) {
      const double dx = design.positions[static_cast<std::size_t>(path[i] * d + k)] -
                        design.positions[static_cast<std::size_t>(path[i - 1] * d + k)];
      l2 += dx * dx;
    }
    along.push_back(along.back() + std::sqrt(l2));
  }
  return along;
}

std::pair<std::size_t, double> place_on_path(const std::vector<double>& along, double s) {
  std::size_t i = 1;
  while (i + 1 < along.size() && along[i] < s) ++i;
  return {i, (s - along[i - 1]) / (along[i] - along[i - 1])};
}

std::vector<LoadCase> vehicle_load_cases(const TrussModel& model, const Design& design, const Vehicle& vehicle) {
  if (vehicle.deck.size() < 2) throw std::invalid_argument("a vehicle needs at least two deck joints");
  if (vehicle.axles.empty()) throw std::invalid_argument("a vehicle needs at least one axle");
  const std::vector<double> along = distances_along(model, design, vehicle.deck);
  double length = 0.0;
  for (const auto& axle : vehicle.axles) length = std::max(length, axle.first);
  const std::size_t down = static_cast<std::size_t>(vehicle.down_axis);
  std::vector<LoadCase> cases;
  for (int p = 0; p < vehicle.positions; ++p) {
    const double front = vehicle.positions == 1 ? along.back() / 2 : (along.back() + length) * p / (vehicle.positions - 1);
    LoadCase lc;
    lc.name = "vehicle at " + std::to_string(front);
    lc.self_weight = vehicle.self_weight;
    if (vehicle.self_weight) lc.gravity[down] = -vehicle.gravity;
    for (const auto& [offset, load] : vehicle.axles) {
      const double s = front - offset;
      if (s < 0.0 || s > along.back()) continue;
      const auto [i, t] = place_on_path(along, s);
      PointLoad a{vehicle.deck[i - 1], {}}, b{vehicle.deck[i], {}};
      a.force[down] = -load * (1.0 - t);
      b.force[down] = -load * t;
      lc.loads.push_back(a);
      lc.loads.push_back(b);
    }
    cases.push_back(std::move(lc));
  }
  return cases;
}

}  // namespace simgrad::structure
