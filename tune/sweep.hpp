#pragma once

// Parameter sweeps: a problem's loss (and, when asked, its gradient) at every point of a grid or
// a list of parameter values, the parameters not swept held at their initial values. The points
// are one batch (batch.hpp), so under MPI they spread over the processes and the table is the
// same, bit for bit, on any number of them.

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tune/problem.hpp"

namespace simgrad::tune {

// One swept component and the values it takes.
struct SweepAxis {
  std::size_t component = 0;  // index in the problem's flat physical vector
  std::string name;           // as ParameterSpace::component_name gives it: "mu", "controls[3]"
  std::vector<double> values;
};

// Parses "NAME=LOW:HIGH:COUNT" (COUNT values evenly spaced from LOW to HIGH, both included) or
// "NAME=V1,V2,..." (the values given). NAME is a component name, or a scalar parameter's name.
// Throws std::invalid_argument naming the spec: unknown name, a malformed number, a count
// below 1, or a value outside the component's bounds.
SweepAxis parse_sweep_axis(const ParameterSpace& space, std::string_view spec);

// Reads a list of points from CSV text: a header of component names, then one row of values per
// point. Errors name the file, line and column.
std::vector<SweepAxis> read_sweep_points(const ParameterSpace& space, std::string_view text,
                                         const std::string& file, std::size_t& point_count);

struct SweepTable {
  std::vector<std::string> columns;  // the swept components, "loss", then "dloss/d<name>" each
  std::size_t width() const { return columns.size(); }
  std::vector<double> rows;          // row after row; a non-finite rollout's loss is +inf
  std::size_t row_count() const { return columns.empty() ? 0 : rows.size() / columns.size(); }
  long non_finite_rollouts = 0;
};

// Every combination of the axes' values (the last axis varying fastest), as physical points
// (the problem's initial values elsewhere), row after row.
std::vector<double> grid_points(const ParameterSpace& space, const std::vector<SweepAxis>& axes);

// The points of a list: point p takes axis k's value p, for each axis (all of one length).
std::vector<double> list_points(const ParameterSpace& space, const std::vector<SweepAxis>& axes,
                                std::size_t point_count);

// The loss at each point, and with `gradient` its derivatives along the swept components.
SweepTable sweep(Problem& problem, const std::vector<SweepAxis>& axes, std::span<const double> points,
                 bool gradient);

// The table as CSV: the header, then one line per row, numbers printed to round-trip exactly.
std::string sweep_csv(const SweepTable& table);

}  // namespace simgrad::tune
