// A one-line progress display for long runs, redrawn in place on a terminal.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdio>
#include <optional>
#include <string>

namespace simgrad::app {

// What one progress line shows.
struct ProgressSnapshot {
  int iteration = 0;
  int total = 0;  // 0 when unknown: no "/total" and no eta
  double loss = 0;
  double best = 0;
  std::optional<double> rollouts_per_second;
  std::optional<double> eta_seconds;
};

// "iter 12/30  loss 3.2e-04  best 2.9e-04  4.1 rollouts/s  eta 7s"
std::string format_progress(const ProgressSnapshot& snapshot);

// Draws the progress line with '\r' on `stream`, only when that stream is a terminal and the
// run is not quiet, so logs, pipes and --json output never see it. Redraws at most ten times a
// second (and always for the last iteration). The line is ended by finish() or, if an
// exception cuts the run short, by the destructor, so a following message starts on its own line.
class ProgressLine {
public:
  ProgressLine(int total_iterations, bool quiet, std::FILE* stream = stderr);
  ~ProgressLine();
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  bool enabled() const { return enabled_; }
  // Reports iteration `iteration` of the total and the rollouts run so far, for the rate.
  void update(int iteration, double loss, double best, long long rollouts);
  // Blanks the line so a message can be printed; the next update draws it again.
  void clear();
  // Ends the line with a newline, if one was drawn.
  void finish();

private:
  using Clock = std::chrono::steady_clock;
  void draw(const std::string& text);

  int total_;
  std::FILE* stream_;
  bool enabled_;
  Clock::time_point start_ = Clock::now();
  std::optional<Clock::time_point> last_draw_;
  std::size_t drawn_width_ = 0;  // characters on the line now, to blank a longer old line
};

}  // namespace simgrad::app
