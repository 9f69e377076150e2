#pragma once

// Tunable parameters and the map between the physical values a simulator reads and the
// unconstrained-ish coordinates an optimizer moves. Transforms exist because optimizers behave
// far better on well-scaled coordinates: a log transform turns "stiffness from 10 to 1e5" into a
// range of width 9, and a logit turns a bounded fraction into an unbounded coordinate so that
// gradient steps never hit the box.

#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tune/objective.hpp"

namespace simgrad::tune {

enum class Transform {
  identity,  // z = x; bounds kept as they are (may be infinite)
  log,       // z = ln x; needs lower > 0; bounds become [ln lower, ln upper]
  logit,     // z = logit((x - lower) / (upper - lower)); needs finite bounds; z is unbounded
};

// "identity", "log" or "logit"; anything else throws std::invalid_argument naming the choices.
Transform parse_transform(std::string_view text);

// The spelling parse_transform accepts.
std::string_view transform_name(Transform transform);

struct Parameter {
  std::string name;
  std::string unit;
  double lower = -std::numeric_limits<double>::infinity();  // per component
  double upper = std::numeric_limits<double>::infinity();   // per component
  Transform transform = Transform::identity;
  std::vector<double> initial;  // one value per component; its size is the parameter's size
};

class ParameterSpace;

// The physical objective seen in optimizer coordinates: optimizers never see transforms.
class TransformedObjective final : public Objective {
 public:
  // Both arguments must outlive the adapter.
  TransformedObjective(const ParameterSpace& space, Objective& physical);

  // Same as the parameter space's size.
  std::size_t dimension() const override;

  // One physical rollout at to_physical(z).
  double value(std::span<const double> z) override;

  // One physical rollout and backward pass; the gradient is mapped by the chain rule.
  double value_and_gradient(std::span<const double> z, std::span<double> gradient) override;

  // The physical losses at to_physical of each row, as one batch of the physical objective.
  void values(std::span<const double> points, std::span<double> losses) override;

  // The physical residuals at to_physical(z).
  bool residuals(std::span<const double> z, std::vector<double>& out) override;

  // The physical residuals at to_physical of each row, as one batch of the physical objective.
  bool residuals_batch(std::span<const double> points, std::size_t width, std::span<double> rows) override;

 private:
  // Each row of optimizer coordinates as physical values.
  std::vector<double> physical_points(std::span<const double> points);

  const ParameterSpace* space_;
  Objective* physical_;
  std::vector<double> physical_x_;
  std::vector<double> physical_gradient_;
};

class ParameterSpace {
 public:
  // Validates every parameter; a violation throws std::invalid_argument naming the parameter.
  explicit ParameterSpace(std::vector<Parameter> parameters);

  // The parameters as given.
  const std::vector<Parameter>& parameters() const { return parameters_; }

  // Total number of scalar components.
  std::size_t size() const { return transform_.size(); }

  // Index of a parameter's first component in the flat vector.
  std::size_t offset(std::size_t parameter_index) const;

  // Position of the parameter with this name; throws std::out_of_range if there is none.
  std::size_t index_of(std::string_view name) const;

  // "name" for a scalar parameter, "name[i]" for a component of a vector parameter.
  std::string component_name(std::size_t component) const;

  // Initial values of all parameters, flattened, in physical units.
  std::vector<double> initial_physical() const;

  // Physical values to optimizer coordinates; a value outside its bounds (or on a bound of a
  // logit parameter) throws std::domain_error naming the component.
  std::vector<double> to_optimizer(std::span<const double> physical) const;
  void to_optimizer(std::span<const double> physical, std::span<double> z) const;

  // Throws unless x is a point of this space: std::invalid_argument for a wrong size or a
  // non-finite component, std::domain_error for one outside its bounds, naming the component.
  void check_physical(std::span<const double> x) const;

  // Optimizer coordinates to physical values; log and logit results are clamped into the bounds
  // (identity passes z through: optimizers keep it inside by projection).
  std::vector<double> to_physical(std::span<const double> z) const;
  void to_physical(std::span<const double> z, std::span<double> physical) const;

  // dL/dz from dL/dx by the chain rule, evaluated at the physical point x.
  std::vector<double> gradient_to_optimizer(std::span<const double> physical,
                                            std::span<const double> physical_gradient) const;
  void gradient_to_optimizer(std::span<const double> physical,
                             std::span<const double> physical_gradient,
                             std::span<double> gradient) const;

  // Bounds in physical units, flattened.
  std::vector<double> physical_lower() const { return lower_; }
  std::vector<double> physical_upper() const { return upper_; }

  // Bounds in optimizer coordinates: identity keeps them, log takes their logarithm, logit
  // makes the coordinate unbounded.
  std::vector<double> optimizer_lower() const;
  std::vector<double> optimizer_upper() const;

  // An adapter so that optimizers work in optimizer coordinates; see TransformedObjective.
  TransformedObjective objective(Objective& physical) const;

 private:
  // Throws unless sizes match this space.
  void check_size(std::size_t size, std::string_view what) const;

  std::vector<Parameter> parameters_;
  std::vector<std::size_t> offsets_;           // per parameter, plus the total at the end
  std::vector<std::size_t> owner_;             // per component: its parameter's index
  std::vector<Transform> transform_;           // per component
  std::vector<double> lower_;                  // per component, physical
  std::vector<double> upper_;                  // per component, physical
};

}  // namespace simgrad::tune
