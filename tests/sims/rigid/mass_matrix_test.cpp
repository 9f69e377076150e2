// The accelerations' solve: its hand-written adjoint against the same solve recorded on the tape
// and against central differences.
#include "sims/rigid/mass_matrix.hpp"

#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "core/gradcheck.hpp"

namespace simgrad::rigid {
namespace {

constexpr int kDofs = 5;
constexpr std::size_t kN = kDofs;

// A symmetric positive definite matrix (row-major, full) and forces, random but well conditioned.
struct SolveInputs {
  std::vector<double> mass_matrix, applied, bias, weights;
};

SolveInputs random_inputs() {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> a(kN * kN);
  for (double& x : a) x = u(rng);
  SolveInputs in;
  in.mass_matrix.assign(kN * kN, 0.0);
  for (std::size_t i = 0; i < kN; ++i)
    for (std::size_t j = 0; j < kN; ++j) {
      for (std::size_t k = 0; k < kN; ++k) in.mass_matrix[i * kN + j] += a[i * kN + k] * a[j * kN + k];
      if (i == j) in.mass_matrix[i * kN + j] += 1.0;
    }
  for (std::size_t d = 0; d < kN; ++d) {
    in.applied.push_back(u(rng));
    in.bias.push_back(u(rng));
    in.weights.push_back(u(rng));
  }
  return in;
}

template <class S>
void size_workspace(RigidWorkspace<S>& w) {
  w.mass_matrix.resize(kN * kN);
  w.qacc.resize(kN);
  w.applied.resize(kN);
  w.bias.resize(kN);
}

// A workspace on doubles holding the inputs.
RigidWorkspace<double> workspace_of(const SolveInputs& in) {
  RigidWorkspace<double> w;
  size_workspace(w);
  w.mass_matrix = in.mass_matrix;
  w.applied = in.applied;
  w.bias = in.bias;
  return w;
}

// sum_d weights_d qacc_d on doubles.
double weighted_accelerations(const SolveInputs& in) {
  RigidWorkspace<double> w = workspace_of(in);
  EXPECT_TRUE(solve_accelerations(kDofs, w));
  double sum = 0.0;
  for (std::size_t d = 0; d < kN; ++d) sum += in.weights[d] * w.qacc[d];
  return sum;
}

// The adjoints of sum_d weights_d qacc_d with respect to M's lower triangle (row by row), then
// applied, then bias, and the accelerations, by the hand-written adjoint or (derived = true) by
// recording the factor and solve.
struct SolveAdjoints {
  std::vector<double> adjoints, qacc;
};

SolveAdjoints solve_adjoints(const SolveInputs& in, bool derived) {
  ad::LocalTape& tape = ad::thread_tape();
  tape.reset();
  RigidWorkspace<ad::Var> w;
  size_workspace(w);
  std::vector<ad::Var> inputs;
  for (std::size_t j = 0; j < kN; ++j)
    for (std::size_t k = 0; k <= j; ++k) {
      const ad::Var x = ad::Var::input(in.mass_matrix[j * kN + k]);
      w.mass_matrix[j * kN + k] = w.mass_matrix[k * kN + j] = x;
      inputs.push_back(x);
    }
  for (std::size_t d = 0; d < kN; ++d) inputs.push_back(w.applied[d] = ad::Var::input(in.applied[d]));
  for (std::size_t d = 0; d < kN; ++d) inputs.push_back(w.bias[d] = ad::Var::input(in.bias[d]));
  const bool solved = derived ? solve_accelerations<ad::Var>(kDofs, w) : solve_accelerations(kDofs, w);
  EXPECT_TRUE(solved);
  tape.clear_adjoints();
  SolveAdjoints out;
  for (std::size_t d = 0; d < kN; ++d) {
    tape.adjoint(w.qacc[d].i) += in.weights[d];
    out.qacc.push_back(w.qacc[d].v);
  }
  tape.sweep();
  for (const ad::Var& x : inputs) out.adjoints.push_back(tape.adjoint(x.i));
  return out;
}

TEST(AccelerationSolve, HandAdjointMatchesTheRecordedSolveAndDifferences) {
  const SolveInputs in = random_inputs();
  const SolveAdjoints hand = solve_adjoints(in, false);
  const SolveAdjoints derived = solve_adjoints(in, true);
  // The values are the same bits: the factor runs on the same numbers in the same order.
  EXPECT_EQ(hand.qacc, derived.qacc);
  ASSERT_EQ(hand.adjoints.size(), derived.adjoints.size());
  GradCheckOptions tolerance;
  tolerance.rtol = 1e-6;
  tolerance.atol = 1e-9;
  const double h = 1e-6;
  std::size_t i = 0;
  // One input at a time, nudged on both sides; a lower-triangle entry moves both halves of M.
  auto difference = [&](auto nudge) {
    SolveInputs plus = in, minus = in;
    nudge(plus, h);
    nudge(minus, -h);
    return (weighted_accelerations(plus) - weighted_accelerations(minus)) / (2 * h);
  };
  auto check = [&](double fd, const char* what) {
    EXPECT_NEAR(hand.adjoints[i], derived.adjoints[i], 1e-12 * (1.0 + std::abs(derived.adjoints[i]))) << what << " " << i;
    EXPECT_TRUE(derivatives_agree(hand.adjoints[i], fd, tolerance)) << what << " " << i << ": " << hand.adjoints[i] << " vs " << fd;
    ++i;
  };
  for (std::size_t j = 0; j < kN; ++j)
    for (std::size_t k = 0; k <= j; ++k)
      check(difference([&](SolveInputs& s, double e) {
              s.mass_matrix[j * kN + k] += e;
              if (j != k) s.mass_matrix[k * kN + j] += e;
            }),
            "M");
  for (std::size_t d = 0; d < kN; ++d) check(difference([&](SolveInputs& s, double e) { s.applied[d] += e; }), "applied");
  for (std::size_t d = 0; d < kN; ++d) check(difference([&](SolveInputs& s, double e) { s.bias[d] += e; }), "bias");
}

TEST(AccelerationSolve, RefusesAMatrixThatIsNotPositiveDefiniteOnBothPaths) {
  SolveInputs in = random_inputs();
  in.mass_matrix[0] = -1.0;
  RigidWorkspace<double> w = workspace_of(in);
  EXPECT_FALSE(solve_accelerations(kDofs, w));
  ad::LocalTape& tape = ad::thread_tape();
  tape.reset();
  RigidWorkspace<ad::Var> v;
  size_workspace(v);
  for (std::size_t i = 0; i < kN * kN; ++i) v.mass_matrix[i] = ad::Var::input(in.mass_matrix[i]);
  for (std::size_t d = 0; d < kN; ++d) v.applied[d] = ad::Var::input(in.applied[d]);
  for (std::size_t d = 0; d < kN; ++d) v.bias[d] = ad::Var::input(in.bias[d]);
  EXPECT_FALSE(solve_accelerations(kDofs, v));
  // The tape still sweeps: the block's outputs were recorded.
  tape.clear_adjoints();
  tape.adjoint(v.qacc[0].i) = 1.0;
  tape.sweep();
}

}  // namespace
}  // namespace simgrad::rigid
