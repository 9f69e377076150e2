#include "sims/vehicle/fit_analysis.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>

#include "core/rollout.hpp"

namespace simgrad::vehicle {

std::array<std::optional<double>, kFitChannels> channel_rmse(System& system, TelemetryLoss& fit,
                                                             const Telemetry& telemetry, int steps) {
  std::array<double, kFitChannels> sums{};
  std::array<long, kFitChannels> counts{};
  RolloutOptions o;
  o.observer = [&](int t, std::span<const double> state) {
    if (t >= 1) fit.add_squared_errors(t, state, sums, counts);
  };
  Rollout(system, fit, steps, o).loss();
  std::array<std::optional<double>, kFitChannels> rmse;
  for (int c = 0; c < kFitChannels; ++c)
    if (telemetry.present[c] && counts[c] > 0) rmse[c] = std::sqrt(sums[c] / static_cast<double>(counts[c]));
  return rmse;
}

namespace {

// All residuals of the fit at parameters x.
std::vector<double> residuals(tune::RolloutProblem& problem, System& system, TelemetryLoss& fit, int steps,
                              const std::vector<double>& x) {
  problem.assign(x);
  std::vector<double> r;
  RolloutOptions o;
  o.observer = [&](int t, std::span<const double> state) {
    if (t >= 1) fit.residuals(t, state, r);
  };
  Rollout(system, fit, steps, o).loss();
  return r;
}

}  // namespace

GaussNewtonAnalysis gauss_newton(tune::RolloutProblem& problem, System& system, TelemetryLoss& fit, int steps,
                                 std::size_t constants, const std::vector<double>& x) {
  const std::size_t n = constants;
  const std::vector<tune::Parameter>& parameters = problem.space().parameters();
  std::vector<std::vector<double>> columns(n);
  for (std::size_t i = 0; i < n; ++i) {
    const double width = parameters[i].upper - parameters[i].lower;
    const double floor = std::isfinite(width) ? 0.01 * width : 0.0;
    const double scale = std::max(std::abs(x[i]), floor) > 0.0 ? std::max(std::abs(x[i]), floor) : 1.0;
    const double h = 1e-5 * scale;
    std::vector<double> xp = x, xm = x;
    xp[i] += h;
    xm[i] -= h;
    const std::vector<double> rp = residuals(problem, system, fit, steps, xp), rm = residuals(problem, system, fit, steps, xm);
    columns[i].resize(rp.size());
    for (std::size_t k = 0; k < rp.size(); ++k) columns[i][k] = (rp[k] - rm[k]) / (2.0 * h) * scale;
  }
  Eigen::MatrixXd H(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
  for (std::size_t a = 0; a < n; ++a)
    for (std::size_t b = 0; b <= a; ++b) {
      double s = 0.0;
      for (std::size_t k = 0; k < columns[a].size(); ++k) s += columns[a][k] * columns[b][k];
      H(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)) = s;
      H(static_cast<Eigen::Index>(b), static_cast<Eigen::Index>(a)) = s;
    }
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(H);
  const double largest = std::max(eig.eigenvalues().maxCoeff(), 1e-300);
  GaussNewtonAnalysis out;
  for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(n); ++k) {
    GaussNewtonDirection d;
    d.eigenvalue_ratio = std::max(eig.eigenvalues()(k), 0.0) / largest;
    d.flat = d.eigenvalue_ratio < 1e-8;
    for (std::size_t i = 0; i < n; ++i) {
      const double w = eig.eigenvectors()(static_cast<Eigen::Index>(i), k);
      if (std::abs(w) >= 0.2) d.parameters.emplace_back(parameters[i].name, w);
    }
    out.directions.push_back(std::move(d));
  }
  out.condition_number = largest / std::max(eig.eigenvalues()(0), 1e-300);
  for (std::size_t i = 0; i < n; ++i)
    out.relative_sensitivity_inverse.emplace_back(
        parameters[i].name, 1.0 / std::sqrt(std::max(H(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(i)), 1e-300)));
  return out;
}

}  // namespace simgrad::vehicle
