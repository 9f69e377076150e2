#include "sims/control/controller.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "core/parallel.hpp"
#include "core/rng.hpp"

namespace simgrad::control {

namespace {

// Runs body(c) for every creature; creatures touch disjoint data, so the thread count cannot
// change a result. A few creatures run on one thread, where starting the team costs more.
template <class Body>
void for_each_creature(int creatures, const Body& body) {
  constexpr int kCreaturesPerThread = 32;
  if (creatures < 2 * kCreaturesPerThread || thread_count() == 1) {
    for (int c = 0; c < creatures; ++c) body(c);
    return;
  }
  parallel_tasks(creatures, body);
}

// Dot products of kRows weight rows with one vector at once: kRows independent sums hide the
// latency of each addition (the bottleneck of one running sum), while each sum still adds its
// terms in index order, so the bits equal those of a plain loop.
constexpr int kRows = 4;
void matrix_vector(const double* w, const double* bias, const double* u, int rows, int columns, double* out) {
  int r = 0;
  for (; r + kRows <= rows; r += kRows) {
    double sum[kRows] = {};
    const double* row = w + static_cast<Index>(r) * columns;
    // The next rows are requested early: in a large batch the weights come from memory.
    const int ahead = std::min(kRows, rows - r - kRows);
    for (int k = 0; k < columns; ++k) {
      if (k % 8 == 0)
        for (int j = 0; j < ahead; ++j) __builtin_prefetch(row + static_cast<Index>(kRows + j) * columns + k);
      for (int j = 0; j < kRows; ++j) sum[j] += row[static_cast<Index>(j) * columns + k] * u[k];
    }
    for (int j = 0; j < kRows; ++j) out[r + j] = sum[j] + bias[r + j];
  }
  for (; r < rows; ++r) {
    double sum = 0.0;
    for (int k = 0; k < columns; ++k) sum += w[static_cast<Index>(r) * columns + k] * u[k];
    out[r] = sum + bias[r];
  }
}

}  // namespace

void Controller::clear_adjoints() {
  for (auto& [name, array] : parameters()) std::fill(array->adjoints().begin(), array->adjoints().end(), 0.0);
}

std::vector<tune::BoundParameter> Controller::bind(double bound) {
  std::vector<tune::BoundParameter> out;
  for (auto& [name, array] : parameters()) {
    Array<1>* a = array;
    a->set_differentiable(true);
    tune::BoundParameter b;
    b.parameter = tune::Parameter{name, std::string("1"), -bound, bound, tune::Transform::identity,
                                  std::vector<double>(a->values().begin(), a->values().end())};
    b.assign = [a](std::span<const double> x) { std::copy(x.begin(), x.end(), a->values().begin()); };
    b.gradient = [a](std::span<double> g) { std::copy(a->adjoints().begin(), a->adjoints().end(), g.begin()); };
    out.push_back(std::move(b));
  }
  return out;
}

SineBank::SineBank(ControllerLayout layout) : Controller(std::move(layout)) {
  const int a = layout_.actuators();
  const Index n = static_cast<Index>(layout_.creatures) * a;
  amplitude.resize(n, true);
  phase.resize(n, true);
  bias.resize(n, true);
  for (Index i = 0; i < n; ++i) {
    amplitude.values()[i] = 1.0;
    phase.values()[i] = 2.0 * std::numbers::pi * static_cast<double>(i % a) / a;
  }
}

void SineBank::signals(int t, std::span<const double>, std::span<double> out) {
  const int a = layout_.actuators();
  const double clock = layout_.omega * t * layout_.dt;
  for (Index i = 0, n = static_cast<Index>(layout_.creatures) * a; i < n; ++i) {
    const double z = bias.values()[i] + amplitude.values()[i] * std::sin(clock + phase.values()[i]);
    out[i] = layout_.strength[static_cast<std::size_t>(i % a)] * std::tanh(z);
  }
}

void SineBank::signals_adjoint(int t, std::span<const double>, std::span<const double> out_adjoint,
                               std::span<double>) {
  const int a = layout_.actuators();
  const double clock = layout_.omega * t * layout_.dt;
  for (Index i = 0, n = static_cast<Index>(layout_.creatures) * a; i < n; ++i) {
    const double s = std::sin(clock + phase.values()[i]);
    const double y = std::tanh(bias.values()[i] + amplitude.values()[i] * s);
    const double g = out_adjoint[i] * layout_.strength[static_cast<std::size_t>(i % a)] * (1.0 - y * y);
    if (bias.differentiable()) bias.adjoints()[i] += g;
    if (amplitude.differentiable()) amplitude.adjoints()[i] += g * s;
    if (phase.differentiable())
      phase.adjoints()[i] += g * amplitude.values()[i] * std::cos(clock + phase.values()[i]);
  }
}

std::vector<std::pair<std::string, Array<1>*>> SineBank::parameters() {
  return {{"amplitude", &amplitude}, {"phase", &phase}, {"bias", &bias}};
}

NeuralController::NeuralController(ControllerLayout layout, NeuralShape shape)
    : Controller(std::move(layout)), shape_(shape) {
  const Index c = layout_.creatures;
  const int h = shape_.hidden, a = layout_.actuators();
  weights1.resize(c * h * inputs(), true);
  bias1.resize(c * h, true);
  weights2.resize(c * a * h, true);
  bias2.resize(c * a, true);
  // Inputs and their adjoint, hidden units and their adjoint, outputs.
  stride_ = 2 * inputs() + 2 * h + a;
  scratch_.assign(static_cast<std::size_t>(c) * static_cast<std::size_t>(stride_), 0.0);
  clocks_.assign(static_cast<std::size_t>(shape_.sine_inputs), 0.0);
}

void NeuralController::initialise(std::uint64_t seed, int springs, bool distinct) {
  const int h = shape_.hidden, a = layout_.actuators(), n_in = inputs();
  const double scale1 = std::sqrt(2.0 / (h + n_in)) * 2.0;
  const double scale2 = std::sqrt(2.0 / (h + springs)) * 3.0;
  for (int c = 0; c < layout_.creatures; ++c) {
    const std::uint64_t key = distinct ? static_cast<std::uint64_t>(c) : 0;
    for (Index i = 0; i < static_cast<Index>(h) * n_in; ++i)
      weights1.values()[static_cast<Index>(c) * h * n_in + i] = scale1 * standard_normal(seed, 2 * key, i);
    for (Index i = 0; i < static_cast<Index>(a) * h; ++i)
      weights2.values()[static_cast<Index>(c) * a * h + i] = scale2 * standard_normal(seed, 2 * key + 1, i);
  }
  std::fill(bias1.values().begin(), bias1.values().end(), 0.0);
  std::fill(bias2.values().begin(), bias2.values().end(), 0.0);
}

void NeuralController::set_clocks(int t) {
  const int s = shape_.sine_inputs;
  for (int j = 0; j < s; ++j)
    clocks_[static_cast<std::size_t>(j)] = std::sin(layout_.omega * t * layout_.dt + 2.0 * std::numbers::pi / s * j);
}

void NeuralController::features(int c, std::span<const double> body_state, double* u) const {
  const int s = shape_.sine_inputs, n = layout_.nodes;
  if (n == 0) {
    std::copy(clocks_.begin(), clocks_.end(), u);
    const double* state = body_state.data() + static_cast<Index>(c) * layout_.state_stride;
    for (std::size_t k = 0; k < layout_.sensed.size(); ++k)
      u[static_cast<std::size_t>(s) + k] = layout_.sensed[k].scale * state[layout_.sensed[k].index];
    return;
  }
  const Index total_nodes = static_cast<Index>(layout_.creatures) * n;
  const double* x = body_state.data() + static_cast<Index>(c) * n * 2;
  const double* v = body_state.data() + 2 * total_nodes + static_cast<Index>(c) * n * 2;
  std::copy(clocks_.begin(), clocks_.end(), u);
  double cx = 0.0, cy = 0.0;
  for (int j = 0; j < n; ++j) {
    cx += x[2 * j];
    cy += x[2 * j + 1];
  }
  cx *= 1.0 / n;
  cy *= 1.0 / n;
  const double k = shape_.state_scale;
  for (int j = 0; j < n; ++j) {
    double* f = u + s + 4 * j;
    f[0] = k * (x[2 * j] - cx);
    f[1] = k * (x[2 * j + 1] - cy);
    f[2] = k * v[2 * j];
    f[3] = k * v[2 * j + 1];
  }
  u[s + 4 * n] = shape_.goal[0] - cx;
  u[s + 4 * n + 1] = shape_.goal[1] - cy;
}

void NeuralController::layers(int c, const double* u, double* h, double* z) const {
  const int n_h = shape_.hidden, n_in = inputs(), a = layout_.actuators();
  matrix_vector(weights1.values().data() + static_cast<Index>(c) * n_h * n_in,
                bias1.values().data() + static_cast<Index>(c) * n_h, u, n_h, n_in, h);
  for (int i = 0; i < n_h; ++i) h[i] = std::tanh(h[i]);
  matrix_vector(weights2.values().data() + static_cast<Index>(c) * a * n_h,
                bias2.values().data() + static_cast<Index>(c) * a, h, a, n_h, z);
}

void NeuralController::signals(int t, std::span<const double> body_state, std::span<double> out) {
  const int a = layout_.actuators(), n_in = inputs(), n_h = shape_.hidden;
  set_clocks(t);
  for_each_creature(layout_.creatures, [&](int c) {
    double* u = scratch_.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(stride_);
    double* h = u + 2 * n_in;
    double* z = h + 2 * n_h;
    features(c, body_state, u);
    layers(c, u, h, z);
    for (int o = 0; o < a; ++o)
      out[static_cast<std::size_t>(c * a + o)] = layout_.strength[static_cast<std::size_t>(o)] * std::tanh(z[o]);
  });
}

void NeuralController::signals_adjoint(int t, std::span<const double> body_state, std::span<const double> out_adjoint,
                                       std::span<double> state_adjoint) {
  const int a = layout_.actuators(), n_in = inputs(), n_h = shape_.hidden, n = layout_.nodes, s = shape_.sine_inputs;
  const Index total_nodes = static_cast<Index>(layout_.creatures) * n;
  set_clocks(t);
  for_each_creature(layout_.creatures, [&](int c) {
    double* u = scratch_.data() + static_cast<std::size_t>(c) * static_cast<std::size_t>(stride_);
    double* g_u = u + n_in;
    double* h = g_u + n_in;
    double* g_h = h + n_h;
    double* z = g_h + n_h;
    features(c, body_state, u);
    layers(c, u, h, z);
    const double* w1 = weights1.values().data() + static_cast<Index>(c) * n_h * n_in;
    const double* w2 = weights2.values().data() + static_cast<Index>(c) * a * n_h;
    double* gw1 = weights1.adjoints().data() + static_cast<Index>(c) * n_h * n_in;
    double* gb1 = bias1.adjoints().data() + static_cast<Index>(c) * n_h;
    double* gw2 = weights2.adjoints().data() + static_cast<Index>(c) * a * n_h;
    double* gb2 = bias2.adjoints().data() + static_cast<Index>(c) * a;
    // Output layer: out = strength tanh(z), z = W2 h + b2.
    std::fill(g_h, g_h + n_h, 0.0);
    for (int o = 0; o < a; ++o) {
      const double y = std::tanh(z[o]);
      const double g_z = out_adjoint[static_cast<std::size_t>(c * a + o)] *
                         layout_.strength[static_cast<std::size_t>(o)] * (1.0 - y * y);
      gb2[o] += g_z;
      for (int i = 0; i < n_h; ++i) {
        gw2[o * n_h + i] += g_z * h[i];
        g_h[i] += w2[o * n_h + i] * g_z;
      }
    }
    // Hidden layer: h = tanh(W1 u + b1).
    std::fill(g_u, g_u + n_in, 0.0);
    for (int i = 0; i < n_h; ++i) {
      const double g_z = g_h[i] * (1.0 - h[i] * h[i]);
      gb1[i] += g_z;
      for (int k = 0; k < n_in; ++k) {
        gw1[i * n_in + k] += g_z * u[k];
        g_u[k] += w1[i * n_in + k] * g_z;
      }
    }
    if (n == 0) {
      double* g_state = state_adjoint.data() + static_cast<Index>(c) * layout_.state_stride;
      for (std::size_t k = 0; k < layout_.sensed.size(); ++k)
        g_state[layout_.sensed[k].index] += layout_.sensed[k].scale * g_u[static_cast<std::size_t>(s) + k];
      return;
    }
    // Features: offsets from the centre and velocities, scaled, and the goal minus the centre.
    const double k = shape_.state_scale;
    double g_cx = -g_u[s + 4 * n], g_cy = -g_u[s + 4 * n + 1];
    for (int j = 0; j < n; ++j) {
      g_cx -= k * g_u[s + 4 * j];
      g_cy -= k * g_u[s + 4 * j + 1];
    }
    double* g_x = state_adjoint.data() + static_cast<Index>(c) * n * 2;
    double* g_v = state_adjoint.data() + 2 * total_nodes + static_cast<Index>(c) * n * 2;
    for (int j = 0; j < n; ++j) {
      g_x[2 * j] += k * g_u[s + 4 * j] + g_cx * (1.0 / n);
      g_x[2 * j + 1] += k * g_u[s + 4 * j + 1] + g_cy * (1.0 / n);
      g_v[2 * j] += k * g_u[s + 4 * j + 2];
      g_v[2 * j + 1] += k * g_u[s + 4 * j + 3];
    }
  });
}

std::vector<std::pair<std::string, Array<1>*>> NeuralController::parameters() {
  return {{"weights1", &weights1}, {"bias1", &bias1}, {"weights2", &weights2}, {"bias2", &bias2}};
}

}  // namespace simgrad::control
