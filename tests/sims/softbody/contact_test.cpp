#include "sims/softbody/contact.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rollout.hpp"
#include "sims/softbody/mass_spring.hpp"

namespace simgrad::softbody {
namespace {

// The height of the last state.
class FinalHeight : public TrajectoryLoss {
 public:
  bool has_term(int t, int steps) const override { return t == steps; }
  double term(int, std::span<const double> s) override { return s[1]; }
  void term_adjoint(int, std::span<const double>, double seed, std::span<double> a) override { a[1] += seed; }
};

constexpr double kGravity = 9.81;
constexpr double kDt = 1e-3;
constexpr int kSteps = 550;

// A point dropped from height h onto an elastic ground; returns (final height, d/dh).
std::pair<double, double> drop(double h, ContactModel model) {
  MassSpringModel<2> m;
  m.build(1, {}, kSteps);
  m.settings.dt = kDt;
  m.gravity.values()[1] = -kGravity;
  m.initial_position.values()[1] = h;
  ContactPlane<2> ground;
  ground.normal = {{0.0, 1.0}};
  ground.restitution = 1.0;
  ground.model = model;
  m.planes.push_back(ground);
  m.enable_adjoints(false, false, false, false, false, true, false);
  MassSpring<2> system(m);
  FinalHeight loss;
  Rollout rollout(system, loss, kSteps);
  const double y = rollout.loss_and_gradient();
  return {y, m.initial_position.adjoints()[1]};
}

TEST(Contact, TimeOfImpactBounceHasTheRightGradientSignWhereNaiveHasTheWrongOne) {
  const double h = 1.0;
  // Closed form: falls for t_c = sqrt(2h/g), leaves at v_c = sqrt(2gh), then rises for
  // tau = T - t_c: y = v_c tau - g tau^2 / 2 and dy/dh = 2 g tau / v_c - 1.
  const double t_c = std::sqrt(2 * h / kGravity), v_c = std::sqrt(2 * kGravity * h);
  const double tau = kSteps * kDt - t_c;
  const double exact = 2 * kGravity * tau / v_c - 1.0;
  ASSERT_LT(exact, 0.0);

  const auto [y_toi, g_toi] = drop(h, ContactModel::kTimeOfImpact);
  const auto [y_naive, g_naive] = drop(h, ContactModel::kProjection);
  EXPECT_NEAR(y_toi, v_c * tau - 0.5 * kGravity * tau * tau, 0.01);
  EXPECT_LT(g_toi, 0.0);
  EXPECT_NEAR(g_toi, exact, 0.05 * std::abs(exact));
  EXPECT_GT(g_naive, 0.0);  // the naive bounce: the wrong sign

  // The time-of-impact gradient is also the derivative of its own discrete model.
  const double step = 1e-6;
  const double fd = (drop(h + step, ContactModel::kTimeOfImpact).first -
                     drop(h - step, ContactModel::kTimeOfImpact).first) / (2 * step);
  EXPECT_TRUE(derivatives_agree(g_toi, fd, GradCheckOptions{})) << g_toi << " vs " << fd;
}

TEST(Contact, PenaltyForceIsSoftplusOfPenetrationAndHardTwinIsLinear) {
  ContactPlane<2> ground;
  ground.normal = {{0.0, 1.0}};
  PenaltySettings soft{1e3, 200.0, 0.01};
  PenaltySettings hard = soft;
  hard.sharpness = 0.0;
  const Vec<double, 2> deep{{0.0, -0.05}}, above{{0.0, 0.05}}, still{{0.0, 0.0}};
  EXPECT_NEAR(penalty_contact_force(ground, hard, deep, still)[1], 50.0, 1e-12);
  EXPECT_EQ(penalty_contact_force(ground, hard, above, still)[1], 0.0);
  EXPECT_NEAR(penalty_contact_force(ground, soft, deep, still)[1], 50.0, 1e-3);
  EXPECT_GT(penalty_contact_force(ground, soft, above, still)[1], 0.0);
  EXPECT_LT(penalty_contact_force(ground, soft, above, still)[1], 1e-3);
}

TEST(Contact, FrictionNeverReversesTheTangentialVelocity) {
  ContactPlane<2> ground;
  ground.normal = {{0.0, 1.0}};
  ground.friction = 10.0;
  const Vec<double, 2> v{{0.1, -2.0}};
  const Vec<double, 2> out = impact_velocity(ground, v);
  EXPECT_EQ(out[0], 0.0);
  ground.friction = 0.01;
  ground.restitution = 0.5;
  const Vec<double, 2> slid = impact_velocity(ground, v);
  EXPECT_NEAR(slid[0], 0.1 - 0.01 * 1.5 * 2.0, 1e-15);
  EXPECT_NEAR(slid[1], 1.0, 1e-15);
}

}  // namespace
}  // namespace simgrad::softbody
