#include "sims/structure/structure_problem.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace simgrad::structure {

namespace {

// The parameter's name as scenario files spell it.
const char* kind_name(PartKind kind) {
  return kind == PartKind::joint_offset ? "joint_offset" : kind == PartKind::area ? "area" : "section_choice";
}

// The parameters and their components, in request order.
std::vector<tune::Parameter> bind_parts(const TrussModel& model, const Design& design, const std::vector<PartRequest>& requests,
                                  const std::vector<int>& fixed_joints, std::vector<TunedComponent>& components) {
  std::vector<bool> held(static_cast<std::size_t>(model.joint_count), false);
  for (const Support& s : model.supports) held[static_cast<std::size_t>(s.joint)] = true;
  for (int j : fixed_joints) held[static_cast<std::size_t>(j)] = true;
  std::vector<tune::Parameter> parameters;
  for (const PartRequest& r : requests) {
    tune::Parameter p;
    p.name = kind_name(r.kind);
    p.lower = r.lower;
    p.upper = r.upper;
    p.transform = r.transform;
    std::vector<int> parts = r.parts;
    const int count = r.kind == PartKind::joint_offset ? model.joint_count : static_cast<int>(model.members.size());
    if (parts.empty())
      for (int i = 0; i < count; ++i) parts.push_back(i);
    for (int i : parts) {
      if (r.kind == PartKind::joint_offset) {
        if (held[static_cast<std::size_t>(i)]) {
          if (!r.parts.empty()) throw std::invalid_argument("joint " + std::to_string(i) + " is supported or fixed and may not move");
          continue;
        }
        std::vector<int> axes = r.axes;
        if (axes.empty())
          for (int k = 0; k < model.dimension(); ++k) axes.push_back(k);
        for (int k : axes) {
          components.push_back({r.kind, i, k});
          p.initial.push_back(0.0);
        }
      } else {
        const bool catalogue = model.members[static_cast<std::size_t>(i)].catalogue >= 0;
        if (catalogue != (r.kind == PartKind::section_choice)) {
          if (!r.parts.empty())
            throw std::invalid_argument("member " + std::to_string(i) + (catalogue ? " takes its section from the catalogue"
                                                                                  : " has no catalogue"));
          continue;
        }
        if (r.kind == PartKind::area) {
          components.push_back({r.kind, i, 0});
          p.initial.push_back(std::clamp(design.areas[static_cast<std::size_t>(i)], r.lower, r.upper));
        } else {
          for (std::size_t k = 0; k < model.catalogue.size(); ++k) {
            components.push_back({r.kind, i, static_cast<int>(k)});
            p.initial.push_back(std::clamp(design.logits[static_cast<std::size_t>(i) * model.catalogue.size() + k], r.lower, r.upper));
          }
        }
      }
    }
    if (p.initial.empty()) throw std::invalid_argument(std::string("no ") + p.name + " left to tune");
    parameters.push_back(std::move(p));
  }
  return parameters;
}

}  // namespace

StructureProblem::StructureProblem(const TrussModel& model, Design design, const std::vector<PartRequest>& requests,
                                   const std::vector<int>& fixed_joints)
    : model_(&model),
      initial_(design),
      design_(design),
      space_(bind_parts(model, design, requests, fixed_joints, components_)),
      analysis_(model) {}

void StructureProblem::assign(std::span<const double> x) {
  if (x.size() != components_.size()) throw std::invalid_argument("structure: parameter vector has the wrong size");
  design_ = initial_;
  const std::size_t dim = static_cast<std::size_t>(model_->dimension());
  const std::size_t entries = model_->catalogue.size();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const TunedComponent& c = components_[i];
    const std::size_t index = static_cast<std::size_t>(c.index), axis = static_cast<std::size_t>(c.axis);
    if (c.kind == PartKind::joint_offset) design_.positions[index * dim + axis] = initial_.positions[index * dim + axis] + x[i];
    else if (c.kind == PartKind::area) design_.areas[index] = x[i];
    else design_.logits[index * entries + axis] = x[i];
  }
}

double StructureProblem::value(std::span<const double> x) {
  assign(x);
  try {
    return analysis_.rate(design_).rating;
  } catch (const StructureError&) {
    return std::numeric_limits<double>::infinity();
  }
}

double StructureProblem::value_and_gradient(std::span<const double> x, std::span<double> gradient) {
  assign(x);
  double rating = 0.0;
  try {
    rating = analysis_.rate_with_gradient(design_, gradient_).rating;
  } catch (const StructureError&) {
    std::fill(gradient.begin(), gradient.end(), 0.0);
    return std::numeric_limits<double>::infinity();
  }
  const std::size_t dim = static_cast<std::size_t>(model_->dimension());
  const std::size_t entries = model_->catalogue.size();
  for (std::size_t i = 0; i < components_.size(); ++i) {
    const TunedComponent& c = components_[i];
    const std::size_t index = static_cast<std::size_t>(c.index), axis = static_cast<std::size_t>(c.axis);
    gradient[i] = c.kind == PartKind::joint_offset ? gradient_.positions[index * dim + axis]
                  : c.kind == PartKind::area       ? gradient_.areas[index]
                                                   : gradient_.logits[index * entries + axis];
  }
  return rating;
}

}  // namespace simgrad::structure
