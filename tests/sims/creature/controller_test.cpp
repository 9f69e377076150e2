#include "sims/creature/controller.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rng.hpp"

namespace simgrad::creature {
namespace {

ControllerLayout small_layout() {
  ControllerLayout layout;
  layout.creatures = 2;
  layout.nodes = 3;
  layout.strength = {0.1, 0.15};
  return layout;
}

// A random body state of the layout's creatures: positions near 0.2, velocities of order 1.
std::vector<double> random_state(const ControllerLayout& layout, std::uint64_t seed) {
  std::vector<double> s(static_cast<std::size_t>(4 * layout.creatures * layout.nodes));
  for (std::size_t i = 0; i < s.size(); ++i) s[i] = (i < s.size() / 2 ? 0.2 : 0.0) + 0.3 * standard_normal(seed, 0, i);
  return s;
}

// Checks r . signals against finite differences, in the controller's parameters and in the state.
void check_controller(Controller& controller, int t) {
  const ControllerLayout& layout = controller.layout();
  const std::size_t outputs = static_cast<std::size_t>(layout.creatures * layout.actuators());
  std::vector<double> r(outputs), out(outputs);
  for (std::size_t i = 0; i < outputs; ++i) r[i] = standard_normal(7, 1, i);
  std::vector<double> state = random_state(layout, 3);
  auto objective = [&]() {
    controller.signals(t, state, out);
    double f = 0.0;
    for (std::size_t i = 0; i < outputs; ++i) f += r[i] * out[i];
    return f;
  };
  // Parameters, flattened.
  std::vector<double> x, g;
  for (auto& [name, array] : controller.parameters()) x.insert(x.end(), array->values().begin(), array->values().end());
  auto assign = [&](std::span<const double> p) {
    std::size_t k = 0;
    for (auto& [name, array] : controller.parameters())
      for (double& v : array->values()) v = p[k++];
  };
  controller.clear_adjoints();
  std::vector<double> state_adjoint(state.size(), 0.0);
  controller.signals_adjoint(t, state, r, state_adjoint);
  for (auto& [name, array] : controller.parameters()) g.insert(g.end(), array->adjoints().begin(), array->adjoints().end());
  GradCheckOptions options;
  options.rtol = 1e-6;
  options.atol = 1e-9;
  const std::vector<double> x0 = x;
  GradCheckReport report = check_gradient([&](std::span<const double> p) { assign(p); return objective(); }, x, g, options);
  assign(x0);
  EXPECT_TRUE(report.ok);
  for (const auto& c : report.checks)
    if (!c.ok) ADD_FAILURE() << c.label << " ad " << c.ad << " fd " << c.fd;
  const std::vector<double> s0 = state;
  report = check_gradient([&](std::span<const double> s) { std::copy(s.begin(), s.end(), state.begin()); return objective(); },
                          s0, state_adjoint, options);
  state = s0;
  EXPECT_TRUE(report.ok);
  for (const auto& c : report.checks)
    if (!c.ok) ADD_FAILURE() << "state " << c.label << " ad " << c.ad << " fd " << c.fd;
}

TEST(Controller, NeuralAdjointMatchesFiniteDifferences) {
  NeuralShape shape;
  shape.hidden = 5;
  NeuralController nn(small_layout(), shape);
  nn.initialise(11, 4, true);
  for (std::size_t i = 0; i < nn.bias1.values().size(); ++i) nn.bias1.values()[i] = 0.1 * standard_normal(5, 0, i);
  for (std::size_t i = 0; i < nn.bias2.values().size(); ++i) nn.bias2.values()[i] = 0.1 * standard_normal(5, 1, i);
  EXPECT_EQ(nn.inputs(), 10 + 4 * 3 + 2);
  check_controller(nn, 17);
}

TEST(Controller, SineBankAdjointMatchesFiniteDifferences) {
  SineBank bank(small_layout());
  for (std::size_t i = 0; i < bank.bias.values().size(); ++i) bank.bias.values()[i] = 0.2 * standard_normal(9, 0, i);
  check_controller(bank, 23);
}

// DiffTaichi's network: sine clocks at omega t dt + 2 pi j / 10, and tanh outputs times strength.
TEST(Controller, NeuralOutputsAreBoundedByTheStrength) {
  NeuralController nn(small_layout());
  nn.initialise(1, 4);
  std::vector<double> state = random_state(nn.layout(), 2), out(4);
  for (double& w : nn.bias2.values()) w = 50.0;  // saturated
  nn.signals(0, state, out);
  EXPECT_NEAR(out[0], 0.1, 1e-12);
  EXPECT_NEAR(out[1], 0.15, 1e-12);
  // The same weights for every creature unless asked otherwise.
  for (int k = 0; k < 32 * nn.inputs(); ++k)
    ASSERT_EQ(nn.weights1.values()[k], nn.weights1.values()[32 * nn.inputs() + k]);
}

}  // namespace
}  // namespace simgrad::creature
