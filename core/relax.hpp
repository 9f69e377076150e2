// Relaxations and their hard twins.
//
// Gradient tuning runs on a relaxed model: a contact force that switches on smoothly, a threshold
// that is a sigmoid, a random event whose probability receives a gradient, a maximum that is a
// smooth maximum. Each relaxation has a hard twin (`hard_*`, or the same function at zero
// temperature), and reports re-score tuned results on the hard model, because the relaxation
// changes the dynamics that were tuned. All functions are generic in the scalar.
#pragma once

#include <cmath>
#include <span>

#include "core/local_ad.hpp"
#include "core/vec.hpp"

namespace simgrad::relax {

using std::exp;
using std::log;
using std::log1p;

// Softplus with sharpness beta: log(1 + exp(beta x)) / beta, a smooth max(0, x), overflow-free.
// Below beta x = -746, exp underflows to exactly 0, so returning 0 at once gives the same bits
// (and the same zero derivative) without the two transcendental calls: most penalty contacts are
// far from their plane most of the time.
template <class S>
S softplus(const S& x, double beta) {
  const S bx = beta * x;
  if (bx > 0.0) return x + log1p(exp(-bx)) / beta;
  if (bx < -746.0) return S(0.0);
  return log1p(exp(bx)) / beta;
}

// Softplus and its derivative sigmoid(beta x) together, from one exponential (for hand-written
// adjoints); the same values as softplus() and sigmoid(beta x).
struct ValueAndSlope {
  double value;
  double slope;
};
inline ValueAndSlope softplus_with_slope(double x, double beta) {
  const double bx = beta * x;
  if (bx > 0.0) {
    const double e = std::exp(-bx);
    return {x + std::log1p(e) / beta, 1.0 / (1.0 + e)};
  }
  if (bx < -746.0) return {0.0, 0.0};
  const double e = std::exp(bx);
  return {std::log1p(e) / beta, e / (1.0 + e)};
}

// The hard twin of softplus.
template <class S>
S hard_softplus(const S& x) {
  return x > 0.0 ? x : S(0.0);
}

// Penalty contact: the normal force pushing out of a surface at signed gap `gap` (negative when
// penetrating), stiffness k, smoothed over a width 1/beta; beta <= 0 gives the hard twin.
template <class S>
S penalty_force(const S& gap, double k, double beta) {
  return beta > 0.0 ? k * softplus(-gap, beta) : k * hard_softplus(-gap);
}

// Logistic sigmoid 1 / (1 + exp(-x)), evaluated without overflow.
template <class S>
S sigmoid(const S& x) {
  if (x >= 0.0) return 1.0 / (1.0 + exp(-x));
  const S e = exp(x);
  return e / (1.0 + e);
}

// A threshold x > 0 relaxed with a temperature; temperature <= 0 gives the hard step.
template <class S>
S threshold(const S& x, double temperature) {
  if (temperature <= 0.0) return x > 0.0 ? S(1.0) : S(0.0);
  return sigmoid(x / temperature);
}

// A Bernoulli(p) sample from a uniform draw u: hard in value (1 if u < p), with the gradient of p
// passed straight through (d sample / d p = 1), so the expected sample is unbiased in value.
template <class S>
S straight_through_bernoulli(const S& p, double u) {
  const double hard = u < value_of(p) ? 1.0 : 0.0;
  return p + (hard - value_of(p));
}

// Gumbel-softmax over logits with Gumbel draws g: out_i = softmax((logit_i + g_i) / tau).
// With straight_through, out is the hard one-hot argmax in value and the soft sample in gradient.
template <class S>
void gumbel_softmax(std::span<const S> logits, std::span<const double> gumbel, double tau,
                    bool straight_through, std::span<S> out) {
  const std::size_t n = logits.size();
  std::size_t best = 0;
  double top = -INFINITY;
  for (std::size_t i = 0; i < n; ++i) {
    const double z = value_of(logits[i]) + gumbel[i];
    if (z > top) {
      top = z;
      best = i;
    }
  }
  S total = S(0.0);
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = exp((logits[i] + gumbel[i] - top) / tau);
    total = total + out[i];
  }
  for (std::size_t i = 0; i < n; ++i) {
    out[i] = out[i] / total;
    if (straight_through) out[i] = out[i] + ((i == best ? 1.0 : 0.0) - value_of(out[i]));
  }
}

// Smooth maximum t log(sum exp(x_i / t)) >= max x_i; t <= 0 gives the hard max.
template <class S>
S logsumexp_max(std::span<const S> x, double t) {
  double top = -INFINITY;
  std::size_t arg = 0;
  for (std::size_t i = 0; i < x.size(); ++i)
    if (value_of(x[i]) > top) {
      top = value_of(x[i]);
      arg = i;
    }
  if (t <= 0.0) return x[arg];
  S total = S(0.0);
  for (const S& xi : x) total = total + exp((xi - top) / t);
  return top + t * log(total);
}

// p-norm maximum (sum |x_i|^p)^(1/p) >= max |x_i| of non-negative entries; p -> inf is the hard max.
template <class S>
S pnorm_max(std::span<const S> x, double p) {
  using std::abs;
  using std::pow;
  double top = 0.0;
  for (const S& xi : x) top = std::max(top, std::abs(value_of(xi)));
  if (!std::isfinite(p)) {
    for (const S& xi : x)
      if (std::abs(value_of(xi)) == top) return abs(xi);
  }
  if (top == 0.0) return S(0.0);
  S total = S(0.0);
  for (const S& xi : x) total = total + pow(abs(xi) / top, p);
  return top * pow(total, 1.0 / p);
}

}  // namespace simgrad::relax
