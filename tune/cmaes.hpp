#pragma once

// CMA-ES, the (mu/mu_w, lambda) evolution strategy with covariance matrix adaptation, following
// Hansen's tutorial (arXiv:1604.00772): weighted recombination, cumulative step-size
// adaptation, rank-one and rank-mu covariance updates, and a lazily refreshed eigendecomposition.
// It is the black-box baseline that gradient tuning is measured against.
//
// One iteration is one generation of lambda samples, each one rollout; its loss is the lowest in
// the generation. Samples come from core/rng.hpp keyed by (seed, generation, sample * n + i), so a
// run is reproducible from its seed. Box bounds: a sample outside is evaluated at its projection
// into the box and ranked with a penalty proportional to its squared distance from the box, in
// units of sigma and of the generation's spread of losses, so that the mean is drawn back inside.

#include <Eigen/Core>

#include "tune/optimizer.hpp"

namespace simgrad::tune {

class CmaEs final : public Optimizer {
 public:
  explicit CmaEs(OptimizerOptions options = {}) : Optimizer(std::move(options)) {}

  // Name in saved state and reports.
  std::string_view name() const override { return "cmaes"; }

  // Samples per generation.
  int population_size() const { return population_; }

  // Current overall step size.
  double sigma() const { return sigma_; }

 protected:
  // The Optimizer hooks, documented in optimizer.hpp.
  void on_init(std::span<const double> x0) override;
  double step() override;
  std::span<const double> current() const override {
    return {mean_inside_.data(), std::size_t(mean_inside_.size())};
  }
  void save_state(StateWriter& writer) const override;
  void load_state(StateReader& reader) override;

 private:
  // The method's fields, listed once for both saving and loading.
  template <class Self, class Archive>
  static void transfer(Self& self, Archive& archive);

  // Refreshes basis_ and axis_ from covariance_ (C = B diag(axis^2) B^T).
  void decompose();

  // The mean projected into the box, which is what current_x() reports.
  void update_mean_inside();

  // Strategy constants, fixed by n and lambda (tutorial, table 1).
  int population_ = 0;
  int parents_ = 0;
  Eigen::VectorXd weights_;
  double mu_effective_ = 0;
  double c_sigma_ = 0;
  double d_sigma_ = 0;
  double c_c_ = 0;
  double c_1_ = 0;
  double c_mu_ = 0;
  double expected_norm_ = 0;  // E||N(0, I)||
  int eigen_interval_ = 1;    // generations between eigendecompositions

  // Evolving state.
  Eigen::VectorXd mean_;
  double sigma_ = 0;
  Eigen::MatrixXd covariance_;
  Eigen::MatrixXd basis_;
  Eigen::VectorXd axis_;  // square roots of the eigenvalues
  Eigen::VectorXd path_sigma_;
  Eigen::VectorXd path_c_;
  int eigen_generation_ = 0;  // generation of the last decomposition
  Eigen::VectorXd mean_inside_;
};

}  // namespace simgrad::tune
