// Your own simulator in simgrad: particles thrown upwards against gravity and a per-particle drag,
// the drag tuned so that every particle reaches a target height at the last step.
// docs/own_simulator.md walks through it; tests/tune/own_simulator_test.cpp compiles and runs it.
#include <span>
#include <vector>

#include "core/kernel.hpp"
#include "core/system.hpp"
#include "tune/problem.hpp"
#include "tune/tunable.hpp"

namespace own {

using namespace simgrad;

// 1. The kernel: one particle's step, written once, generic in the scalar S (double forward,
//    ad::Var when the engine derives the adjoint).
struct DragStep {
  Field<1> height, speed, drag, next_height, next_speed;
  double dt, gravity;
  template <class E>
  void operator()(E& e) const {
    const auto v = e.own(speed) + dt * (-gravity - e.own(drag) * e.own(speed));
    e.write(next_speed, v);
    e.write(next_height, e.own(height) + dt * v);  // semi-implicit Euler
  }
};

// 2. The system: state = [heights (n), speeds (n)]; the parameter (drag) lives inside it.
class Particles final : public System {
 public:
  Particles(Index n, double dt) : drag(n, true), n_(n), dt_(dt), kernel_("drag_step", n) {}
  Index state_size() const override { return 2 * n_; }
  void initial_state(std::span<double> s) override {
    for (Index i = 0; i < n_; ++i) s[i] = 0.0, s[n_ + i] = 10.0 + i;  // thrown up at 10, 11, ... m/s
  }
  void initial_state_adjoint(std::span<const double>) override {}  // s_0 has no parameters
  void step(int, std::span<const double> s, std::span<double> next, std::span<double>) override {
    kernel_.forward(body(s, next, {}, {}));
  }
  void step_adjoint(int, std::span<const double> s, std::span<const double>, std::span<const double> next_adjoint,
                    std::span<double> state_adjoint) override {
    scratch_.resize(s.size());
    kernel_.adjoint(body(s, scratch_, next_adjoint, state_adjoint));
  }
  void clear_adjoints() override { std::fill(drag.adjoints().begin(), drag.adjoints().end(), 0.0); }

  Array<1> drag;  // 1/s, per particle

 private:
  // The kernel's fields over a state and its successor (with their adjoints in the backward pass).
  DragStep body(std::span<const double> s, std::span<double> next, std::span<const double> next_adjoint,
                std::span<double> adjoint) {
    auto field = [&](const double* v, const double* a, Index first) {
      return Field<1>{const_cast<double*>(v) + first, a ? const_cast<double*>(a) + first : nullptr, n_};
    };
    const double* a = adjoint.empty() ? nullptr : adjoint.data();
    const double* na = next_adjoint.empty() ? nullptr : next_adjoint.data();
    return {field(s.data(), a, 0), field(s.data(), a, n_), drag.field(), field(next.data(), na, 0),
            field(next.data(), na, n_), dt_, 9.81};
  }
  Index n_;
  double dt_;
  Kernel kernel_;
  std::vector<double> scratch_;
};

// 3. The loss: squared distance of each particle's height from the target at the last step.
class HeightLoss final : public TrajectoryLoss {
 public:
  HeightLoss(Index n, double target) : n_(n), target_(target) {}
  bool has_term(int t, int steps) const override { return t == steps; }
  double term(int, std::span<const double> s) override {
    double sum = 0.0;
    for (Index i = 0; i < n_; ++i) sum += (s[i] - target_) * (s[i] - target_);
    return sum;
  }
  void term_adjoint(int, std::span<const double> s, double seed, std::span<double> adjoint) override {
    for (Index i = 0; i < n_; ++i) adjoint[i] += seed * 2.0 * (s[i] - target_);
  }

 private:
  Index n_;
  double target_;
};

// 4. The parameters: the tunables table declares the drag once (name, unit, what an entry
//    belongs to, where its values and adjoints live); tune::bind maps the tuner's values onto it
//    and brings the gradient back.
const tune::TunableTable<Particles>& particle_tunables() {
  static const tune::TunableTable<Particles> table = {
      {{"drag", "1/s", "particle", "drag per unit speed", tune::TunableDefault::number(0.5)},
       [](Particles& p) { return tune::array_storage(p.drag); }}};
  return table;
}

tune::BoundParameter bind_drag(Particles& p) {
  for (double& c : p.drag.values()) c = 0.5;
  return tune::bind(particle_tunables(), p, "drag", {.lower = 0.0, .upper = 5.0});
}

}  // namespace own
