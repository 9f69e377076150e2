#include "core/gradcheck.hpp"

#include <algorithm>
#include <cmath>

#include "core/rng.hpp"

namespace simgrad {

bool derivatives_agree(double ad, double fd, const GradCheckOptions& options) {
  if (!std::isfinite(ad) || !std::isfinite(fd)) return false;
  const bool close = std::abs(ad - fd) <= options.atol + options.rtol * std::max(std::abs(ad), std::abs(fd));
  const bool same_sign = std::abs(fd) <= options.atol || (ad > 0) == (fd > 0);
  return close && same_sign;
}

namespace {

GradCheckEntry compare(std::string label, double ad, double fd, const GradCheckOptions& options) {
  GradCheckEntry entry;
  entry.label = std::move(label);
  entry.ad = ad;
  entry.fd = fd;
  const double scale = std::max({std::abs(ad), std::abs(fd), 1e-300});
  entry.rel_error = std::abs(ad - fd) / scale;
  entry.ok = derivatives_agree(ad, fd, options);
  return entry;
}

}  // namespace

GradCheckReport check_gradient(const std::function<double(std::span<const double>)>& f, std::span<const double> x,
                               std::span<const double> gradient, const GradCheckOptions& options,
                               std::span<const std::string> labels) {
  GradCheckReport report;
  std::vector<double> probe(x.begin(), x.end());
  const std::size_t n = x.size();
  if (options.random_directions <= 0) {
    for (std::size_t i = 0; i < n; ++i) {
      const double h = options.step * std::max(1.0, std::abs(x[i]));
      probe[i] = x[i] + h;
      const double up = f(probe);
      probe[i] = x[i] - h;
      const double down = f(probe);
      probe[i] = x[i];
      const std::string label = i < labels.size() ? labels[i] : "x[" + std::to_string(i) + "]";
      report.checks.push_back(compare(label, gradient[i], (up - down) / (2 * h), options));
    }
  } else {
    double scale = 1.0;
    for (double xi : x) scale = std::max(scale, std::abs(xi));
    const double h = options.step * scale;
    for (int k = 0; k < options.random_directions; ++k) {
      std::vector<double> d(n);
      double norm2 = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        d[i] = standard_normal(options.seed, static_cast<std::uint64_t>(k), i);
        norm2 += d[i] * d[i];
      }
      const double inv = 1.0 / std::sqrt(norm2);
      double ad = 0.0;
      for (std::size_t i = 0; i < n; ++i) {
        d[i] *= inv;
        ad += gradient[i] * d[i];
      }
      for (std::size_t i = 0; i < n; ++i) probe[i] = x[i] + h * d[i];
      const double up = f(probe);
      for (std::size_t i = 0; i < n; ++i) probe[i] = x[i] - h * d[i];
      const double down = f(probe);
      report.checks.push_back(compare("direction " + std::to_string(k), ad, (up - down) / (2 * h), options));
    }
  }
  for (const GradCheckEntry& e : report.checks) report.ok = report.ok && e.ok;
  return report;
}

}  // namespace simgrad
