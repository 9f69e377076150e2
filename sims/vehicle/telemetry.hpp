// Recorded telemetry: a CSV file with a header row, columns mapped to channels (any subset), units
// converted to SI, resampled to the simulation step. Errors name the CSV file, line and column.
#pragma once

#include <array>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace simgrad::vehicle {

// Channels a recording may hold. The first kFitChannels are what a simulated car's state shows
// (pose, velocities, yaw rate, accelerations, speed, and the four-wheel model's wheel speeds,
// front left, front right, rear left, rear right); the rest are the driver's inputs.
enum Channel : int { kChX, kChY, kChYaw, kChVx, kChVy, kChYawRate, kChAx, kChAy, kChSpeed,
                     kChWheelFL, kChWheelFR, kChWheelRL, kChWheelRR, kChSteering, kChThrottle, kChBrake,
                     kChannelCount };
inline constexpr int kFitChannels = kChWheelRR + 1;

// The channel names scenario files use ("x", "yaw_rate", "steering", ...).
const std::array<std::string_view, kChannelCount>& channel_names();
// The channel called `name`; throws std::invalid_argument listing the names otherwise.
Channel channel_of(std::string_view name);
// The factor that turns a value in `unit` into the channel's SI unit (m, rad, m/s, rad/s, m/s^2,
// or 1 for throttle and brake); throws std::invalid_argument listing the units the channel takes.
double unit_factor(Channel channel, std::string_view unit);
// The units a channel takes, SI first.
std::vector<std::string_view> channel_units(Channel channel);

// A bad CSV file: what() reads "file:line: column \"name\": message".
class TelemetryError : public std::runtime_error {
 public:
  TelemetryError(std::string file, int line, std::string column, std::string message);
  const std::string& file() const { return file_; }
  int line() const { return line_; }
  const std::string& column() const { return column_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_;
  int line_;
  std::string column_;
  std::string message_;
};

struct ColumnMapping {
  Channel channel;
  std::string column;  // header name in the CSV
  double factor = 1.0;  // unit_factor of the column's unit
};

// What to do with times that do not increase, and with gaps in the recording.
enum class OrderPolicy { kError, kSort };
enum class GapPolicy { kError, kInterpolate };

struct TelemetryOptions {
  std::string time_column = "time";
  double time_factor = 1.0;  // to seconds
  double dt = 0.01;          // the resampled step
  double max_gap = 0.0;      // s; a larger step between samples is a gap (0: 5 dt)
  OrderPolicy order = OrderPolicy::kError;
  GapPolicy gaps = GapPolicy::kError;
};

// Telemetry resampled at t0 + k dt, k = 0 .. samples - 1.
struct Telemetry {
  double dt = 0.0;
  double start_time = 0.0;
  int samples = 0;
  std::array<bool, kChannelCount> present{};
  std::array<std::vector<double>, kChannelCount> values;  // per channel: samples values when present
};

// Parses CSV text (`file` names it in errors) and resamples it.
Telemetry parse_telemetry(std::string_view text, const std::string& file, const std::vector<ColumnMapping>& columns,
                          const TelemetryOptions& options);
// Reads a CSV file and resamples it.
Telemetry read_telemetry(const std::filesystem::path& file, const std::vector<ColumnMapping>& columns,
                         const TelemetryOptions& options);

}  // namespace simgrad::vehicle
