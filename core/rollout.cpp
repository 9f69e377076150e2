#include "core/rollout.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/diagnostics.hpp"
#include "core/parallel.hpp"
#include "core/process_split.hpp"

namespace simgrad {

// A fixed set of state buffers handed out and returned in LIFO order.
class Rollout::StatePool {
 public:
  StatePool(std::size_t count, Index n) : n_(n), storage_(count * static_cast<std::size_t>(n)) {
    for (std::size_t i = count; i-- > 0;) free_.push_back(i);
  }
  std::span<double> acquire() {
    if (free_.empty()) throw std::logic_error("rollout: checkpoint pool exhausted");
    const std::size_t i = free_.back();
    free_.pop_back();
    in_use_ = std::max(in_use_, static_cast<long>(capacity() - free_.size()));
    return {storage_.data() + i * n_, static_cast<std::size_t>(n_)};
  }
  void release(std::span<double> s) {
    free_.push_back(static_cast<std::size_t>((s.data() - storage_.data()) / n_));
  }
  std::size_t capacity() const { return storage_.size() / static_cast<std::size_t>(n_); }
  Index slot_size() const { return n_; }
  long peak() const { return in_use_; }
  // Returns every slot to the pool.
  void reset() {
    free_.clear();
    for (std::size_t i = capacity(); i-- > 0;) free_.push_back(i);
    in_use_ = 0;
  }

 private:
  Index n_;
  Buffer storage_;
  std::vector<std::size_t> free_;
  long in_use_ = 0;
};

Rollout::~Rollout() = default;

Rollout::Rollout(System& system, TrajectoryLoss& loss, int steps, RolloutOptions options)
    : system_(system), loss_(loss), steps_(steps), options_(std::move(options)), n_(system.state_size()) {
  if (steps < 1) throw std::invalid_argument("rollout: steps must be >= 1");
  // Each process would clip its part of a_t by its own part's norm.
  if (options_.clip_adjoint_norm > 0.0 && system.split())
    throw std::invalid_argument("clip_adjoint_norm: a model split over processes cannot clip its state adjoint's norm");
  final_.resize(static_cast<std::size_t>(n_));
  adjoint_.resize(static_cast<std::size_t>(n_));
  adjoint_next_.resize(static_cast<std::size_t>(n_));
}

void Rollout::run_step(int t, std::span<const double> state, std::span<double> next, std::span<double> residual) {
  try {
    system_.step(t, state, next, residual);
  } catch (const NonFiniteError& e) {
    throw e.at_step(t);
  }
  ++stats_.forward_steps;
}

void Rollout::run_recorded_step(int t, std::span<double> state) {
  try {
    system_.step_recorded(t, state);
  } catch (const NonFiniteError& e) {
    throw e.at_step(t);
  }
  ++stats_.forward_steps;
}

double Rollout::term_at(int t, std::span<const double> state) {
  if (!loss_.has_term(t, steps_)) return 0.0;
  const double v = loss_.term(t, state);
  if (!std::isfinite(v)) throw NonFiniteError("loss", 0, false, t);
  return v;
}

void Rollout::advance(int from, int to, std::span<double> state, std::span<double> scratch) {
  for (int t = from; t < to; ++t) {
    run_step(t, state, scratch, {});
    std::copy(scratch.begin(), scratch.end(), state.begin());
  }
}

double Rollout::loss() {
  stats_ = {};
  std::vector<double> a(static_cast<std::size_t>(n_)), b(static_cast<std::size_t>(n_));
  system_.initial_state(a);
  double total = 0.0;
  for (int t = 0; t < steps_; ++t) {
    if (options_.observer) options_.observer(t, a);
    total += term_at(t, a);
    run_step(t, a, b, {});
    std::swap(a, b);
  }
  if (options_.observer) options_.observer(steps_, a);
  total += term_at(steps_, a);
  final_ = a;
  stats_.stored_states = 2;
  stats_.stored_bytes = 2 * sizeof(double) * static_cast<std::size_t>(n_);
  return total;
}

// Processes step t backwards: adjoint_ holds a_{t+1} on entry and a_t on exit.
void Rollout::adjoint_step(int t, std::span<const double> state, std::span<const double> residual) {
  fill(adjoint_next_, 0.0);
  const int h = options_.truncate_horizon;
  const bool cut = h > 0 && (t + 1) % h == 0;
  if (!cut) {
    try {
      system_.step_adjoint(t, state, residual, adjoint_, adjoint_next_);
    } catch (const NonFiniteError& e) {
      throw e.at_step(t);
    }
  }
  ++stats_.adjoint_steps;
  if (loss_.has_term(t, steps_)) loss_.term_adjoint(t, state, 1.0, adjoint_next_);
  record_adjoint(t, adjoint_next_);
  std::swap(adjoint_, adjoint_next_);
}

// Checks a_t for non-finite entries, clips its norm if asked, and records the norm.
void Rollout::record_adjoint(int t, std::vector<double>& adjoint) {
  double norm = std::sqrt(sum_of_squares(adjoint));
  bool non_finite = !std::isfinite(norm);
  // Split over processes, each holds a part of a_t: they fail together, or the others would
  // wait for this one at the next exchange.
  if (const ProcessSplit* split = system_.split()) non_finite = split->any(non_finite);
  if (non_finite) {
    Index first = 0;
    while (first < n_ && std::isfinite(adjoint[first])) ++first;
    throw NonFiniteError("state adjoint", first < n_ ? first : -1, true, t);  // -1: on another process
  }
  if (options_.clip_adjoint_norm > 0.0 && norm > options_.clip_adjoint_norm) {
    const double scale = options_.clip_adjoint_norm / norm;
    for (double& g : adjoint) g *= scale;
    norm = options_.clip_adjoint_norm;
  }
  adjoint_norms_[t] = norm;
}

double Rollout::loss_and_gradient() {
  stats_ = {};
  system_.clear_adjoints();
  adjoint_norms_.assign(static_cast<std::size_t>(steps_ + 1), 0.0);
  const CheckpointPolicy& policy = options_.checkpoint;
  const int T = steps_;
  const bool binomial = policy.kind == CheckpointPolicy::Kind::kBinomial;
  // `all` for a system that records its steps: the records stand for the states, and one working
  // state goes back through them.
  const bool recorded = policy.kind == CheckpointPolicy::Kind::kAll && system_.records_steps();
  const int every = recorded ? 0 : policy.kind == CheckpointPolicy::Kind::kAll ? 1 : binomial ? 0 : policy.k;

  // A slot holds a state and, except under binomial:S, the residual of the step from it.
  const Index r = binomial ? 0 : system_.residual_size();
  auto state_of = [&](std::span<double> slot) { return slot.first(static_cast<std::size_t>(n_)); };
  auto residual_of = [&](std::span<double> slot) { return slot.subspan(static_cast<std::size_t>(n_)); };
  std::size_t stored = 0;
  if (binomial) stored = static_cast<std::size_t>(std::min(policy.k, T + 1));
  else if (recorded) stored = 1;  // the working state, stepped in place
  else stored = static_cast<std::size_t>((T + every - 1) / every) + static_cast<std::size_t>(every);
  // The pool outlives the call: tuning runs many gradients, and fresh memory would be
  // page-faulted in again every time.
  const std::size_t slots = recorded ? stored : stored + 2;  // + two scratch slots
  if (!pool_ || pool_->capacity() != slots || pool_->slot_size() != n_ + r)
    pool_ = std::make_unique<StatePool>(slots, n_ + r);
  StatePool& pool = *pool_;
  pool.reset();

  // Forward pass, keeping s_0 and (for all / every:K) every k-th state; under `all` also every
  // residual. The other states alternate between two scratch slots.
  double total = 0.0;
  std::vector<std::span<double>> kept;  // kept[i] holds the state at step i * every
  std::span<double> last;               // the last state: the working state when recorded
  if (recorded) system_.clear_records();
  {
    std::span<double> s0 = pool.acquire();
    system_.initial_state(state_of(s0));
    kept.push_back(s0);
    std::span<double> scratch_a = recorded ? std::span<double>() : pool.acquire();
    std::span<double> scratch_b = recorded ? std::span<double>() : pool.acquire();
    std::span<double> cur = s0;
    for (int t = 0; t < T; ++t) {
      if (options_.observer) options_.observer(t, state_of(cur));
      total += term_at(t, state_of(cur));
      if (recorded) {  // in place: the records keep what each step overwrites
        run_recorded_step(t, state_of(cur));
        continue;
      }
      const bool keep_next = every > 0 && (t + 1) % every == 0 && t + 1 < T;
      std::span<double> next = keep_next ? pool.acquire() : cur.data() == scratch_a.data() ? scratch_b : scratch_a;
      run_step(t, state_of(cur), state_of(next), every == 1 ? residual_of(cur) : std::span<double>());
      if (keep_next) kept.push_back(next);
      cur = next;
    }
    if (options_.observer) options_.observer(T, state_of(cur));
    total += term_at(T, state_of(cur));
    std::copy_n(cur.begin(), n_, final_.begin());
    last = cur;
    if (!recorded) {
      pool.release(scratch_b);
      pool.release(scratch_a);
    }
  }

  // a_T = d term_T / d s_T.
  std::fill(adjoint_.begin(), adjoint_.end(), 0.0);
  if (loss_.has_term(T, steps_)) loss_.term_adjoint(T, final_, 1.0, adjoint_);
  record_adjoint(T, adjoint_);

  if (recorded) {
    for (int t = T - 1; t >= 0; --t) {
      system_.undo_step(t, state_of(last), residual_of(last));
      adjoint_step(t, state_of(last), residual_of(last));
    }
    pool.release(last);
  } else if (binomial) {
    reverse_binomial(0, T, kept[0], static_cast<int>(std::min<std::size_t>(stored, static_cast<std::size_t>(T))), pool);
  } else {
    // Segments [i*every, min((i+1)*every, T)), last first. Under every:K, recompute the segment's
    // states and residuals from its checkpoint; under `all` the forward pass left them.
    std::vector<std::span<double>> segment;
    std::span<double> discard = every > 1 ? pool.acquire() : std::span<double>();
    for (int i = static_cast<int>(kept.size()) - 1; i >= 0; --i) {
      const int t0 = i * every;
      const int t1 = std::min(t0 + every, T);
      segment.assign(1, kept[static_cast<std::size_t>(i)]);
      if (every > 1) {
        for (int t = t0; t < t1; ++t) {
          std::span<double> next = t + 1 < t1 ? pool.acquire() : discard;
          run_step(t, state_of(segment.back()), state_of(next), residual_of(segment.back()));
          if (t + 1 < t1) segment.push_back(next);
        }
      }
      for (int t = t1 - 1; t >= t0; --t) {
        const std::span<double> slot = segment[static_cast<std::size_t>(t - t0)];
        adjoint_step(t, state_of(slot), residual_of(slot));
      }
      for (std::size_t k = 1; k < segment.size(); ++k) pool.release(segment[k]);
    }
    if (every > 1) pool.release(discard);
  }
  system_.initial_state_adjoint(adjoint_);
  stats_.stored_states = pool.peak();
  stats_.stored_bytes = static_cast<std::size_t>(pool.peak()) * sizeof(double) * static_cast<std::size_t>(n_ + r);
  if (recorded) stats_.stored_bytes += system_.record_bytes();
  return total;
}

// Reverses steps [t0, t1) given s_{t0} in `base`, with `states` stored states in all (base
// included). Treeverse: advance to the binomial split, store it, reverse the right part with one
// state fewer, free it, then reverse the left part.
void Rollout::reverse_binomial(int t0, int t1, std::span<double> base, int states, StatePool& pool) {
  const int n = t1 - t0;
  if (n == 1) {
    adjoint_step(t0, base, {});
    return;
  }
  if (states <= 1) {
    std::span<double> s = pool.acquire();
    std::span<double> scratch = pool.acquire();
    for (int t = t1 - 1; t >= t0; --t) {
      std::copy(base.begin(), base.end(), s.begin());
      advance(t0, t, s, scratch);
      adjoint_step(t, s, {});
    }
    pool.release(scratch);
    pool.release(s);
    return;
  }
  const int m = t0 + static_cast<int>(binomial::split(n, states));
  std::span<double> snapshot = pool.acquire();
  std::span<double> scratch = pool.acquire();
  std::copy(base.begin(), base.end(), snapshot.begin());
  advance(t0, m, snapshot, scratch);
  pool.release(scratch);
  reverse_binomial(m, t1, snapshot, states - 1, pool);
  pool.release(snapshot);
  reverse_binomial(t0, m, base, states, pool);
}

}  // namespace simgrad
