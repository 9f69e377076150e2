#include "core/rollout.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/gradcheck.hpp"

namespace simgrad {
namespace {

// A damped pendulum, semi-implicit Euler: v' = v - dt (theta sin p + c v), p' = p + dt v'.
// Parameters: theta, c and the initial state; adjoints written by hand so the rollout machinery
// is tested on its own.
class Pendulum : public System {
 public:
  double theta = 9.0, c = 0.3, dt = 0.01;
  double p0 = 1.0, v0 = 0.0;
  double g_theta = 0, g_c = 0, g_p0 = 0, g_v0 = 0;
  int blow_up_at = -1;

  Index state_size() const override { return 2; }
  void initial_state(std::span<double> s) override {
    s[0] = p0;
    s[1] = v0;
  }
  void initial_state_adjoint(std::span<const double> a) override {
    g_p0 += a[0];
    g_v0 += a[1];
  }
  void step(int t, std::span<const double> s, std::span<double> n, std::span<double>) override {
    if (t == blow_up_at) throw NonFiniteError("pendulum", 0, false);
    n[1] = s[1] - dt * (theta * std::sin(s[0]) + c * s[1]);
    n[0] = s[0] + dt * n[1];
  }
  void step_adjoint(int, std::span<const double> s, std::span<const double>, std::span<const double> an,
                    std::span<double> a) override {
    const double av = an[1] + dt * an[0];  // adjoint of v'
    a[0] += an[0] - av * dt * theta * std::cos(s[0]);
    a[1] += av * (1.0 - dt * c);
    g_theta -= av * dt * std::sin(s[0]);
    g_c -= av * dt * s[1];
  }
  void clear_adjoints() override { g_theta = g_c = g_p0 = g_v0 = 0; }
};

// Sum of p_t^2 at every third step, plus v_T^2.
class Squares : public TrajectoryLoss {
 public:
  bool has_term(int t, int steps) const override { return t % 3 == 0 || t == steps; }
  double term(int, std::span<const double> s) override { return s[0] * s[0] + s[1] * s[1]; }
  void term_adjoint(int, std::span<const double> s, double seed, std::span<double> a) override {
    a[0] += seed * 2 * s[0];
    a[1] += seed * 2 * s[1];
  }
};

std::vector<double> gradient_of(Pendulum& p) { return {p.g_theta, p.g_c, p.g_p0, p.g_v0}; }

TEST(Rollout, GradientMatchesFiniteDifferences) {
  Pendulum pendulum;
  Squares loss;
  Rollout rollout(pendulum, loss, 300);
  rollout.loss_and_gradient();
  const std::vector<double> x = {pendulum.theta, pendulum.c, pendulum.p0, pendulum.v0};
  auto f = [&](std::span<const double> q) {
    Pendulum probe;
    probe.theta = q[0];
    probe.c = q[1];
    probe.p0 = q[2];
    probe.v0 = q[3];
    Squares l;
    return Rollout(probe, l, 300).loss();
  };
  const auto report = check_gradient(f, x, gradient_of(pendulum));
  for (const auto& c : report.checks) EXPECT_TRUE(c.ok) << c.label << ": ad " << c.ad << " fd " << c.fd;
}

TEST(Rollout, EveryPolicyGivesBitIdenticalGradients) {
  const int T = 257;
  std::vector<double> reference;
  double reference_loss = 0.0;
  for (const char* policy : {"all", "every:1", "every:7", "every:300", "binomial:2", "binomial:5", "binomial:40",
                             "binomial:1000"}) {
    Pendulum pendulum;
    Squares loss;
    RolloutOptions options;
    options.checkpoint = CheckpointPolicy::parse(policy);
    Rollout rollout(pendulum, loss, T, options);
    const double l = rollout.loss_and_gradient();
    const auto g = gradient_of(pendulum);
    if (reference.empty()) {
      reference = g;
      reference_loss = l;
    }
    EXPECT_EQ(std::memcmp(&l, &reference_loss, sizeof l), 0) << policy;
    EXPECT_EQ(g, reference) << policy;
    EXPECT_EQ(rollout.stats().adjoint_steps, T) << policy;
  }
}

// The pendulum keeping step records: the whole earlier state (two doubles), on a stack.
class RecordingPendulum : public Pendulum {
 public:
  std::vector<double> records;
  std::vector<int> days;
  bool records_steps() const override { return true; }
  void step_recorded(int t, std::span<double> s) override {
    records.insert(records.end(), s.begin(), s.end());
    days.push_back(t);
    const std::vector<double> before(s.begin(), s.end());
    step(t, before, s, {});
  }
  void undo_step(int t, std::span<double> s, std::span<double>) override {
    ASSERT_EQ(days.back(), t);
    s[1] = records.back();
    records.pop_back();
    s[0] = records.back();
    records.pop_back();
    days.pop_back();
  }
  void clear_records() override {
    records.clear();
    days.clear();
  }
};

// Under `all`, a system that records its steps goes back through its records: the same bits as
// every other policy, no recomputation, and a working state instead of T + 1 stored ones.
TEST(Rollout, AllFromStepRecordsGivesTheSameBitsWithoutStoringStates) {
  const int T = 257;
  RecordingPendulum recording;
  Squares loss;
  Rollout rollout(recording, loss, T);
  const double l = rollout.loss_and_gradient();
  EXPECT_EQ(rollout.stats().forward_steps, T);
  EXPECT_LE(rollout.stats().stored_states, 3);
  EXPECT_TRUE(recording.days.empty());
  for (const char* policy : {"every:7", "binomial:5"}) {
    Pendulum pendulum;
    RolloutOptions options;
    options.checkpoint = CheckpointPolicy::parse(policy);
    Rollout reference(pendulum, loss, T, options);
    const double reference_loss = reference.loss_and_gradient();
    EXPECT_EQ(std::memcmp(&l, &reference_loss, sizeof l), 0) << policy;
    EXPECT_EQ(gradient_of(recording), gradient_of(pendulum)) << policy;
  }
}

TEST(Rollout, BinomialUsesAtMostSStatesAndTheOptimalRecomputation) {
  const int T = 1000, S = 12;
  Pendulum pendulum;
  Squares loss;
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse("binomial:" + std::to_string(S));
  Rollout rollout(pendulum, loss, T, options);
  rollout.loss_and_gradient();
  // S stored states plus two working buffers at most.
  EXPECT_LE(rollout.stats().stored_states, S + 2);
  // One forward pass plus the optimal recomputation.
  EXPECT_EQ(rollout.stats().forward_steps, T + binomial::forward_cost(T, S));
}

TEST(Rollout, TruncatedHorizonCutsTheAdjointAndClippingBoundsIt) {
  Pendulum full_p, cut_p;
  Squares loss;
  RolloutOptions cut;
  cut.truncate_horizon = 10;
  Rollout full(full_p, loss, 100), truncated(cut_p, loss, 100, cut);
  full.loss_and_gradient();
  truncated.loss_and_gradient();
  // Only terms within the first window reach the initial state.
  EXPECT_NE(full_p.g_p0, cut_p.g_p0);
  Pendulum window_p;
  struct FirstWindow : Squares {
    bool has_term(int t, int) const override { return t % 3 == 0 && t < 10; }
  } first;
  Rollout window(window_p, first, 100);
  window.loss_and_gradient();
  EXPECT_DOUBLE_EQ(cut_p.g_p0, window_p.g_p0);

  Pendulum clip_p;
  RolloutOptions clip;
  clip.clip_adjoint_norm = 0.5;
  Rollout clipped(clip_p, loss, 100, clip);
  clipped.loss_and_gradient();
  for (double n : clipped.adjoint_norms()) EXPECT_LE(n, 0.5 + 1e-12);
  ASSERT_EQ(full.adjoint_norms().size(), 101u);
}

TEST(Rollout, NonFiniteStepIsReportedWithItsStep) {
  Pendulum pendulum;
  pendulum.blow_up_at = 42;
  Squares loss;
  Rollout rollout(pendulum, loss, 100);
  try {
    rollout.loss();
    FAIL();
  } catch (const NonFiniteError& e) {
    EXPECT_EQ(e.step(), 42);
    EXPECT_NE(std::string(e.what()).find("step 42"), std::string::npos);
  }
}

}  // namespace
}  // namespace simgrad
