#include "scenario/run_export.hpp"

#include <algorithm>
#include <stdexcept>

#include "report/gltf.hpp"
#include "report/vtk.hpp"
#include "tune/problem.hpp"

namespace simgrad::scenario {

void record_frames(Scenario& scenario, std::span<const double> x, int frames,
                   const std::function<void(int t, std::span<const double> state)>& record) {
  auto* problem = dynamic_cast<tune::RolloutProblem*>(&scenario.problem());
  if (!problem) throw std::invalid_argument("the " + scenario.simulator() + " scenario is not a rollout");
  const int steps = problem->steps();
  const int stride = std::max(1, steps / std::max(1, frames));
  problem->observed_value(x, [&](int t, std::span<const double> state) {
    if (t % stride == 0 || t == steps) record(t, state);
  });
}

void check_export_file(const std::filesystem::path& file) {
  const std::string extension = file.extension().string();
  if (extension != ".gltf" && extension != ".pvd")
    throw std::invalid_argument(file.string() + ": unknown export format \"" + extension +
                                "\" (.gltf for glTF 2.0, .pvd for a VTK series)");
}

int export_run(Scenario& scenario, std::span<const double> x, const std::filesystem::path& file) {
  check_export_file(file);
  const std::string extension = file.extension().string();
  if (!file.parent_path().empty()) std::filesystem::create_directories(file.parent_path());
  if (std::optional<report::Animation> body = scenario.animation(x)) {
    if (extension == ".gltf") {
      report::write_gltf(file, *body);
      return body->frames();
    }
    return report::write_vtk_series(file, *body);
  }
  if (std::optional<report::GridAnimation> grid = scenario.grid_animation(x)) {
    if (extension == ".gltf")
      throw std::invalid_argument(file.string() + ": the " + scenario.simulator() +
                                  " simulator's run is a grid of fields: export it as a VTK series (.pvd)");
    return report::write_vtk_series(file, *grid);
  }
  throw std::invalid_argument(file.string() + ": the " + scenario.simulator() + " simulator exports no run yet");
}

nlohmann::json export_runs(Scenario& scenario, std::span<const double> x, const std::vector<std::filesystem::path>& files) {
  nlohmann::json out = nlohmann::json::array();
  for (const std::filesystem::path& file : files) out.push_back({{"file", file.string()}, {"frames", export_run(scenario, x, file)}});
  return out;
}

}  // namespace simgrad::scenario
