// Runs as exports carry them: a body's points over time with the cells that join them
// (Animation), or fields on a regular grid over time (GridAnimation). Scenarios fill them
// (scenario.hpp, animation()); gltf.hpp and vtk.hpp write them for Blender, game engines and
// ParaView.
#pragma once

#include <array>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/vec.hpp"

namespace simgrad::report {

struct Animation {
  int dimension = 3;      // of the positions; a 2D body is exported in the z = 0 plane
  Index point_count = 0;
  std::vector<double> times;      // s, one per frame
  std::vector<double> positions;  // frames x point_count x dimension
  // Cells, by point index: springs or edges, surface or element triangles, tetrahedra. A body
  // with none is a cloud of points (particles).
  std::vector<std::array<Index, 2>> lines;
  std::vector<std::array<Index, 3>> triangles;
  std::vector<std::array<Index, 4>> tetrahedra;

  int frames() const { return static_cast<int>(times.size()); }
  // Appends a frame: the first point_count x dimension values of `state` are the positions.
  void add_frame(double time, std::span<const double> state);
  // Point i of frame f, in 3D (z = 0 for a 2D body).
  std::array<double, 3> point(int frame, Index i) const;
};

struct GridAnimation {
  std::array<int, 3> cells{1, 1, 1};  // along x, y, z; z is 1 for a 2D grid
  double spacing = 1.0;               // cell size, m
  std::array<double, 3> origin{0.0, 0.0, 0.0};  // the lower corner
  std::vector<double> times;          // s, one per frame
  // Named cell fields, each frames x cell count values, x fastest, then y, then z.
  std::vector<std::pair<std::string, std::vector<double>>> fields;

  int frames() const { return static_cast<int>(times.size()); }
  Index cell_count() const { return static_cast<Index>(cells[0]) * cells[1] * cells[2]; }
};

}  // namespace simgrad::report
