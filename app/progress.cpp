#include "app/progress.hpp"

#include <algorithm>
#include <cmath>

#include <unistd.h>

namespace simgrad::app {

namespace {

// Seconds as "7s", "2m05s" or "1h03m": precise enough to plan a coffee.
std::string format_duration(double seconds) {
  const auto total = std::llround(std::clamp(seconds, 0.0, 1e9));  // past 30 years, who counts
  char buffer[48];
  if (total < 60) std::snprintf(buffer, sizeof buffer, "%llds", total);
  else if (total < 3600)
    std::snprintf(buffer, sizeof buffer, "%lldm%02llds", total / 60, total % 60);
  else std::snprintf(buffer, sizeof buffer, "%lldh%02lldm", total / 3600, total / 60 % 60);
  return buffer;
}

}  // namespace

std::string format_progress(const ProgressSnapshot& s) {
  char buffer[200];
  int length = std::snprintf(buffer, sizeof buffer, "iter %d", s.iteration);
  // Appends a piece; an absurd value (a rate of 1e300) is cut off rather than overflowing.
  const auto append = [&](const char* format, auto... args) {
    const auto room = sizeof buffer - static_cast<std::size_t>(length);
    length += std::snprintf(buffer + length, room, format, args...);
    length = std::min(length, static_cast<int>(sizeof buffer) - 1);
  };
  if (s.total > 0) append("/%d", s.total);
  append("  loss %.1e  best %.1e", s.loss, s.best);
  if (s.rollouts_per_second && std::isfinite(*s.rollouts_per_second))
    append(*s.rollouts_per_second < 100 ? "  %.1f rollouts/s" : "  %.0f rollouts/s",
           *s.rollouts_per_second);
  if (s.eta_seconds && std::isfinite(*s.eta_seconds))
    append("  eta %s", format_duration(*s.eta_seconds).c_str());
  return buffer;
}

ProgressLine::ProgressLine(int total_iterations, bool quiet, std::FILE* stream)
    : total_(total_iterations),
      stream_(stream),
      enabled_(!quiet && stream != nullptr && ::isatty(::fileno(stream)) == 1) {}

ProgressLine::~ProgressLine() { finish(); }

void ProgressLine::update(int iteration, double loss, double best, long long rollouts) {
  if (!enabled_) return;
  const Clock::time_point now = Clock::now();
  const bool last = total_ > 0 && iteration >= total_;
  if (!last && last_draw_ && now - *last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  ProgressSnapshot snapshot{iteration, total_, loss, best, std::nullopt, std::nullopt};
  if (elapsed > 0 && rollouts > 0) snapshot.rollouts_per_second = rollouts / elapsed;
  if (total_ > 0 && iteration > 0)
    snapshot.eta_seconds = elapsed / iteration * std::max(0, total_ - iteration);
  draw(format_progress(snapshot));
}

void ProgressLine::draw(const std::string& text) {
  // Pad with spaces over whatever is left of a longer previous line.
  const std::size_t pad = drawn_width_ > text.size() ? drawn_width_ - text.size() : 0;
  std::fprintf(stream_, "\r%s%*s", text.c_str(), static_cast<int>(pad), "");
  if (pad > 0) std::fprintf(stream_, "\r%s", text.c_str());
  std::fflush(stream_);
  drawn_width_ = text.size();
}

void ProgressLine::clear() {
  if (drawn_width_ == 0) return;
  std::fprintf(stream_, "\r%*s\r", static_cast<int>(drawn_width_), "");
  std::fflush(stream_);
  drawn_width_ = 0;
  last_draw_.reset();
}

void ProgressLine::finish() {
  if (drawn_width_ == 0) return;
  std::fputc('\n', stream_);
  std::fflush(stream_);
  drawn_width_ = 0;
  last_draw_.reset();
}

}  // namespace simgrad::app
