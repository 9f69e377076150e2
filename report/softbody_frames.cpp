#include "report/softbody_frames.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "core/rollout.hpp"
#include "sims/softbody/losses.hpp"

namespace simgrad::report {

namespace sb = simgrad::softbody;

template <int D>
nlohmann::json mass_spring_summary(const sb::MassSpringModel<D>& model, const TrajectoryLoss& loss,
                                   std::span<const double> final_state) {
  nlohmann::json j = {{"dimension", D}, {"nodes", model.node_count}, {"springs", model.spring_count()}};
  if (const auto* area = dynamic_cast<const sb::TriangleAreaLoss*>(&loss)) j["final_area"] = area->area(final_state);
  return j;
}

template <int D>
nlohmann::json mass_spring_frames(sb::MassSpring<D>& system, TrajectoryLoss& loss, int steps) {
  const sb::MassSpringModel<D>& model = system.model();
  nlohmann::json edges = nlohmann::json::array();
  for (Index e = 0; e < model.spring_count(); ++e) edges.push_back({model.springs.node(e, 0), model.springs.node(e, 1)});
  nlohmann::json out = {{"legend", "springs coloured by strain (red stretched, blue compressed); nodes black"},
                        {"edges", edges},
                        {"frames", nlohmann::json::array()}};
  // About 80 frames, fewer for large bodies so the report stays a few megabytes.
  const long frames = std::clamp<long>(400000 / std::max<long>(1, model.spring_count()), 10, 80);
  const int stride = static_cast<int>(std::max<long>(1, steps / frames));
  const int up = D - 1;
  RolloutOptions record;
  record.observer = [&](int t, std::span<const double> state) {
    if (t % stride != 0 && t != steps) return;
    nlohmann::json strain = nlohmann::json::array(), points = nlohmann::json::array();
    for (Index i = 0; i < model.node_count; ++i) points.push_back({state[i * D], state[i * D + up]});
    for (Index e = 0; e < model.spring_count(); ++e) {
      const Index a = model.springs.node(e, 0) * D, b = model.springs.node(e, 1) * D;
      double d2 = 0.0;
      for (int k = 0; k < D; ++k) d2 += (state[b + k] - state[a + k]) * (state[b + k] - state[a + k]);
      const double rest = model.rest_length.values()[e];
      strain.push_back((std::sqrt(d2) - rest) / rest);
    }
    out["frames"].push_back({{"label", "step " + std::to_string(t)}, {"points", points}, {"values", strain}});
  };
  Rollout(system, loss, steps, record).loss();
  return out;
}

template nlohmann::json mass_spring_summary<2>(const sb::MassSpringModel<2>&, const TrajectoryLoss&, std::span<const double>);
template nlohmann::json mass_spring_summary<3>(const sb::MassSpringModel<3>&, const TrajectoryLoss&, std::span<const double>);
template nlohmann::json mass_spring_frames<2>(sb::MassSpring<2>&, TrajectoryLoss&, int);
template nlohmann::json mass_spring_frames<3>(sb::MassSpring<3>&, TrajectoryLoss&, int);

}  // namespace simgrad::report
