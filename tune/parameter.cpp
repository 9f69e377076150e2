#include "tune/parameter.hpp"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <stdexcept>

namespace simgrad::tune {
namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

// Logistic function written so that neither branch overflows.
double logistic(double z) {
  if (z >= 0) return 1.0 / (1.0 + std::exp(-z));
  const double e = std::exp(z);
  return e / (1.0 + e);
}

// z from a physical value inside the transform's domain.
double physical_to_optimizer(Transform transform, double lower, double upper, double x) {
  switch (transform) {
    case Transform::identity:
      return x;
    case Transform::log:
      return std::log(x);
    case Transform::logit: {
      const double fraction = (x - lower) / (upper - lower);
      return std::log(fraction) - std::log1p(-fraction);
    }
  }
  return x;
}

// Physical value from z; log and logit clamp so that rounding cannot leave the bounds.
double optimizer_to_physical(Transform transform, double lower, double upper, double z) {
  switch (transform) {
    case Transform::identity:
      return z;
    case Transform::log:
      return std::clamp(std::exp(z), lower, upper);
    case Transform::logit:
      return std::clamp(lower + (upper - lower) * logistic(z), lower, upper);
  }
  return z;
}

// dx/dz expressed through x, which is what the physical gradient is evaluated at.
double physical_per_optimizer(Transform transform, double lower, double upper, double x) {
  switch (transform) {
    case Transform::identity:
      return 1.0;
    case Transform::log:
      return x;
    case Transform::logit:
      return (x - lower) * (upper - x) / (upper - lower);
  }
  return 1.0;
}

// Formats a number for an error message without trailing noise.
std::string number_text(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

// Throws naming the parameter when its description cannot work.
void validate(const Parameter& parameter) {
  const std::string where = "parameter '" + parameter.name + "': ";
  if (parameter.name.empty()) throw std::invalid_argument("a parameter needs a name");
  if (parameter.initial.empty()) {
    throw std::invalid_argument(where + "needs at least one initial value");
  }
  if (std::isnan(parameter.lower) || std::isnan(parameter.upper) ||
      parameter.lower > parameter.upper) {
    throw std::invalid_argument(where + "bounds [" + number_text(parameter.lower) + ", " +
                                number_text(parameter.upper) + "] are not an interval");
  }
  if (parameter.transform == Transform::log && !(parameter.lower > 0)) {
    throw std::invalid_argument(where + "a log transform needs lower > 0 (got " +
                                number_text(parameter.lower) + ")");
  }
  if (parameter.transform == Transform::logit &&
      !(std::isfinite(parameter.lower) && std::isfinite(parameter.upper) &&
        parameter.lower < parameter.upper)) {
    throw std::invalid_argument(where + "a logit transform needs finite bounds with lower < upper");
  }
}

}  // namespace

Transform parse_transform(std::string_view text) {
  for (Transform transform : {Transform::identity, Transform::log, Transform::logit}) {
    if (text == transform_name(transform)) return transform;
  }
  throw std::invalid_argument("unknown transform '" + std::string(text) +
                              "' (expected identity, log or logit)");
}

std::string_view transform_name(Transform transform) {
  switch (transform) {
    case Transform::identity:
      return "identity";
    case Transform::log:
      return "log";
    case Transform::logit:
      return "logit";
  }
  return "identity";
}

ParameterSpace::ParameterSpace(std::vector<Parameter> parameters)
    : parameters_(std::move(parameters)) {
  std::set<std::string, std::less<>> names;
  offsets_.push_back(0);
  for (std::size_t index = 0; index < parameters_.size(); ++index) {
    const Parameter& parameter = parameters_[index];
    validate(parameter);
    if (!names.insert(parameter.name).second) {
      throw std::invalid_argument("parameter '" + parameter.name + "' is defined twice");
    }
    for (std::size_t i = 0; i < parameter.initial.size(); ++i) {
      owner_.push_back(index);
      transform_.push_back(parameter.transform);
      lower_.push_back(parameter.lower);
      upper_.push_back(parameter.upper);
    }
    offsets_.push_back(transform_.size());
  }
  // Converting the initial values checks that they lie inside their bounds.
  to_optimizer(initial_physical());
}

std::size_t ParameterSpace::offset(std::size_t parameter_index) const {
  return offsets_.at(parameter_index);
}

std::size_t ParameterSpace::index_of(std::string_view name) const {
  for (std::size_t index = 0; index < parameters_.size(); ++index) {
    if (parameters_[index].name == name) return index;
  }
  throw std::out_of_range("no parameter named '" + std::string(name) + "'");
}

std::string ParameterSpace::component_name(std::size_t component) const {
  const Parameter& parameter = parameters_.at(owner_.at(component));
  if (parameter.initial.size() == 1) return parameter.name;
  return parameter.name + "[" + std::to_string(component - offsets_[owner_[component]]) + "]";
}

std::vector<double> ParameterSpace::initial_physical() const {
  std::vector<double> values;
  values.reserve(size());
  for (const Parameter& parameter : parameters_) {
    values.insert(values.end(), parameter.initial.begin(), parameter.initial.end());
  }
  return values;
}

std::vector<double> ParameterSpace::to_optimizer(std::span<const double> physical) const {
  std::vector<double> z(size());
  to_optimizer(physical, z);
  return z;
}

void ParameterSpace::to_optimizer(std::span<const double> physical, std::span<double> z) const {
  check_size(physical.size(), "physical values");
  check_size(z.size(), "optimizer coordinates");
  for (std::size_t i = 0; i < size(); ++i) {
    const double x = physical[i];
    const bool open_interval = transform_[i] == Transform::logit;
    const bool inside = open_interval ? (x > lower_[i] && x < upper_[i])
                                      : (x >= lower_[i] && x <= upper_[i]);
    if (!inside) {
      throw std::domain_error(component_name(i) + " = " + number_text(x) + " lies outside " +
                              (open_interval ? "(" : "[") + number_text(lower_[i]) + ", " +
                              number_text(upper_[i]) + (open_interval ? ")" : "]") +
                              ", the domain of its " +
                              std::string(transform_name(transform_[i])) + " transform");
    }
    z[i] = physical_to_optimizer(transform_[i], lower_[i], upper_[i], x);
  }
}

void ParameterSpace::check_physical(std::span<const double> x) const {
  check_size(x.size(), "physical values");
  for (std::size_t i = 0; i < x.size(); ++i)
    if (!std::isfinite(x[i])) throw std::invalid_argument(component_name(i) + " is not finite");
  (void)to_optimizer(x);  // throws for a component outside its bounds
}

std::vector<double> ParameterSpace::to_physical(std::span<const double> z) const {
  std::vector<double> physical(size());
  to_physical(z, physical);
  return physical;
}

void ParameterSpace::to_physical(std::span<const double> z, std::span<double> physical) const {
  check_size(z.size(), "optimizer coordinates");
  check_size(physical.size(), "physical values");
  for (std::size_t i = 0; i < size(); ++i) {
    physical[i] = optimizer_to_physical(transform_[i], lower_[i], upper_[i], z[i]);
  }
}

std::vector<double> ParameterSpace::gradient_to_optimizer(
    std::span<const double> physical, std::span<const double> physical_gradient) const {
  std::vector<double> gradient(size());
  gradient_to_optimizer(physical, physical_gradient, gradient);
  return gradient;
}

void ParameterSpace::gradient_to_optimizer(std::span<const double> physical,
                                           std::span<const double> physical_gradient,
                                           std::span<double> gradient) const {
  check_size(physical.size(), "physical values");
  check_size(physical_gradient.size(), "physical gradient");
  check_size(gradient.size(), "optimizer gradient");
  for (std::size_t i = 0; i < size(); ++i) {
    gradient[i] =
        physical_gradient[i] * physical_per_optimizer(transform_[i], lower_[i], upper_[i], physical[i]);
  }
}

std::vector<double> ParameterSpace::optimizer_lower() const {
  std::vector<double> bounds(size());
  for (std::size_t i = 0; i < size(); ++i) {
    bounds[i] = transform_[i] == Transform::logit
                    ? -kInfinity
                    : physical_to_optimizer(transform_[i], lower_[i], upper_[i], lower_[i]);
  }
  return bounds;
}

std::vector<double> ParameterSpace::optimizer_upper() const {
  std::vector<double> bounds(size());
  for (std::size_t i = 0; i < size(); ++i) {
    bounds[i] = transform_[i] == Transform::logit
                    ? kInfinity
                    : physical_to_optimizer(transform_[i], lower_[i], upper_[i], upper_[i]);
  }
  return bounds;
}

TransformedObjective ParameterSpace::objective(Objective& physical) const {
  return TransformedObjective(*this, physical);
}

void ParameterSpace::check_size(std::size_t given, std::string_view what) const {
  if (given != size()) {
    throw std::invalid_argument(std::string(what) + " have " + std::to_string(given) +
                                " components; the parameter space has " +
                                std::to_string(size()));
  }
}

TransformedObjective::TransformedObjective(const ParameterSpace& space, Objective& physical)
    : space_(&space),
      physical_(&physical),
      physical_x_(space.size()),
      physical_gradient_(space.size()) {
  if (physical.dimension() != space.size()) {
    throw std::invalid_argument("the objective takes " + std::to_string(physical.dimension()) +
                                " values; the parameter space has " + std::to_string(space.size()));
  }
}

std::size_t TransformedObjective::dimension() const { return space_->size(); }

double TransformedObjective::value(std::span<const double> z) {
  space_->to_physical(z, physical_x_);
  return physical_->value(physical_x_);
}

void TransformedObjective::values(std::span<const double> points, std::span<double> losses) {
  physical_->values(physical_points(points), losses);
}

bool TransformedObjective::residuals_batch(std::span<const double> points, std::size_t width, std::span<double> rows) {
  return physical_->residuals_batch(physical_points(points), width, rows);
}

std::vector<double> TransformedObjective::physical_points(std::span<const double> points) {
  const std::size_t n = dimension();
  std::vector<double> physical(points.size());
  for (std::size_t i = 0; i < points.size() / n; ++i) {
    space_->to_physical(points.subspan(i * n, n), physical_x_);
    std::copy(physical_x_.begin(), physical_x_.end(), physical.begin() + std::ptrdiff_t(i * n));
  }
  return physical;
}

double TransformedObjective::value_and_gradient(std::span<const double> z,
                                                std::span<double> gradient) {
  space_->to_physical(z, physical_x_);
  const double loss = physical_->value_and_gradient(physical_x_, physical_gradient_);
  space_->gradient_to_optimizer(physical_x_, physical_gradient_, gradient);
  return loss;
}

bool TransformedObjective::residuals(std::span<const double> z, std::vector<double>& out) {
  space_->to_physical(z, physical_x_);
  return physical_->residuals(physical_x_, out);
}

}  // namespace simgrad::tune
