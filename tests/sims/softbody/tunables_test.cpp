#include "sims/softbody/tunables.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <vector>

#include "core/gradcheck.hpp"
#include "sims/softbody/losses.hpp"
#include "sims/softbody/mass_spring.hpp"

namespace simgrad::softbody {
namespace {

MassSpringModel<2> hanging_lattice() {
  MassSpringModel<2> m = make_lattice_2d(4, 3, 0.1, {{0.0, 0.5}}, 80);
  m.settings.dt = 2e-3;
  for (double& k : m.stiffness.values()) k = 200.0;
  for (double& c : m.damping.values()) c = 0.3;
  m.gravity.values()[1] = -9.8;
  m.inverse_mass.values()[8] = m.inverse_mass.values()[11] = 0.0;  // pinned top corners
  return m;
}

tune::BoundParameter bind(MassSpringModel<2>& model, const char* name, const tune::TuneRequest& request) {
  return tune::bind(mass_spring_tunables<2>(), model, name, request);
}

TEST(MassSpringTunables, UniformGradientIsTheSumOfPerEntryGradientsAndMatchesFiniteDifferences) {
  MassSpringModel<2> model = hanging_lattice();
  MassSpring<2> system(model);
  std::vector<double> reference(12 * 2 * 9, 0.0);
  for (std::size_t i = 0; i < reference.size(); ++i) reference[i] = model.initial_position.values()[i % 24] - 0.01;
  std::vector<std::int32_t> markers(12);
  std::iota(markers.begin(), markers.end(), 0);
  TrajectoryMatchLoss<2> loss(system, markers, 10, reference);

  std::vector<tune::BoundParameter> bound;
  bound.push_back(bind(model, "stiffness",
                       {.sharing = tune::Sharing::uniform, .lower = 1.0, .upper = 1e4, .transform = tune::Transform::log}));
  bound.push_back(bind(model, "damping", {.lower = 0.0, .upper = 10.0}));
  bound.push_back(bind(model, "gravity", {.sharing = tune::Sharing::uniform, .lower = -20.0, .upper = 20.0}));
  tune::RolloutProblem problem(system, loss, 80, {}, std::move(bound));
  EXPECT_EQ(problem.dimension(), 1u + static_cast<std::size_t>(model.spring_count()) + 2u);
  EXPECT_EQ(problem.space().component_name(0), "stiffness");

  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  const auto adj = model.stiffness.adjoints();
  EXPECT_NEAR(g[0], std::accumulate(adj.begin(), adj.end(), 0.0), 1e-12 * std::abs(g[0]));
  const auto report = check_gradient([&](std::span<const double> p) { return problem.value(p); }, x, g);
  for (const auto& c : report.checks) EXPECT_TRUE(c.ok) << c.label << " ad " << c.ad << " fd " << c.fd;
}

TEST(MassSpringTunables, GroupsShareOneValueEachAndSumTheirEntriesGradients) {
  MassSpringModel<2> model = hanging_lattice();
  MassSpring<2> system(model);
  TrajectoryMatchLoss<2> loss(system, {0, 3, 5}, 20, std::vector<double>(5 * 3 * 2, 0.45));
  tune::TuneRequest request{.sharing = tune::Sharing::groups, .lower = 1.0, .upper = 1e4, .transform = tune::Transform::log};
  for (Index e = 0; e < model.spring_count(); ++e) request.groups.push_back(static_cast<int>(e % 3));
  std::vector<tune::BoundParameter> bound;
  bound.push_back(bind(model, "stiffness", request));
  tune::RolloutProblem problem(system, loss, 80, {}, std::move(bound));
  ASSERT_EQ(problem.dimension(), 3u);
  std::vector<double> x = {150.0, 250.0, 350.0};
  std::vector<double> g(3);
  problem.value_and_gradient(x, g);
  EXPECT_EQ(model.stiffness.values()[4], 250.0);  // spring 4 is in group 1
  double group1 = 0.0;
  for (Index e = 1; e < model.spring_count(); e += 3) group1 += model.stiffness.adjoints()[e];
  EXPECT_EQ(g[1], group1);
  EXPECT_TRUE(check_gradient([&](std::span<const double> p) { return problem.value(p); }, x, g).ok);
  request.groups.pop_back();
  EXPECT_THROW(bind(model, "stiffness", request), std::invalid_argument);
}

TEST(MassSpringTunables, UnknownNameIsAnError) {
  MassSpringModel<2> model = hanging_lattice();
  EXPECT_THROW(bind(model, "stifness", {}), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::softbody
