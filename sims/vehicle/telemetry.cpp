#include "sims/vehicle/telemetry.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <numeric>
#include <optional>
#include <sstream>

#include "core/csv.hpp"

namespace simgrad::vehicle {

const std::array<std::string_view, kChannelCount>& channel_names() {
  static const std::array<std::string_view, kChannelCount> names = {
      "x", "y", "yaw", "vx", "vy", "yaw_rate", "ax", "ay", "speed", "wheel_speed_fl", "wheel_speed_fr",
      "wheel_speed_rl", "wheel_speed_rr", "steering", "throttle", "brake"};
  return names;
}

Channel channel_of(std::string_view name) {
  const auto& names = channel_names();
  for (int c = 0; c < kChannelCount; ++c)
    if (names[c] == name) return static_cast<Channel>(c);
  std::string list;
  for (std::string_view n : names) list += (list.empty() ? "\"" : ", \"") + std::string(n) + "\"";
  throw std::invalid_argument("unknown channel \"" + std::string(name) + "\"; expected one of " + list);
}

namespace {

struct Unit {
  std::string_view name;
  double factor;
};

// The units of a channel, SI first.
std::vector<Unit> units_of(Channel c) {
  constexpr double deg = std::numbers::pi / 180.0;
  switch (c) {
    case kChX:
    case kChY: return {{"m", 1.0}, {"km", 1000.0}};
    case kChYaw:
    case kChSteering: return {{"rad", 1.0}, {"deg", deg}};
    case kChVx:
    case kChVy:
    case kChSpeed: return {{"m/s", 1.0}, {"km/h", 1.0 / 3.6}, {"mph", 0.44704}};
    case kChYawRate: return {{"rad/s", 1.0}, {"deg/s", deg}};
    case kChAx:
    case kChAy: return {{"m/s^2", 1.0}, {"g", 9.80665}};
    case kChWheelFL:
    case kChWheelFR:
    case kChWheelRL:
    case kChWheelRR: return {{"rad/s", 1.0}, {"rpm", std::numbers::pi / 30.0}};
    default: return {{"1", 1.0}, {"%", 0.01}};
  }
}

}  // namespace

std::vector<std::string_view> channel_units(Channel channel) {
  std::vector<std::string_view> names;
  for (const Unit& u : units_of(channel)) names.push_back(u.name);
  return names;
}

double unit_factor(Channel channel, std::string_view unit) {
  std::string list;
  for (const Unit& u : units_of(channel)) {
    if (u.name == unit) return u.factor;
    list += (list.empty() ? "\"" : ", \"") + std::string(u.name) + "\"";
  }
  throw std::invalid_argument("unit \"" + std::string(unit) + "\" does not fit channel \"" +
                              std::string(channel_names()[channel]) + "\"; expected one of " + list);
}

TelemetryError::TelemetryError(std::string file, int line, std::string column, std::string message)
    : std::runtime_error(file + ":" + std::to_string(line) + ": column \"" + column + "\": " + message),
      file_(std::move(file)),
      line_(line),
      column_(std::move(column)),
      message_(std::move(message)) {}

namespace {

// One sample as read: its time, its line and the mapped columns' values.
struct Row {
  double time;
  int line;
  std::vector<double> values;
};

// Linear interpolation of `v` (given at `t`, increasing) at time x.
double interpolate(const std::vector<double>& t, const std::vector<double>& v, std::size_t& k, double x) {
  while (k + 2 < t.size() && t[k + 1] <= x) ++k;
  const double u = (x - t[k]) / (t[k + 1] - t[k]);
  return v[k] + std::clamp(u, 0.0, 1.0) * (v[k + 1] - v[k]);
}

}  // namespace

Telemetry parse_telemetry(std::string_view text, const std::string& file, const std::vector<ColumnMapping>& columns,
                          const TelemetryOptions& options) {
  // The header first; blank lines and lines starting with '#' are skipped.
  CsvReader csv(text);
  if (!csv.next()) throw TelemetryError(file, 1, options.time_column, "the file is empty; expected a header row");
  const int header_line = csv.line();
  const std::vector<std::string> header(csv.fields().begin(), csv.fields().end());
  auto find_column = [&](const std::string& name) {
    for (std::size_t i = 0; i < header.size(); ++i)
      if (header[i] == name) return i;
    throw TelemetryError(file, header_line, name, "no such column in the header");
  };
  const std::size_t time_index = find_column(options.time_column);
  std::vector<std::size_t> index;
  for (const ColumnMapping& m : columns) index.push_back(find_column(m.column));
  std::vector<Row> rows;
  int number = header_line;
  while (csv.next()) {
    number = csv.line();
    if (csv.size() != header.size())
      throw TelemetryError(file, number, header.back(),
                           "expected " + std::to_string(header.size()) + " fields, got " + std::to_string(csv.size()));
    auto number_at = [&](std::size_t i, const std::string& column) {
      const std::optional<double> v = parse_number(csv[i]);
      if (!v) throw TelemetryError(file, number, column, "expected a finite number, got \"" + std::string(csv[i]) + "\"");
      return *v;
    };
    Row row{number_at(time_index, options.time_column) * options.time_factor, number, {}};
    for (std::size_t c = 0; c < columns.size(); ++c) row.values.push_back(number_at(index[c], columns[c].column) * columns[c].factor);
    rows.push_back(std::move(row));
  }
  if (rows.size() < 2) throw TelemetryError(file, number, options.time_column, "expected at least two samples");

  // Times must increase: an error naming the first offending line, or sorted when asked.
  if (options.order == OrderPolicy::kSort)
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) { return a.time < b.time; });
  std::vector<Row> kept;
  for (Row& r : rows) {
    if (!kept.empty() && r.time <= kept.back().time) {
      if (options.order == OrderPolicy::kSort) continue;  // a repeated time: the first sample stays
      std::ostringstream m;
      m << "time " << r.time << " s does not increase (previous sample, line " << kept.back().line << ", is at "
        << kept.back().time << " s); set telemetry.order to \"sort\" to sort the samples";
      throw TelemetryError(file, r.line, options.time_column, m.str());
    }
    kept.push_back(std::move(r));
  }
  const double max_gap = options.max_gap > 0.0 ? options.max_gap : 5.0 * options.dt;
  if (options.gaps == GapPolicy::kError)
    for (std::size_t i = 1; i < kept.size(); ++i)
      if (kept[i].time - kept[i - 1].time > max_gap) {
        std::ostringstream m;
        m << "a gap of " << kept[i].time - kept[i - 1].time << " s after line " << kept[i - 1].line << " (more than "
          << max_gap << " s); set telemetry.gaps to \"interpolate\" to bridge it";
        throw TelemetryError(file, kept[i].line, options.time_column, m.str());
      }

  Telemetry out;
  out.dt = options.dt;
  out.start_time = kept.front().time;
  out.samples = static_cast<int>(std::floor((kept.back().time - kept.front().time) / options.dt + 1e-9)) + 1;
  std::vector<double> t(kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) t[i] = kept[i].time;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    std::vector<double> v(kept.size());
    for (std::size_t i = 0; i < kept.size(); ++i) v[i] = kept[i].values[c];
    // Yaw and steering may wrap at +-pi: unwrap before interpolating.
    const Channel ch = columns[c].channel;
    if (ch == kChYaw)
      for (std::size_t i = 1; i < v.size(); ++i)
        v[i] -= 2.0 * std::numbers::pi * std::round((v[i] - v[i - 1]) / (2.0 * std::numbers::pi));
    std::vector<double>& resampled = out.values[ch];
    resampled.resize(static_cast<std::size_t>(out.samples));
    std::size_t k = 0;
    for (int s = 0; s < out.samples; ++s) resampled[s] = interpolate(t, v, k, out.start_time + s * options.dt);
    out.present[ch] = true;
  }
  return out;
}

Telemetry read_telemetry(const std::filesystem::path& file, const std::vector<ColumnMapping>& columns,
                         const TelemetryOptions& options) {
  std::string text;
  try {
    text = read_text_file(file);
  } catch (const std::invalid_argument&) {
    throw TelemetryError(file.string(), 0, options.time_column, "cannot open the file");
  }
  return parse_telemetry(text, file.string(), columns, options);
}

}  // namespace simgrad::vehicle
