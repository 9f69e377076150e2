#include "sims/control/controller.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "core/gradcheck.hpp"
#include "core/rng.hpp"

namespace simgrad::control {
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

// DiffTaichi's nn1 and nn2 written out as plain loops, each sum in index order: the controller,
// whose sums run four rows at a time, must give the same bits.
TEST(Controller, NeuralSignalsEqualDiffTaichisNetworkBitForBit) {
  NeuralShape shape;
  shape.hidden = 7;
  ControllerLayout layout = small_layout();
  layout.strength = {0.1, 0.15, 0.2, 0.05, 0.12};
  NeuralController nn(layout, shape);
  nn.initialise(4, 9, true);
  for (std::size_t i = 0; i < nn.bias1.values().size(); ++i) nn.bias1.values()[i] = 0.1 * standard_normal(6, 0, i);
  const int t = 31, n = layout.nodes, a = layout.actuators(), h = shape.hidden, n_in = nn.inputs();
  const std::vector<double> state = random_state(layout, 8);
  std::vector<double> out(static_cast<std::size_t>(layout.creatures * a));
  nn.signals(t, state, out);
  const std::size_t half = state.size() / 2;
  for (int c = 0; c < layout.creatures; ++c) {
    std::vector<double> u;
    for (int j = 0; j < shape.sine_inputs; ++j)
      u.push_back(std::sin(layout.omega * t * layout.dt + 2.0 * std::numbers::pi / shape.sine_inputs * j));
    double cx = 0.0, cy = 0.0;
    for (int j = 0; j < n; ++j) {
      cx += state[static_cast<std::size_t>(2 * (c * n + j))];
      cy += state[static_cast<std::size_t>(2 * (c * n + j) + 1)];
    }
    cx *= 1.0 / n;
    cy *= 1.0 / n;
    for (int j = 0; j < n; ++j) {
      const std::size_t at = static_cast<std::size_t>(2 * (c * n + j));
      u.push_back(0.05 * (state[at] - cx));
      u.push_back(0.05 * (state[at + 1] - cy));
      u.push_back(0.05 * state[half + at]);
      u.push_back(0.05 * state[half + at + 1]);
    }
    u.push_back(shape.goal[0] - cx);
    u.push_back(shape.goal[1] - cy);
    ASSERT_EQ(static_cast<int>(u.size()), n_in);
    std::vector<double> hidden(static_cast<std::size_t>(h));
    for (int i = 0; i < h; ++i) {
      double sum = 0.0;
      for (int k = 0; k < n_in; ++k) sum += nn.weights1.values()[(c * h + i) * n_in + k] * u[static_cast<std::size_t>(k)];
      hidden[static_cast<std::size_t>(i)] = std::tanh(sum + nn.bias1.values()[c * h + i]);
    }
    for (int o = 0; o < a; ++o) {
      double sum = 0.0;
      for (int i = 0; i < h; ++i) sum += nn.weights2.values()[(c * a + o) * h + i] * hidden[static_cast<std::size_t>(i)];
      EXPECT_EQ(out[static_cast<std::size_t>(c * a + o)],
                layout.strength[static_cast<std::size_t>(o)] * std::tanh(sum + nn.bias2.values()[c * a + o]));
    }
  }
}

}  // namespace
}  // namespace simgrad::control
