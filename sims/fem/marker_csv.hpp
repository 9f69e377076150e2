// Marker trajectories as CSV: positions of a subset of nodes over time, for fitting a soft body to
// captured motion. One row per marker and frame, with the header
//   time,node,x,y        (2D)      or      time,node,x,y,z      (3D)
// time in seconds (the first frame at 0, frames evenly spaced), node the body's node index the
// marker is attached to; every frame lists the same nodes in the same order.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

namespace simgrad::fem {

struct MarkerTrajectory {
  std::vector<std::int32_t> markers;  // node per marker
  double frame_interval = 0.0;        // seconds between frames
  std::vector<double> positions;      // frames x markers x D
  int frames() const;
  int dimension = 0;
};

// Reads a marker CSV of dimension D; errors (std::invalid_argument) name `name` and the line.
MarkerTrajectory read_marker_csv(std::istream& in, int dimension, const std::string& name);
MarkerTrajectory read_marker_csv(const std::string& path, int dimension);
// Writes a trajectory in the same format (17 significant digits).
void write_marker_csv(std::ostream& out, const MarkerTrajectory& trajectory);

// The number of simulation steps between frames, frame_interval / dt; std::invalid_argument
// naming `name` unless it is a whole number (within 1e-6) of at least 1.
int steps_per_frame(const MarkerTrajectory& trajectory, double dt, const std::string& name);

}  // namespace simgrad::fem
