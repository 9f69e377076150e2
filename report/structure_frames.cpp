#include "report/structure_frames.hpp"

#include <algorithm>
#include <exception>
#include <string>

namespace simgrad::report {

namespace st = simgrad::structure;

nlohmann::json structure_summary(st::StructureProblem& problem, const st::DynamicSettings* dynamic, double deflection_limit) {
  const st::TrussModel& model = problem.model();
  const st::Design design = problem.design();
  const st::RatingResult r = problem.analysis().rate(design, true);
  std::size_t worst = 0;
  for (std::size_t e = 0; e < r.members.size(); ++e)
    if (r.members[e].ratio > r.members[worst].ratio) worst = e;
  nlohmann::json j = {{"kind", model.kind == st::StructureKind::truss2d   ? "truss2d"
                               : model.kind == st::StructureKind::truss3d ? "truss3d"
                                                                          : "frame2d"},
                      {"joints", model.joint_count},
                      {"members", model.members.size()},
                      {"load_cases", model.load_cases.size()},
                      {"hard_rating", r.rating},
                      {"mass", r.terms.mass},
                      {"cost", r.terms.cost},
                      {"max_stress_ratio", r.max_ratio},
                      {"max_deflection_ratio", r.max_deflection_ratio},
                      {"governing_member", worst},
                      {"governing_member_state", st::member_state(model, r.members[worst])}};
  if (dynamic) {
    const st::DynamicRunScores scores = st::score_dynamic_run(model, design, *dynamic, deflection_limit);
    j["dynamic"] = {{"steps", dynamic->steps}, {"relaxed_score", scores.relaxed}, {"hard_score", scores.hard},
                    {"broken_members", scores.broken_members}};
  }
  if (!model.catalogue.empty()) {
    nlohmann::json chosen = nlohmann::json::object();
    const std::size_t n = model.catalogue.size();
    for (std::size_t e = 0; e < model.members.size(); ++e)
      if (model.members[e].catalogue >= 0)
        chosen[std::to_string(e)] =
            model.catalogue[static_cast<std::size_t>(st::chosen_entry(design.logits.data() + e * n, n))].section.name;
    j["sections"] = chosen;
  }
  return j;
}

nlohmann::json explanation_json(const st::StructureProblem& problem, const st::Explanation& e) {
  nlohmann::json hints = nlohmann::json::array();
  for (const st::Hint& h : e.hints)
    hints.push_back({{"text", h.text},
                     {"action", h.action},
                     {"part", h.part},
                     {"index", h.index},
                     {"parameter", problem.space().component_name(h.component)},
                     {"step", h.step},
                     {"state", h.state},
                     {"predicted_change", h.predicted_change},
                     {"predicted_percent", h.predicted_percent},
                     {"rerated_change", h.rerated_change},
                     {"rerated_percent", h.rerated_percent},
                     {"hard_rerated_change", h.hard_rerated_change}});
  return {{"rating", e.rating}, {"hard_rating", e.hard_rating}, {"hints", hints}};
}

nlohmann::json structure_frames(st::StructureProblem& problem, const st::ExplainOptions& explain, std::span<const double> x) {
  problem.assign(x);
  const st::TrussModel& model = problem.model();
  const st::Design design = problem.design();
  const st::RatingResult r = problem.analysis().rate(design, true);
  const int dim = model.dimension(), up = dim - 1;
  auto at = [&](int j, int k) { return design.positions[static_cast<std::size_t>(j * dim + k)]; };
  nlohmann::json lines = nlohmann::json::array(), points = nlohmann::json::array(), arrows = nlohmann::json::array();
  double lo = at(0, 0), hi = lo;
  for (int j = 0; j < model.joint_count; ++j) {
    points.push_back({at(j, 0), at(j, up)});
    lo = std::min(lo, at(j, 0));
    hi = std::max(hi, at(j, 0));
  }
  for (std::size_t e = 0; e < model.members.size(); ++e) {
    const auto [a, b] = model.members[e].joints;
    lines.push_back({at(a, 0), at(a, up), at(b, 0), at(b, up), r.members[e].ratio});
  }
  std::string legend = "members coloured by stress ratio (grey unloaded, red at the limit); green arrows: explain's joint moves";
  try {
    for (const st::Hint& h : st::explain(problem, x, explain).hints) {
      legend += "; " + h.text;
      if (h.action != "move_joint" || (h.axis != 0 && h.axis != up)) continue;
      const double length = (h.step > 0 ? 0.08 : -0.08) * std::max(hi - lo, 1e-9);
      arrows.push_back({at(h.index, 0), at(h.index, up), h.axis == 0 ? length : 0.0, h.axis == 0 ? 0.0 : length});
    }
  } catch (const std::exception&) {
    // Hints are a bonus; a design explain cannot rate still gets drawn.
  }
  problem.assign(x);
  return {{"legend", legend},
          {"scale", 1.0},
          {"frames", {{{"label", "rating " + std::to_string(r.rating)}, {"lines", lines}, {"points", points}, {"arrows", arrows}}}}};
}

}  // namespace simgrad::report
