#include "sims/contagion/infectiousness.hpp"

#include <cmath>
#include <stdexcept>

namespace simgrad::contagion {

namespace {

// The Gamma density with shape k and scale theta.
double gamma_density(double x, double k, double theta) {
  if (x <= 0.0) return 0.0;
  return std::exp((k - 1.0) * std::log(x) - x / theta - std::lgamma(k) - k * std::log(theta));
}

// The integral of the density over [a, b] by composite Simpson's rule (smooth there for k > 1;
// fine enough for starting values).
double gamma_mass(double a, double b, double k, double theta) {
  const int n = 200;
  const double h = (b - a) / n;
  double s = gamma_density(a, k, theta) + gamma_density(b, k, theta);
  for (int i = 1; i < n; ++i) s += (i % 2 ? 4.0 : 2.0) * gamma_density(a + i * h, k, theta);
  return s * h / 3.0;
}

}  // namespace

std::vector<double> gamma_profile(double mean, double sd, int days) {
  if (!(mean > 0.0) || !(sd > 0.0)) throw std::invalid_argument("gamma_profile: mean and sd must be positive");
  const double shape = (mean / sd) * (mean / sd);
  const double scale = sd * sd / mean;
  std::vector<double> g(static_cast<std::size_t>(days));
  for (int k = 0; k < days; ++k) g[static_cast<std::size_t>(k)] = gamma_mass(k, k + 1.0, shape, scale);
  return g;
}

}  // namespace simgrad::contagion
