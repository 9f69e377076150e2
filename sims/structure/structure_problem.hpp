// The rating as a tuning problem: which parts of the design are tuned (joint offsets, member
// areas, catalogue logits), their bounds, and the rating with its adjoint gradient as the loss.
#pragma once

#include <string>
#include <vector>

#include "sims/structure/rating.hpp"
#include "tune/problem.hpp"

namespace simgrad::structure {

enum class PartKind { joint_offset, area, section_choice };

// One tuned scalar and the part of the design it moves.
struct TunedComponent {
  PartKind kind;
  int index;  // the joint (joint_offset) or the member (area, section_choice)
  int axis;   // the axis (joint_offset) or the catalogue entry (section_choice)
};

// A request to tune a kind of part: which joints or members (empty: all that may move), which
// axes of a joint, and the bounds (a joint's offset from its initial position; an area).
struct PartRequest {
  PartKind kind = PartKind::area;
  std::vector<int> parts;
  std::vector<int> axes;
  double lower = 0.0;
  double upper = 0.0;
  tune::Transform transform = tune::Transform::identity;
};

// A design that cannot stand (a mechanism, members of zero length) rates +infinity, so that a
// tuner backs away from it; scenarios check the starting design and report it as an error.
class StructureProblem final : public tune::Problem {
 public:
  // The design is the starting point; joints in `fixed_joints` and supported joints never move.
  StructureProblem(const TrussModel& model, Design design, const std::vector<PartRequest>& requests,
                   const std::vector<int>& fixed_joints);

  std::size_t dimension() const override { return components_.size(); }
  double value(std::span<const double> x) override;
  double value_and_gradient(std::span<const double> x, std::span<double> gradient) override;
  const tune::ParameterSpace& space() const override { return space_; }
  std::vector<double> initial() const override { return space_.initial_physical(); }
  void assign(std::span<const double> x) override;

  // The design at the last assigned values.
  const Design& design() const { return design_; }
  // The starting design.
  const Design& initial_design() const { return initial_; }
  const std::vector<TunedComponent>& components() const { return components_; }
  StructureAnalysis& analysis() { return analysis_; }
  const TrussModel& model() const { return *model_; }

 private:
  const TrussModel* model_;
  Design initial_;
  Design design_;
  Design gradient_;
  std::vector<TunedComponent> components_;
  tune::ParameterSpace space_;
  StructureAnalysis analysis_;
};

}  // namespace simgrad::structure
