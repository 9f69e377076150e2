#include "report/fem_frames.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <utility>
#include <vector>

#include "core/rollout.hpp"
#include "sims/fem/mesh.hpp"

namespace simgrad::report {

namespace sb = simgrad::softbody;

namespace {

template <int D>
double distance(std::span<const double> x, Index a, Index b) {
  double d2 = 0.0;
  for (int k = 0; k < D; ++k) d2 += (x[b * D + k] - x[a * D + k]) * (x[b * D + k] - x[a * D + k]);
  return std::sqrt(d2);
}

}  // namespace

template <int D>
nlohmann::json fem_summary(const fem::FemModel<D>& model) {
  return {{"dimension", D},
          {"nodes", model.node_count},
          {"elements", model.element_count()},
          {"regions", model.region_count},
          {"mass", model.total_mass()}};
}

template <int D>
nlohmann::json fem_frames(fem::Fem<D>& system, TrajectoryLoss& loss, int steps, const SurfaceObj& obj) {
  const fem::FemModel<D>& model = system.model();
  std::map<std::pair<Index, Index>, int> unique;
  std::vector<std::pair<Index, Index>> edges;
  for (Index e = 0; e < model.element_count(); ++e)
    for (int a = 0; a <= D; ++a)
      for (int b = a + 1; b <= D; ++b) {
        const Index p = model.elements.node(e, a), q = model.elements.node(e, b);
        const auto key = std::minmax(p, q);
        if (unique.emplace(key, 0).second) edges.push_back(key);
      }
  nlohmann::json edge_list = nlohmann::json::array();
  for (const auto& edge : edges) edge_list.push_back({edge.first, edge.second});
  std::vector<double> rest(edges.size());
  const auto x0 = model.initial_position.values();
  for (std::size_t k = 0; k < edges.size(); ++k) rest[k] = distance<D>(x0, edges[k].first, edges[k].second);
  nlohmann::json out = {{"legend", "element edges coloured by strain (red stretched, blue compressed); nodes black"},
                        {"edges", edge_list},
                        {"frames", nlohmann::json::array()}};
  const long frames = std::clamp<long>(400000 / std::max<long>(1, static_cast<long>(edges.size())), 10, 80);
  const int stride = static_cast<int>(std::max<long>(1, steps / frames));
  const int up = D - 1;
  std::vector<std::array<std::int32_t, 3>> surface;
  std::vector<std::int32_t> element_nodes;
  if (!obj.folder.empty()) {
    for (Index e = 0; e < model.element_count(); ++e)
      for (int k = 0; k <= D; ++k) element_nodes.push_back(static_cast<std::int32_t>(model.elements.node(e, k)));
    surface = fem::surface_triangles<D>(model.node_count, element_nodes);
    std::filesystem::create_directories(obj.folder);
  }
  RolloutOptions record;
  record.observer = [&](int t, std::span<const double> state) {
    if (!obj.folder.empty() && t % obj.every == 0) {
      char file[32];
      std::snprintf(file, sizeof file, "step_%06d.obj", t);
      std::ofstream out(std::filesystem::path(obj.folder) / file);
      fem::write_obj<D>(out, state.first(static_cast<std::size_t>(D * model.node_count)), surface);
    }
    if (t % stride != 0 && t != steps) return;
    nlohmann::json strain = nlohmann::json::array(), points = nlohmann::json::array();
    for (Index i = 0; i < model.node_count; ++i) points.push_back({state[i * D], state[i * D + up]});
    for (std::size_t k = 0; k < edges.size(); ++k)
      strain.push_back(distance<D>(state, edges[k].first, edges[k].second) / rest[k] - 1.0);
    out["frames"].push_back({{"label", "step " + std::to_string(t)}, {"points", points}, {"values", strain}});
  };
  Rollout(system, loss, steps, record).loss();
  return out;
}

template nlohmann::json fem_summary<2>(const fem::FemModel<2>&);
template nlohmann::json fem_summary<3>(const fem::FemModel<3>&);
template nlohmann::json fem_frames<2>(fem::Fem<2>&, TrajectoryLoss&, int, const SurfaceObj&);
template nlohmann::json fem_frames<3>(fem::Fem<3>&, TrajectoryLoss&, int, const SurfaceObj&);

}  // namespace simgrad::report
