#include "sims/structure/explain.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace simgrad::structure {

namespace {

// A number as a person reads it: few digits, no trailing zeros.
std::string short_number(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.3g", v);
  return buffer;
}

// A signed percentage: one decimal, or two significant digits for changes below 0.1%.
std::string percent(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, std::abs(v) < 0.1 ? "%+.2g%%" : "%+.1f%%", v);
  return buffer;
}

// The game's word for a move along an axis: 2D x and y are left/right and down/up; in 3D the
// vertical is z and y is back/forward.
std::string direction(int dimension, int axis, double step) {
  const bool positive = step > 0.0;
  if (axis == 0) return positive ? "right" : "left";
  if (dimension == 2 || axis == 2) return positive ? "up" : "down";
  return positive ? "forward" : "back";
}

// The extent of the structure: its span if rated, else the largest side of its bounding box.
double extent(const TrussModel& model, const Design& design) {
  if (model.rating.span > 0.0) return model.rating.span;
  const int d = model.dimension();
  double largest = 0.0;
  for (int k = 0; k < d; ++k) {
    double lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < model.joint_count; ++j) {
      lo = std::min(lo, design.positions[static_cast<std::size_t>(j * d + k)]);
      hi = std::max(hi, design.positions[static_cast<std::size_t>(j * d + k)]);
    }
    largest = std::max(largest, hi - lo);
  }
  return largest;
}

}  // namespace

std::string member_state(const TrussModel& model, const MemberReport& member) {
  const int percent_used = static_cast<int>(std::lround(100.0 * member.ratio));
  const bool frame = model.kind == StructureKind::frame2d;
  if (member.state == MemberState::tension)
    return "tension, " + std::to_string(percent_used) + (frame ? "% of strength" : "% of yield");
  const char* limit = frame ? "% of strength" : model.rating.buckling ? "% of buckling load" : "% of yield";
  return "compression, " + std::to_string(percent_used) + limit;
}

Explanation explain(StructureProblem& problem, std::span<const double> x, const ExplainOptions& options) {
  const TrussModel& model = problem.model();
  Explanation out;
  std::vector<double> gradient(x.size());
  out.rating = problem.value_and_gradient(x, gradient);
  const double joint_step = options.joint_step > 0.0 ? options.joint_step : 0.01 * extent(model, problem.design());
  const std::vector<MemberReport> members = problem.analysis().rate(problem.design(), true).members;
  out.hard_rating = problem.analysis().rate(problem.design(), true).rating;
  const std::vector<double> lower = problem.space().physical_lower(), upper = problem.space().physical_upper();

  // Every part's plausible change against its gradient, kept inside the bounds.
  std::vector<Hint> candidates;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (gradient[i] == 0.0) continue;
    const TunedComponent& c = problem.components()[i];
    const double size = c.kind == PartKind::joint_offset ? joint_step
                        : c.kind == PartKind::area       ? options.area_step * x[i]
                                                         : options.logit_step;
    const double target = std::clamp(x[i] - (gradient[i] > 0.0 ? size : -size), lower[i], upper[i]);
    const double step = target - x[i];
    if (step == 0.0) continue;
    Hint h;
    h.component = i;
    h.index = c.index;
    h.axis = c.axis;
    h.step = step;
    h.predicted_change = gradient[i] * step;
    if (c.kind == PartKind::joint_offset) {
      h.action = "move_joint";
      h.part = "joint " + std::to_string(c.index);
      h.text = "move " + h.part + " " + direction(model.dimension(), c.axis, step) + " " + short_number(std::abs(step)) +
               " " + options.length_unit;
    } else {
      const MemberReport& m = members[static_cast<std::size_t>(c.index)];
      h.part = "member " + std::to_string(c.index);
      h.state = member_state(model, m);
      if (c.kind == PartKind::area) {
        h.action = step > 0.0 ? "thicken" : "thin";
        h.text = h.action + " " + h.part + " by " + std::to_string(static_cast<int>(std::lround(100.0 * std::abs(step) / x[i]))) +
                 "% (" + h.state + ")";
      } else {
        h.action = "choose_section";
        const std::string& name = model.catalogue[static_cast<std::size_t>(c.axis)].section.name;
        h.text = "lean " + h.part + (step > 0.0 ? " towards section " : " away from section ") + name + " (" +
                 h.state + ")";
      }
    }
    candidates.push_back(h);
  }
  // The largest improvements first; ties keep the parameter order, so the ranking is stable.
  std::stable_sort(candidates.begin(), candidates.end(),
                   [](const Hint& a, const Hint& b) { return a.predicted_change < b.predicted_change; });
  if (candidates.size() > static_cast<std::size_t>(options.hints)) candidates.resize(static_cast<std::size_t>(options.hints));

  // Each prediction checked on the changed design, relaxed and hard.
  const double scale = std::max(std::abs(out.rating), 1e-300);
  std::vector<double> changed(x.begin(), x.end());
  for (Hint& h : candidates) {
    const std::size_t i = h.component;
    changed[i] = x[i] + h.step;
    h.rerated_change = problem.value(changed) - out.rating;
    h.hard_rerated_change = problem.analysis().rate(problem.design(), true).rating - out.hard_rating;
    changed[i] = x[i];
    h.predicted_percent = 100.0 * h.predicted_change / scale;
    h.rerated_percent = 100.0 * h.rerated_change / scale;
    h.text += ": rating " + percent(h.predicted_percent) + " predicted, " + percent(h.rerated_percent) + " re-rated";
  }
  problem.assign(x);
  out.hints = std::move(candidates);
  return out;
}

}  // namespace simgrad::structure
