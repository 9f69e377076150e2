// A scenario's run exported for other tools: glTF 2.0 (.gltf) for Blender and game engines, a
// VTK series (.pvd) for ParaView. The format follows the file's extension; the scenario supplies
// the run (Scenario::animation or Scenario::grid_animation).
#pragma once

#include <filesystem>
#include <functional>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/scenario.hpp"

namespace simgrad::scenario {

// How many frames an export takes from a run: about this many, evenly spaced, and the last step.
inline constexpr int kExportFrames = 100;

// Calls `record` with the states of one run at x, about `frames` of them evenly spaced over the
// steps and the last; std::invalid_argument when the scenario is not a rollout.
void record_frames(Scenario& scenario, std::span<const double> x, int frames,
                   const std::function<void(int t, std::span<const double> state)>& record);

// Throws std::invalid_argument naming the file unless its extension is one export_run writes,
// so that a command refuses a bad name before it runs anything.
void check_export_file(const std::filesystem::path& file);

// Writes the run at x to `file` (.gltf, or .pvd with its folder of frames) and returns the number
// of frames; std::invalid_argument naming the file when the format is unknown or the simulator
// has nothing to export in it.
int export_run(Scenario& scenario, std::span<const double> x, const std::filesystem::path& file);

// Each of `files` exported, as [{"file", "frames"}].
nlohmann::json export_runs(Scenario& scenario, std::span<const double> x, const std::vector<std::filesystem::path>& files);

}  // namespace simgrad::scenario
