#include "report/creature_frames.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "core/rollout.hpp"

namespace simgrad::report {

namespace sb = simgrad::softbody;

nlohmann::json creature_summary(const CreatureBody& body, const creature::TaskLoss& loss, std::span<const double> state) {
  const auto& x0 = body.plan.nodes[static_cast<std::size_t>(body.plan.head)];
  nlohmann::json j = body.fem ? nlohmann::json{{"nodes", body.fem->node_count},
                                               {"triangles", body.fem->element_count()},
                                               {"actuators", body.fem->actuator_count}}
                              : nlohmann::json{{"nodes", body.springs.node_count},
                                               {"springs", body.springs.spring_count()},
                                               {"actuators", body.springs.actuator_count}};
  j.update(nlohmann::json{{"head_x", state[static_cast<std::size_t>(2 * body.plan.head)]},
                          {"head_travel", state[static_cast<std::size_t>(2 * body.plan.head)] - x0[0]},
                          {"task_figure", loss.figure(state, 0)}});
  return j;
}

nlohmann::json creature_frames(const CreatureBody& body, creature::Creature& creature, creature::TaskLoss& loss, int steps) {
  const creature::BodyPlan& plan = body.plan;
  const fem::FemModel<2>* fem = body.fem;
  const sb::MassSpringModel<2>& model = body.springs;
  std::vector<std::pair<Index, Index>> edge_nodes;
  if (fem) {
    for (Index e = 0; e < fem->element_count(); ++e)
      for (int k = 0; k < 3; ++k) {
        const Index a = fem->elements.node(e, k), b = fem->elements.node(e, (k + 1) % 3);
        edge_nodes.emplace_back(std::min(a, b), std::max(a, b));
      }
    std::sort(edge_nodes.begin(), edge_nodes.end());
    edge_nodes.erase(std::unique(edge_nodes.begin(), edge_nodes.end()), edge_nodes.end());
  } else {
    for (Index e = 0; e < model.spring_count(); ++e) edge_nodes.emplace_back(model.springs.node(e, 0), model.springs.node(e, 1));
  }
  nlohmann::json edges = nlohmann::json::array();
  std::vector<double> rest;
  for (const auto& edge : edge_nodes) {
    edges.push_back({edge.first, edge.second});
    const Vec<double, 2> d = plan.nodes[static_cast<std::size_t>(edge.second)] - plan.nodes[static_cast<std::size_t>(edge.first)];
    rest.push_back(std::sqrt(dot(d, d)));
  }
  if (!fem)
    for (Index e = 0; e < model.spring_count(); ++e) rest[static_cast<std::size_t>(e)] = model.rest_length.values()[e];
  nlohmann::json out = {{"legend", fem ? "triangle sides coloured by strain (red stretched, blue compressed); ground line"
                                       : "springs coloured by strain (red stretched, blue compressed); ground line"},
                        {"edges", edges},
                        {"frames", nlohmann::json::array()}};
  const std::vector<sb::ContactPlane<2>>& planes = fem ? fem->planes : model.planes;
  if (!planes.empty()) {
    const double ground = planes.front().offset;
    out["background"] = {{"lines", {{-1.0, ground, 3.0, ground, 0.0}}}};
  }
  const double dt = fem ? fem->settings.dt : model.settings.dt;
  const auto nodes = static_cast<Index>(plan.nodes.size());
  const int stride = std::max(1, steps / 80);
  std::vector<double> times, head;
  RolloutOptions record;
  record.observer = [&](int t, std::span<const double> state) {
    times.push_back(t * dt);
    head.push_back(state[static_cast<std::size_t>(2 * plan.head)]);
    if (t % stride != 0 && t != steps) return;
    nlohmann::json strain = nlohmann::json::array(), points = nlohmann::json::array();
    for (Index i = 0; i < nodes; ++i) points.push_back({state[2 * i], state[2 * i + 1]});
    for (std::size_t e = 0; e < edge_nodes.size(); ++e) {
      const Index a = 2 * edge_nodes[e].first, b = 2 * edge_nodes[e].second;
      const double dx = state[b] - state[a], dy = state[b + 1] - state[a + 1];
      strain.push_back((std::sqrt(dx * dx + dy * dy) - rest[e]) / rest[e]);
    }
    out["frames"].push_back({{"label", "step " + std::to_string(t)}, {"points", points}, {"values", strain}});
  };
  Rollout(creature, loss, steps, record).loss();
  out["charts"] = {{{"title", "head position"},
                    {"x_label", "time"},
                    {"y_label", "x"},
                    {"series", {{{"name", "head x"}, {"x", times}, {"y", head}}}}}};
  return out;
}

}  // namespace simgrad::report
