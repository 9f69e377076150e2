#pragma once

// Spans over Eigen vectors, for the Objective and box interfaces, which take spans.

#include <Eigen/Core>
#include <cstddef>
#include <span>

namespace simgrad::tune {

// The vector's storage as a span.
inline std::span<double> span_of(Eigen::VectorXd& v) { return {v.data(), static_cast<std::size_t>(v.size())}; }

}  // namespace simgrad::tune
