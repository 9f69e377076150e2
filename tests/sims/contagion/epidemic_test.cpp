// Gradients of the epidemic against finite differences of its relaxed twin (noise fixed), for
// every parameter kind and both samplers; the gradient crossing days; closed forms.
#include "sims/contagion/epidemic.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <vector>

#include "contagion_fixtures.hpp"
#include "core/gradcheck.hpp"
#include "core/rollout.hpp"
#include "sims/contagion/losses.hpp"
#include "sims/contagion/tunables.hpp"

namespace simgrad::contagion {
namespace {

using testing::small_model;
using testing::small_population;

// Weekly deaths and daily cases of some made-up data over `days` days.
std::vector<Series> made_up_series(int days) {
  Series deaths{Count::kDeaths, {}, 1.0}, cases{Count::kCases, {}, 0.1};
  for (int d = 7; d <= days; d += 7) deaths.observations.push_back({d, 7, 2.0 + d / 7});
  for (int d = 1; d <= days; ++d) cases.observations.push_back({d, 1, 5.0});
  return {deaths, cases};
}

// Gradient check of every parameter of the model through a rollout of the relaxed twin.
void check_every_parameter(Sampler sampler, double temperature, int immune_days = 0,
                           const std::function<void(DiseaseModel&)>& configure = {}) {
  const int days = 24;
  const Population pop = small_population(600);
  DiseaseModel model = small_model(pop, days);
  model.settings.immune_days = immune_days;
  if (configure) configure(model);
  model.settings.straight_through = false;
  model.settings.sampler = sampler;
  model.settings.temperature = temperature;
  Epidemic system(pop, model);
  CountLoss loss(system, made_up_series(days), Scale::kSqrt);
  std::vector<tune::BoundParameter> bound;
  for (const auto& row : epidemic_tunables()) bound.push_back(tune::bind(epidemic_tunables(), model.parameters, row.info.name, {}));
  tune::RolloutProblem problem(system, loss, days, {}, std::move(bound));
  const std::vector<double> x = problem.initial();
  std::vector<double> g(x.size());
  problem.value_and_gradient(x, g);
  std::vector<std::string> labels;
  for (std::size_t k = 0; k < x.size(); ++k) labels.push_back(problem.space().component_name(k));
  GradCheckOptions options;
  options.rtol = 1e-4;
  options.atol = 1e-7;
  const GradCheckReport report = check_gradient([&](std::span<const double> p) { return problem.value(p); }, x, g,
                                                options, labels);
  int non_zero = 0;
  for (const auto& c : report.checks) {
    EXPECT_TRUE(c.ok) << c.label << " ad " << c.ad << " fd " << c.fd;
    non_zero += std::abs(c.ad) > 1e-6;
  }
  EXPECT_GT(non_zero, static_cast<int>(x.size()) / 2);  // the check is not of zeros
}

TEST(Epidemic, GumbelSoftmaxGradientOfEveryParameterMatchesFiniteDifferences) {
  check_every_parameter(Sampler::kGumbelSoftmax, 0.7);
}

TEST(Epidemic, StraightThroughGradientOfEveryParameterMatchesFiniteDifferences) {
  check_every_parameter(Sampler::kStraightThrough, 1.0);
}

TEST(Epidemic, SeirsGradientOfEveryParameterMatchesFiniteDifferences) {
  check_every_parameter(Sampler::kGumbelSoftmax, 0.7, 2);  // recovered agents susceptible again after 2 days
}

// R piecewise-linear between weekly knots: R of every week gets the gradient of the days around it.
TEST(Epidemic, LinearReproductionCurveGradientOfEveryParameterMatchesFiniteDifferences) {
  check_every_parameter(Sampler::kGumbelSoftmax, 0.7, 0, [](DiseaseModel& m) {
    m.settings.reproduction_curve = ReproductionCurve::kLinear;
    const std::span<double> r = m.parameters.reproduction.values();
    for (std::size_t w = 0; w < r.size(); ++w) r[w] = 2.0 + 0.5 * static_cast<double>(w % 3);
  });
}

// A weekly pattern of active contacts: schools and workplaces (layers 1, 2) off at weekends, half
// the random contacts (layer 3) on any day.
std::vector<std::vector<double>> weekly_activity() {
  std::vector<std::vector<double>> rows(7, {1.0, 1.0, 1.0, 0.5});
  for (int d : {5, 6}) rows[static_cast<std::size_t>(d)] = {1.0, 0.0, 0.2, 0.5};
  return rows;
}

TEST(Epidemic, DailyActiveContactsGradientOfEveryParameterMatchesFiniteDifferences) {
  check_every_parameter(Sampler::kGumbelSoftmax, 0.7, 0, [](DiseaseModel& m) { m.settings.active_share = weekly_activity(); });
}

TEST(Epidemic, ReproductionCurvePassesThroughItsWeeklyKnots) {
  DiseaseModel m;
  m.settings.days = 21;
  m.reset(1, 1);
  m.parameters.reproduction.assign({1.0, 3.0, 2.0, 2.0}, true);
  m.settings.reproduction_curve = ReproductionCurve::kLinear;
  EXPECT_EQ(m.reproduction_on(0), 1.0);
  EXPECT_EQ(m.reproduction_on(7), 3.0);
  EXPECT_NEAR(m.reproduction_on(3), 1.0 + 2.0 * 3.0 / 7.0, 1e-15);
  EXPECT_NEAR(m.reproduction_on(10), 3.0 - 3.0 / 7.0, 1e-15);
  EXPECT_EQ(m.reproduction_on(100), 2.0);  // the last value holds
  m.settings.reproduction_curve = ReproductionCurve::kWeekly;
  EXPECT_EQ(m.reproduction_on(3), 1.0);
  EXPECT_EQ(m.reproduction_on(10), 3.0);
}

TEST(Epidemic, ActiveContactsAreSymmetricAndTheirShareIsTheSchedules) {
  const Population pop = small_population(3000);
  DiseaseModel model = small_model(pop, 14);
  model.settings.active_share = weekly_activity();
  Epidemic system(pop, model);
  for (int t : {0, 5}) {
    std::vector<double> active(4, 0.0), total(4, 0.0);
    for (Index i = 0; i < pop.agents; ++i)
      for (std::int64_t e = pop.offsets[static_cast<std::size_t>(i)]; e < pop.offsets[static_cast<std::size_t>(i) + 1]; ++e) {
        const int l = pop.layer[static_cast<std::size_t>(e)];
        const Index j = pop.neighbors[static_cast<std::size_t>(e)];
        const bool on = system.contact_active(t, i, j, l);
        EXPECT_EQ(on, system.contact_active(t, j, i, l));
        active[static_cast<std::size_t>(l)] += on;
        total[static_cast<std::size_t>(l)] += 1.0;
      }
    for (int l = 0; l < 4; ++l) {
      const double share = weekly_activity()[static_cast<std::size_t>(t)][static_cast<std::size_t>(l)];
      const double n = total[static_cast<std::size_t>(l)];
      ASSERT_GT(n, 100.0);
      // Within 4 binomial standard deviations (directed contacts come in pairs: twice the variance).
      EXPECT_NEAR(active[static_cast<std::size_t>(l)] / n, share, 4.0 * std::sqrt(2.0 * share * (1.0 - share) / n) + 1e-12)
          << "day " << t << " layer " << l;
    }
  }
}

TEST(Epidemic, EveryContactActiveIsTheUnscheduledModelAndNoneActiveSpreadsNothing) {
  const Population pop = small_population(2000);
  auto final_state = [&](const std::vector<std::vector<double>>& schedule) {
    DiseaseModel model = small_model(pop, 20);
    model.settings.active_share = schedule;
    Epidemic system(pop, model);
    CountLoss loss(system, made_up_series(20), Scale::kSqrt);
    Rollout rollout(system, loss, 20);
    rollout.loss();
    return std::vector<double>(rollout.final_state().begin(), rollout.final_state().end());
  };
  const std::vector<double> unscheduled = final_state({});
  EXPECT_EQ(final_state({{1.0, 1.0, 1.0, 1.0}}), unscheduled);
  const std::vector<double> closed = final_state({{0.0, 0.0, 0.0, 0.0}});
  DiseaseModel model = small_model(pop, 20);
  Epidemic system(pop, model);
  std::vector<double> s0(static_cast<std::size_t>(system.state_size()));
  system.initial_state(s0);
  for (std::size_t i = 0; i < static_cast<std::size_t>(pop.agents); ++i) EXPECT_EQ(closed[i], s0[i]);  // x: only the seeds
  EXPECT_NE(closed, unscheduled);
}

// Deaths on day 60 only, as a function of R per week.
struct DeathsOnDay60 {
  Population pop = small_population(4000);
  DiseaseModel model;
  std::unique_ptr<Epidemic> system;
  std::unique_ptr<CountLoss> loss;
  std::unique_ptr<tune::RolloutProblem> problem;
  explicit DeathsOnDay60(bool straight_through) {
    model = small_model(pop, 60, 0.01);
    model.parameters.reproduction.fill(2.0);
    model.settings.straight_through = straight_through;
    model.settings.sampled_deaths = false;
    system = std::make_unique<Epidemic>(pop, model);
    loss = std::make_unique<CountLoss>(*system, std::vector<Series>{{Count::kDeaths, {{60, 1, -1.0}}, 1.0}}, Scale::kLinear);
    std::vector<tune::BoundParameter> bound{tune::bind(epidemic_tunables(), model.parameters, "reproduction", {})};
    problem = std::make_unique<tune::RolloutProblem>(*system, *loss, 60, RolloutOptions{}, std::move(bound));
  }
};

TEST(Epidemic, GradientCrossesDaysFromWeekOneToDeathsOnDay60) {
  DeathsOnDay60 relaxed(false);
  const std::vector<double> x = relaxed.problem->initial();
  std::vector<double> g(x.size());
  ASSERT_GT(relaxed.problem->value_and_gradient(x, g), 1.0);  // someone dies on day 60
  ASSERT_GT(std::abs(g[0]), 1e-8);  // d(deaths on day 60) / d(R in week 1)
  const double h = 1e-6;
  std::vector<double> xp = x, xm = x;
  xp[0] += h;
  xm[0] -= h;
  const double fd = (relaxed.problem->value(xp) - relaxed.problem->value(xm)) / (2 * h);
  EXPECT_TRUE(derivatives_agree(g[0], fd, {})) << "ad " << g[0] << " fd " << fd;

  // Straight-through (the model that is tuned): hard in value, still a non-zero gradient there.
  DeathsOnDay60 hard(true);
  std::vector<double> gh(x.size());
  hard.problem->value_and_gradient(hard.problem->initial(), gh);
  EXPECT_NE(gh[0], 0.0);
}

// The adjoint skips agents whose recent history slots are constant zeros; visiting them all must
// give the same bits (straight-through and relaxed, with waning immunity and without).
TEST(Epidemic, SkippingConstantHistoryChangesNoGradientBit) {
  const Population pop = small_population(800);
  for (int immune_days : {0, 3})
    for (bool straight_through : {true, false}) {
      const int days = 30;
      DiseaseModel model = small_model(pop, days, 0.01);
      model.settings.immune_days = immune_days;
      model.settings.straight_through = straight_through;
      Epidemic system(pop, model);
      CountLoss loss(system, made_up_series(days), Scale::kSqrt);
      Rollout rollout(system, loss, days);
      std::vector<std::vector<double>> gradients;
      for (bool skip : {true, false}) {
        system.skip_dead_history(skip);
        rollout.loss_and_gradient();
        std::vector<double> g;
        for (Array<1>* q : model.parameters.all()) g.insert(g.end(), q->adjoints().begin(), q->adjoints().end());
        gradients.push_back(g);
      }
      ASSERT_EQ(gradients[0].size(), gradients[1].size());
      int non_zero = 0;
      for (std::size_t k = 0; k < gradients[0].size(); ++k) {
        EXPECT_EQ(std::memcmp(&gradients[0][k], &gradients[1][k], sizeof(double)), 0)
            << "entry " << k << ": " << gradients[0][k] << " against " << gradients[1][k];
        non_zero += gradients[0][k] != 0.0;
      }
      EXPECT_GT(non_zero, 10);
    }
}

// Undoing recorded days gives back every state and the residual step() leaves, bit for bit:
// straight-through and relaxed, with waning immunity (an agent infected again while its earlier
// infection is still in its history) and without.
TEST(Epidemic, UndoingRecordedDaysRestoresEveryStateAndResidual) {
  const Population pop = small_population(800);
  for (int immune_days : {0, 1})
    for (bool straight_through : {true, false}) {
      const int days = 30;
      DiseaseModel model = small_model(pop, days, 0.05);
      model.settings.immune_days = immune_days;
      model.settings.straight_through = straight_through;
      Epidemic system(pop, model);
      const std::size_t n = static_cast<std::size_t>(system.state_size());
      const std::size_t r = static_cast<std::size_t>(system.residual_size());
      std::vector<std::vector<double>> states(days + 1, std::vector<double>(n));
      std::vector<std::vector<double>> residuals(days, std::vector<double>(r));
      system.initial_state(states[0]);
      for (int t = 0; t < days; ++t) system.step(t, states[static_cast<std::size_t>(t)], states[static_cast<std::size_t>(t) + 1], residuals[static_cast<std::size_t>(t)]);
      std::vector<double> work = states[0], residual(r);
      system.clear_records();
      for (int t = 0; t < days; ++t) system.step_recorded(t, work);
      ASSERT_EQ(std::memcmp(work.data(), states.back().data(), n * sizeof(double)), 0);
      long infected_again = 0;
      for (Index i = 0; i < pop.agents; ++i) {
        int ones = 0;
        for (int d = days - system.history() + 1; d <= days; ++d) ones += states.back()[system.slot(i, d)] == 1.0;
        infected_again += ones > 1;
      }
      if (immune_days == 1 && straight_through) {
        EXPECT_GT(infected_again, 0);
      }
      for (int t = days - 1; t >= 0; --t) {
        system.undo_step(t, work, residual);
        EXPECT_EQ(std::memcmp(work.data(), states[static_cast<std::size_t>(t)].data(), n * sizeof(double)), 0) << "day " << t;
        EXPECT_EQ(std::memcmp(residual.data(), residuals[static_cast<std::size_t>(t)].data(), r * sizeof(double)), 0)
            << "day " << t;
      }
      EXPECT_THROW(system.undo_step(0, work, residual), std::logic_error);
    }
}

TEST(Epidemic, StraightThroughStatesAreHard) {
  const Population pop = small_population(1000);
  DiseaseModel model = small_model(pop, 20);
  Epidemic system(pop, model);
  CountLoss loss(system, made_up_series(20), Scale::kSqrt);
  Rollout rollout(system, loss, 20);
  rollout.loss();
  int infected = 0;
  for (double v : rollout.final_state()) EXPECT_TRUE(v == 0.0 || v == 1.0 || v == std::floor(v)) << v;
  for (Index i = 0; i < pop.agents; ++i) infected += rollout.final_state()[static_cast<std::size_t>(i)] == 0.0;
  EXPECT_GT(infected, 100);
}

// The SIR model on a complete population: every infective exerts a total hazard R on the others.
struct CompleteSir {
  Population pop;
  DiseaseModel model;
  CompleteSir(Index n, double r, int days) : pop(make_complete_population(n)) {
    model.settings.days = days;
    model.settings.exposed_days = 0;
    model.settings.infectious_days = 5;
    model.settings.mean_interactions = {1.0};
    model.reset(1, 1);
    model.parameters.susceptibility.assign({1.0}, true);
    model.parameters.infectiousness.assign({1.0, 1.0}, true);
    model.parameters.profile.resize(5, true, 0.2);
    model.parameters.reproduction.fill(r);
    model.parameters.initial_infected.values()[0] = 0.002;
  }
  // Share of agents ever infected after the run.
  double final_size() {
    Epidemic system(pop, model);
    CountLoss loss(system, {}, Scale::kLinear);
    Rollout rollout(system, loss, model.settings.days);
    rollout.loss();
    double ever = 0.0;
    for (Index i = 0; i < pop.agents; ++i) ever += 1.0 - rollout.final_state()[static_cast<std::size_t>(i)];
    return ever / static_cast<double>(pop.agents);
  }
};

TEST(Epidemic, FinalSizeOnACompleteGraphApproachesTheSirFinalSizeEquation) {
  const double r0 = 2.0;
  // z = 1 - exp(-R0 z) by fixed-point iteration.
  double z = 0.5;
  for (int k = 0; k < 200; ++k) z = 1.0 - std::exp(-r0 * z);
  CompleteSir sir(20000, r0, 150);
  EXPECT_NEAR(sir.final_size(), z, 0.015) << "final-size equation gives " << z;
}

TEST(Epidemic, NothingSpreadsWithRZero) {
  CompleteSir sir(3000, 0.0, 40);
  const double seeded = sir.final_size();
  EXPECT_GT(seeded, 0.0);
  EXPECT_LT(seeded, 0.01);  // only the seeds (0.2%, drawn)
  const Population pop = small_population(3000);
  DiseaseModel model = small_model(pop, 30);
  model.parameters.reproduction.fill(0.0);
  Epidemic system(pop, model);
  std::vector<double> s0(static_cast<std::size_t>(system.state_size())), s(s0.size()), s1(s0.size());
  system.initial_state(s0);
  s = s0;
  for (int t = 0; t < 30; ++t) {
    system.step(t, s, s1, {});
    s.swap(s1);
  }
  const std::size_t n = static_cast<std::size_t>(pop.agents);
  for (std::size_t i = 0; i < n; ++i) {
    EXPECT_EQ(s[i], s0[i]);                         // x
    EXPECT_EQ(s[n + i] >= 0.0, s0[n + i] >= 0.0);  // infected or not
  }
}

TEST(Epidemic, CompletePopulationEqualsAnExplicitCompleteGraph) {
  const Index n = 300;
  CompleteSir sir(n, 2.5, 30);
  Population graph;
  graph.agents = n;
  graph.age.assign(static_cast<std::size_t>(n), 0);
  graph.layer_names = {"all"};
  EdgeList edges;
  for (std::int32_t a = 0; a < n; ++a)
    for (std::int32_t b = a + 1; b < n; ++b) edges.add(a, b, 0);
  build_contacts(graph, edges);
  sir.model.settings.layer_weight = {1.0};
  sir.model.settings.straight_through = false;
  auto loss_and_gradient = [&](const Population& pop, double weight) {
    sir.model.settings.layer_weight = {weight};
    Epidemic system(pop, sir.model);
    CountLoss loss(system, made_up_series(28), Scale::kSqrt);
    Rollout rollout(system, loss, 28);
    const double l = rollout.loss_and_gradient();
    return std::pair{l, sir.model.parameters.reproduction.adjoints()[1]};
  };
  const auto [complete_loss, complete_gradient] = loss_and_gradient(sir.pop, 1.0);
  const auto [graph_loss, graph_gradient] = loss_and_gradient(graph, 1.0 / static_cast<double>(n - 1));
  EXPECT_NEAR(complete_loss, graph_loss, 1e-9 * std::abs(graph_loss));
  EXPECT_NEAR(complete_gradient, graph_gradient, 1e-8 * std::abs(graph_gradient));
}

}  // namespace
}  // namespace simgrad::contagion
