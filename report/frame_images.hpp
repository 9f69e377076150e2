// The frames of a run (Scenario::frames(), described in scenario.hpp) drawn as images, the way
// report.html's animation draws them, for `simgrad run --frames DIR`.
#pragma once

#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "report/raster.hpp"

namespace simgrad::report {

// World coordinates to pixels: one scale for both axes, y up, the drawing centred.
struct FrameView {
  double x0 = 0, y0 = 0;  // the world point at the lower left of the drawing
  double scale = 1;       // pixels per world unit
  double left = 0, bottom = 0;  // margins, pixels
  int height = 0;
  double x(double wx) const { return left + (wx - x0) * scale; }
  double y(double wy) const { return height - bottom - (wy - y0) * scale; }
};

// Draws the frames of one run (Scenario::frames() data) one at a time, all in one view that
// fits every frame. Throws std::invalid_argument on data that is not such frames. The run must
// outlive the drawer.
class FrameDrawer {
 public:
  FrameDrawer(const nlohmann::json& run, int width, int height);
  std::size_t size() const;  // how many frames
  Image draw(std::size_t index) const;

 private:
  const nlohmann::json& run_;
  int width_;
  int height_;
  FrameView view_;
  double colour_scale_ = 1.0;
  std::vector<Rgb> palette_;
};

// Every frame as an image.
std::vector<Image> draw_frames(const nlohmann::json& frames, int width, int height);

// Writes each frame to DIR/frame_00000.png, frame_00001.png, ... (each file atomically; the
// folder is made if missing), removes the numbered frames after them that an earlier, longer run
// left, and returns how many.
int write_frame_pngs(const std::filesystem::path& dir, const nlohmann::json& frames, int width, int height);

}  // namespace simgrad::report
