#include "tune/cmaes.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

#include <Eigen/Eigenvalues>

#include "core/rng.hpp"
#include "tune/box.hpp"
#include "tune/eigen_span.hpp"

namespace simgrad::tune {
namespace {

using Eigen::Index;
using Eigen::MatrixXd;
using Eigen::VectorXd;

constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kLargestCondition = 1e14;  // beyond this the eigenvectors are mostly rounding

// Default initial step: 0.3 of the mean width of the finite bounds, which puts the first
// samples across the box, or 1 when nothing is bounded.
double default_sigma(std::span<const double> lower, std::span<const double> upper) {
  double width_sum = 0;
  int finite_count = 0;
  for (std::size_t i = 0; i < lower.size(); ++i) {
    if (std::isfinite(upper[i] - lower[i])) {
      width_sum += upper[i] - lower[i];
      ++finite_count;
    }
  }
  return finite_count > 0 && width_sum > 0 ? 0.3 * width_sum / finite_count : 1.0;
}

}  // namespace

void CmaEs::on_init(std::span<const double> x0) {
  const Index n = Index(x0.size());
  const double dimension = double(n);
  const OptimizerOptions& o = options();
  population_ = o.population_size > 0 ? o.population_size : 4 + int(std::floor(3 * std::log(dimension)));
  population_ = std::max(population_, 2);
  parents_ = population_ / 2;
  weights_.resize(parents_);
  for (int i = 0; i < parents_; ++i) {
    weights_[i] = std::log((population_ + 1) / 2.0) - std::log(i + 1.0);
  }
  weights_ /= weights_.sum();
  mu_effective_ = 1.0 / weights_.squaredNorm();
  c_sigma_ = (mu_effective_ + 2) / (dimension + mu_effective_ + 5);
  d_sigma_ = 1 + 2 * std::max(0.0, std::sqrt((mu_effective_ - 1) / (dimension + 1)) - 1) + c_sigma_;
  c_c_ = (4 + mu_effective_ / dimension) / (dimension + 4 + 2 * mu_effective_ / dimension);
  c_1_ = 2 / ((dimension + 1.3) * (dimension + 1.3) + mu_effective_);
  c_mu_ = std::min(1 - c_1_, 2 * (mu_effective_ - 2 + 1 / mu_effective_) /
                                 ((dimension + 2) * (dimension + 2) + mu_effective_));
  expected_norm_ =
      std::sqrt(dimension) * (1 - 1 / (4 * dimension) + 1 / (21 * dimension * dimension));
  eigen_interval_ = std::max(1, int(population_ / ((c_1_ + c_mu_) * dimension * 10)));

  mean_ = Eigen::Map<const VectorXd>(x0.data(), n);
  sigma_ = o.initial_sigma > 0 ? o.initial_sigma : default_sigma(lower(), upper());
  covariance_ = MatrixXd::Identity(n, n);
  basis_ = MatrixXd::Identity(n, n);
  axis_ = VectorXd::Ones(n);
  path_sigma_ = VectorXd::Zero(n);
  path_c_ = VectorXd::Zero(n);
  eigen_generation_ = 0;
  update_mean_inside();
}

double CmaEs::step() {
  const Index n = mean_.size();
  const int generation = iterations();
  if (generation - eigen_generation_ >= eigen_interval_) {
    decompose();
    if (finished()) return kInfinity;
  }

  // Sample the generation, evaluate it at the projections into the box as one batch, and rank
  // with the distance penalty.
  MatrixXd steps(n, population_), repaired(n, population_);
  std::vector<double> losses(population_), distances(population_);
  VectorXd normal(n), candidate(n);
  for (int k = 0; k < population_; ++k) {
    for (Index i = 0; i < n; ++i) {
      normal[i] = standard_normal(options().seed, uint64_t(generation), uint64_t(k * n + i));
    }
    steps.col(k) = basis_ * axis_.cwiseProduct(normal);
    candidate = mean_ + sigma_ * steps.col(k);
    repaired.col(k) = candidate;
    project_onto_box({repaired.col(k).data(), std::size_t(n)}, lower(), upper());
    distances[k] = (candidate - repaired.col(k)).squaredNorm();
  }
  evaluate_batch({repaired.data(), std::size_t(repaired.size())}, losses);
  for (double& loss : losses) loss = std::isfinite(loss) ? loss : kInfinity;
  double lowest = kInfinity, highest = -kInfinity;
  for (double loss : losses) {
    if (std::isfinite(loss)) {
      lowest = std::min(lowest, loss);
      highest = std::max(highest, loss);
    }
  }
  const double spread = highest > lowest ? highest - lowest : 1.0;
  std::vector<double> fitness(population_);
  for (int k = 0; k < population_; ++k) {
    fitness[k] = losses[k] + spread * distances[k] / (sigma_ * sigma_);
  }
  std::vector<int> order(population_);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return fitness[a] < fitness[b]; });

  // Recombination and the evolution paths (tutorial, equations 41 to 45).
  MatrixXd selected(n, parents_);
  for (int i = 0; i < parents_; ++i) selected.col(i) = steps.col(order[i]);
  const VectorXd mean_step = selected * weights_;
  mean_ += sigma_ * mean_step;
  const VectorXd whitened = basis_ * (basis_.transpose() * mean_step).cwiseQuotient(axis_);
  path_sigma_ = (1 - c_sigma_) * path_sigma_ +
                std::sqrt(c_sigma_ * (2 - c_sigma_) * mu_effective_) * whitened;
  const double path_norm = path_sigma_.norm();
  const double unbiased_norm =
      path_norm / std::sqrt(1 - std::pow(1 - c_sigma_, 2.0 * (generation + 1)));
  const bool stalled = unbiased_norm >= (1.4 + 2 / (double(n) + 1)) * expected_norm_;
  path_c_ = (1 - c_c_) * path_c_;
  if (!stalled) path_c_ += std::sqrt(c_c_ * (2 - c_c_) * mu_effective_) * mean_step;

  // Covariance: rank-one from the path, rank-mu from the selected steps (equation 47).
  const double lost_variance = stalled ? c_c_ * (2 - c_c_) : 0.0;
  // lazyProduct keeps the sums in one fixed order whatever the OpenMP thread count.
  const MatrixXd rank_mu = (selected * weights_.asDiagonal()).lazyProduct(selected.transpose());
  covariance_ = (1 - c_1_ - c_mu_) * covariance_ +
                c_1_ * (path_c_ * path_c_.transpose() + lost_variance * covariance_) +
                c_mu_ * rank_mu;
  covariance_ = (0.5 * (covariance_ + covariance_.transpose())).eval();

  sigma_ *= std::exp((c_sigma_ / d_sigma_) * (path_norm / expected_norm_ - 1));
  update_mean_inside();
  const double largest_spread = sigma_ * std::sqrt(covariance_.diagonal().maxCoeff());
  if (!std::isfinite(largest_spread)) {
    converge("step size is not finite");
  } else if (largest_spread < options().step_tolerance) {
    converge("step size below tolerance");
  }
  return *std::min_element(losses.begin(), losses.end());
}

void CmaEs::decompose() {
  const Eigen::SelfAdjointEigenSolver<MatrixXd> solver(covariance_);
  const VectorXd eigenvalues = solver.eigenvalues();
  if (solver.info() != Eigen::Success || !(eigenvalues.minCoeff() > 0) ||
      eigenvalues.maxCoeff() > kLargestCondition * eigenvalues.minCoeff()) {
    converge("covariance matrix ill-conditioned");
    return;
  }
  basis_ = solver.eigenvectors();
  axis_ = eigenvalues.cwiseSqrt();
  eigen_generation_ = iterations();
}

void CmaEs::update_mean_inside() {
  mean_inside_ = mean_;
  project_onto_box(span_of(mean_inside_), lower(), upper());
}

template <class Self, class Archive>
void CmaEs::transfer(Self& self, Archive& archive) {
  int population = self.population_;
  archive("population", population);
  if constexpr (Archive::loading) {
    if (population != self.population_) {
      throw std::runtime_error("CMA-ES state has population " + std::to_string(population) +
                               "; this optimizer uses " + std::to_string(self.population_));
    }
  }
  archive("mean", self.mean_);
  archive("sigma", self.sigma_);
  archive("covariance", self.covariance_);
  archive("basis", self.basis_);
  archive("axis", self.axis_);
  archive("path_sigma", self.path_sigma_);
  archive("path_c", self.path_c_);
  archive("eigen_generation", self.eigen_generation_);
}

void CmaEs::save_state(StateWriter& writer) const { transfer(*this, writer); }

void CmaEs::load_state(StateReader& reader) {
  transfer(*this, reader);
  update_mean_inside();
}

}  // namespace simgrad::tune
