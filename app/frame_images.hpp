// The frames of a run (Scenario::frames(), described in scenario.hpp) drawn as images, the way
// report.html's animation draws them, for `simgrad run --frames DIR`.
#pragma once

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/raster.hpp"

namespace simgrad::app {

// One image per frame, all in one view that fits every frame. Throws std::invalid_argument on
// frames that are not Scenario::frames() data.
std::vector<Image> draw_frames(const nlohmann::json& frames, int width, int height);

// Writes each frame to DIR/frame_00000.png, frame_00001.png, ... (each file atomically; the
// folder is made if missing), removes the numbered frames after them that an earlier, longer run
// left, and returns how many.
int write_frame_pngs(const std::filesystem::path& dir, const nlohmann::json& frames, int width, int height);

}  // namespace simgrad::app
