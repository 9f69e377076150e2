#pragma once

// Box bounds lower <= x <= upper, which every optimizer respects exactly: the simulator is
// never asked for a rollout outside the bounds the user wrote down.

#include <span>

namespace simgrad::tune {

// Clamps each component of x into its bounds.
void project_onto_box(std::span<double> x, std::span<const double> lower,
                      std::span<const double> upper);

// True when lower <= x <= upper holds componentwise.
bool inside_box(std::span<const double> x, std::span<const double> lower,
                std::span<const double> upper);

// Largest |P(x - g) - x| over components: zero exactly at a first-order stationary point of the
// box-constrained problem, where the plain gradient norm need not vanish. NaN if g has a NaN.
double projected_gradient_norm(std::span<const double> x, std::span<const double> gradient,
                               std::span<const double> lower, std::span<const double> upper);

// True when a component sits on the bound its gradient pushes it against, so that a descent
// step could not move it.
bool blocked_by_bound(double x, double gradient, double lower, double upper);

// True when every component of the bounds is finite.
bool all_finite(std::span<const double> bounds);

}  // namespace simgrad::tune
