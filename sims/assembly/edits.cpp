#include "sims/assembly/edits.hpp"

#include <algorithm>
#include <map>

namespace simgrad::assembly {

std::vector<AssemblyEdit> candidate_edits(const Assembly& a, double step) {
  std::vector<AssemblyEdit> out;
  for (std::size_t p = 0; p < a.parts.size(); ++p) {
    const Part& part = a.parts[p];
    const auto mount = std::find_if(a.connections.begin(), a.connections.end(), [&](const Connection& c) {
      return c.child == part.name && c.type != ConnectionType::kSpring;
    });
    if (mount != a.connections.end()) {
      const Vec3<double> at = anchor(a, *mount);
      for (int axis = 0; axis < 3; ++axis)
        for (const double sign : {1.0, -1.0}) {
          AssemblyEdit e{.edited = a, .part = part.name, .step = step};
          Connection& c = e.edited.connections[static_cast<std::size_t>(mount - a.connections.begin())];
          c.at = at;
          c.at.c[axis] += sign * step;
          c.at_word.clear();
          e.action = std::string("move ") + (sign > 0 ? "+" : "-") + "xyz"[axis];
          e.text = "move " + part.name + "'s mount " + number_text(step) + " m along " + e.action.substr(5);
          out.push_back(std::move(e));
        }
    }
    for (const double scale : {1.2, 0.8}) {
      AssemblyEdit e{.edited = a, .part = part.name, .action = scale > 1.0 ? "enlarge" : "shrink", .step = scale - 1.0};
      Part& edited = e.edited.parts[p];
      if (part.type == PartType::kRod) edited.length *= scale;
      else if (part.type == PartType::kWheel) edited.radius *= scale;
      else edited.size = scale * edited.size;
      e.text = "make " + part.name + (scale > 1.0 ? " 20% larger" : " 20% smaller");
      out.push_back(std::move(e));
    }
  }
  return out;
}

std::vector<AssemblyEdit> best_edits(const Assembly& a, double step, const std::function<double(const Assembly&)>& rate) {
  std::map<std::string, AssemblyEdit> best;
  for (AssemblyEdit& e : candidate_edits(a, step)) {
    try {
      check(e.edited);
    } catch (const AssemblyError&) {
      continue;
    }
    e.change = rate(e.edited);
    const auto at = best.find(e.part);
    if (e.change < 0.0 && (at == best.end() || e.change < at->second.change)) best.insert_or_assign(e.part, std::move(e));
  }
  std::vector<AssemblyEdit> out;
  for (auto& [part, e] : best) out.push_back(std::move(e));
  std::stable_sort(out.begin(), out.end(), [](const AssemblyEdit& x, const AssemblyEdit& y) { return x.change < y.change; });
  return out;
}

}  // namespace simgrad::assembly
