// The design performance rating: a static analysis of every load case (one sparse Cholesky
// factorisation, one solve per case), member checks, and the rating formula of the scenario;
// and its gradient with respect to every joint position, member area and catalogue logit by the
// adjoint method (one more solve per load case with the same factorisation, then one small
// reverse-mode pass per member), never by differentiating the factorisation.
#pragma once

#include <Eigen/Dense>

#include <memory>
#include <vector>

#include "core/vec.hpp"
#include "sims/structure/member_checks.hpp"
#include "sims/structure/stiffness.hpp"
#include "sims/structure/truss_model.hpp"

namespace simgrad::structure {

struct RatingTerms {
  double mass = 0.0;
  double cost = 0.0;
  double stress = 0.0;              // smooth (hard: plain) maximum of stress ratios
  double stress_penalty = 0.0;
  double deflection = 0.0;          // smooth (hard: plain) maximum of deflection over its limit
  double deflection_penalty = 0.0;
  double budget_penalty = 0.0;
};

// A member after the analysis, at its governing load case (the one with the largest ratio).
struct MemberReport {
  double length = 0.0;
  double area = 0.0;
  double mass = 0.0;
  double cost = 0.0;    // its material's price by mass
  double axial = 0.0;   // tension positive
  double ratio = 0.0;   // force over strength
  int load_case = 0;
  MemberState state = MemberState::tension;
};

struct RatingResult {
  double rating = 0.0;
  RatingTerms terms;
  double max_ratio = 0.0;             // the plain maximum, whatever the model
  double max_deflection_ratio = 0.0;  // the plain maximum of |deflection| / limit
  std::vector<MemberReport> members;
};

// Analyses designs of one model; keeps the matrix pattern and symbolic factorisation between
// designs. Results are the same bits for any thread count.
class StructureAnalysis {
 public:
  explicit StructureAnalysis(const TrussModel& model);

  // The rating of a design; `hard` rates the hard twin (plain maxima, catalogue snapped).
  const RatingResult& rate(const Design& design, bool hard = false);
  // The relaxed rating and its gradient, shaped like the design.
  const RatingResult& rate_with_gradient(const Design& design, Design& gradient);

  const TrussModel& model() const { return *model_; }
  // The displacement of a joint along an axis under a load case, after the last rating.
  double displacement(int joint, int axis, int load_case) const;

 private:
  void analyse(const Design& design, bool hard);
  void aggregate(bool hard);
  void adjoint(const Design& design, Design& gradient);
  // Row-major copies of solutions, so that a member's values for every load case lie together.
  using ByDof = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  // A member's dof values under one load case (zero where held), n = 2 dofs().
  void gather(Index member, const ByDof& values, int load_case, double* out) const;

  const TrussModel* model_;
  DofMap dofs_;
  std::unique_ptr<StiffnessMatrix> stiffness_;
  std::vector<int> member_free_;         // per member, its n dofs' free indices (-1: held)
  std::vector<double> member_matrices_;  // per member, n x n
  std::vector<double> ratios_;           // per member and load case
  std::vector<double> ratio_weights_;    // d rating / d ratio, per member and load case
  Eigen::MatrixXd u_;                    // free dofs x load cases
  Eigen::MatrixXd lambda_;               // adjoint, free dofs x load cases
  ByDof u_by_dof_, lambda_by_dof_;
  Eigen::MatrixXd deflection_weights_;   // d rating / d u from the deflection terms
  double cost_weight_ = 0.0;             // d rating / d cost, the budget penalty included
  // The adjoint's per-member buffers, kept so that repeated gradients reuse their memory.
  std::vector<double> member_sums_, member_rhs_, member_grad_;
  RatingResult result_;
};

}  // namespace simgrad::structure
