#include "sims/fem/marker_csv.hpp"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "core/csv.hpp"

namespace simgrad::fem {

int MarkerTrajectory::frames() const {
  const std::size_t per_frame = markers.size() * static_cast<std::size_t>(dimension);
  return per_frame == 0 ? 0 : static_cast<int>(positions.size() / per_frame);
}

MarkerTrajectory read_marker_csv(std::istream& in, int dimension, const std::string& name) {
  std::ostringstream whole;
  whole << in.rdbuf();
  const std::string text = whole.str();
  CsvReader csv(text);
  int number = 1;  // the line of the record being read, for errors
  auto fail = [&](int line, const std::string& message) -> void {
    throw std::invalid_argument(name + ":" + std::to_string(line) + ": " + message);
  };
  const std::string expected = dimension == 2 ? "time,node,x,y" : "time,node,x,y,z";
  if (!csv.next()) fail(1, "empty file, expected the header " + expected);
  std::string header;
  for (std::string_view f : csv.fields()) {
    if (!header.empty()) header += ',';
    header += f;
  }
  if (header != expected) fail(csv.line(), "expected the header " + expected + ", got \"" + header + "\"");
  MarkerTrajectory t;
  t.dimension = dimension;
  std::vector<double> times;  // per frame
  std::size_t in_frame = 0;   // markers read in the current frame
  std::vector<double> values;
  while (csv.next()) {
    number = csv.line();
    values.clear();
    for (std::string_view cell : csv.fields()) {
      const std::optional<double> v = parse_number(cell);
      if (!v) fail(number, std::string(1, '"').append(cell).append("\" is not a number"));
      values.push_back(*v);
    }
    if (values.size() != static_cast<std::size_t>(dimension + 2))
      fail(number, "expected " + std::to_string(dimension + 2) + " values (" + expected + ")");
    const double time = values[0];
    const double node = values[1];
    if (node < 0 || node != std::floor(node) || node > 2e9) fail(number, "node must be an index >= 0");
    const bool new_frame = times.empty() || time != times.back();
    if (new_frame) {
      if (!times.empty() && in_frame != t.markers.size())
        fail(number, "the previous frame has " + std::to_string(in_frame) + " markers, the first " +
                         std::to_string(t.markers.size()));
      if (!times.empty() && time <= times.back()) fail(number, "times must increase");
      times.push_back(time);
      in_frame = 0;
    }
    if (times.size() == 1) {
      t.markers.push_back(static_cast<std::int32_t>(node));
    } else if (in_frame >= t.markers.size() || t.markers[in_frame] != static_cast<std::int32_t>(node)) {
      fail(number, "every frame must list the nodes of the first frame in the same order");
    }
    ++in_frame;
    for (int c = 0; c < dimension; ++c) t.positions.push_back(values[2 + c]);
  }
  if (times.empty()) fail(number, "no rows");
  if (in_frame != t.markers.size()) fail(number, "the last frame is incomplete");
  if (times[0] != 0.0) fail(2, "the first frame must be at time 0");
  t.frame_interval = times.size() > 1 ? times[1] - times[0] : 0.0;
  for (std::size_t f = 2; f < times.size(); ++f)
    if (std::abs(times[f] - times[f - 1] - t.frame_interval) > 1e-9 * std::max(1.0, times[f]))
      throw std::invalid_argument(name + ": frames must be evenly spaced in time (frame " + std::to_string(f) + ")");
  return t;
}

MarkerTrajectory read_marker_csv(const std::string& path, int dimension) {
  std::ifstream in(path);
  if (!in) throw std::invalid_argument(path + ": cannot open");
  return read_marker_csv(in, dimension, path);
}

void write_marker_csv(std::ostream& out, const MarkerTrajectory& t) {
  out << (t.dimension == 2 ? "time,node,x,y\n" : "time,node,x,y,z\n") << std::setprecision(17);
  std::size_t k = 0;
  for (int f = 0; f < t.frames(); ++f)
    for (const std::int32_t node : t.markers) {
      out << std::setprecision(12) << f * t.frame_interval << std::setprecision(17) << ',' << node;
      for (int c = 0; c < t.dimension; ++c) out << ',' << t.positions[k++];
      out << '\n';
    }
}

int steps_per_frame(const MarkerTrajectory& t, double dt, const std::string& name) {
  if (t.frames() < 2) return 1;
  const double ratio = t.frame_interval / dt;
  const long steps = std::lround(ratio);
  if (steps < 1 || std::abs(ratio - static_cast<double>(steps)) > 1e-6 * std::max(1.0, ratio))
    throw std::invalid_argument(name + ": the frame interval " + std::to_string(t.frame_interval) +
                                " s is not a whole number of time steps of " + std::to_string(dt) + " s");
  return static_cast<int>(steps);
}

}  // namespace simgrad::fem
