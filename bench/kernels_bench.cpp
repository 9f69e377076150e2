// Google Benchmark micro-benchmarks of the engine's pieces: the spring kernel's forward pass and
// its hand-written and derived adjoints against a plain loop, and the local tape.
//   build/simgrad_bench --benchmark_filter=Spring
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "core/kernel.hpp"
#include "core/parallel.hpp"
#include "sims/softbody/mass_spring_model.hpp"
#include "sims/softbody/spring_force.hpp"

namespace simgrad {
namespace {

struct SpringFixture {
  softbody::MassSpringModel<3> model;
  Array<3> x, v, force;
  Kernel kernel;

  explicit SpringFixture(int side)
      : model(softbody::make_jelly_block(side, side, side, 0.02, {{0.0, 0.0, 0.0}}, 1)),
        kernel("spring_forces", &model.springs) {
    x.resize(model.node_count, true);
    v.resize(model.node_count, true);
    force.resize(model.node_count, true);
    std::copy(model.initial_position.values().begin(), model.initial_position.values().end(), x.values().begin());
    for (Index i = 0; i < 3 * model.node_count; ++i) {
      x.values()[i] *= 1.0 + 0.01 * std::sin(i);
      v.values()[i] = std::cos(0.3 * i);
      force.adjoints()[i] = std::sin(0.7 * i);
    }
    for (double& k : model.stiffness.values()) k = 1e3;
    for (double& c : model.damping.values()) c = 0.1;
    model.enable_adjoints(true, true, true, false, false, false, false);
  }
  softbody::SpringForce<3> body() {
    softbody::SpringForce<3> b;
    b.x = x.field();
    b.v = v.field();
    b.stiffness = model.stiffness.field();
    b.damping = model.damping.field();
    b.rest_length = model.rest_length.field();
    b.node_force = force.field();
    return b;
  }
};

// Times `pass(kernel, body)` on one thread, per spring.
template <class Pass>
void time_spring_kernel(benchmark::State& state, const Pass& pass) {
  set_thread_count(1);
  SpringFixture f(static_cast<int>(state.range(0)));
  const auto body = f.body();
  for (auto _ : state) pass(f.kernel, body);
  state.SetItemsProcessed(state.iterations() * f.model.spring_count());
}

void BM_SpringForward(benchmark::State& state) {
  time_spring_kernel(state, [](Kernel& k, const auto& body) { k.forward(body); });
}

void BM_SpringHandAdjoint(benchmark::State& state) {
  time_spring_kernel(state, [](Kernel& k, const auto& body) { k.adjoint(body); });
}

void BM_SpringDerivedAdjoint(benchmark::State& state) {
  time_spring_kernel(state, [](Kernel& k, const auto& body) { k.derived_adjoint(body); });
}

// The same spring forces as a plain loop with a scatter-add.
void BM_SpringPlainLoop(benchmark::State& state) {
  SpringFixture f(static_cast<int>(state.range(0)));
  const Index m = f.model.spring_count();
  const double* x = f.x.values().data();
  const double* v = f.v.values().data();
  const double* k = f.model.stiffness.values().data();
  const double* c = f.model.damping.values().data();
  const double* rest = f.model.rest_length.values().data();
  double* out = f.force.values().data();
  for (auto _ : state) {
    std::fill(out, out + 3 * f.model.node_count, 0.0);
    for (Index s = 0; s < m; ++s) {
      const Index a = f.model.springs.node(s, 0), b = f.model.springs.node(s, 1);
      double d[3], dv[3];
      for (int i = 0; i < 3; ++i) {
        d[i] = x[3 * b + i] - x[3 * a + i];
        dv[i] = v[3 * b + i] - v[3 * a + i];
      }
      const double length = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      const double inv = 1.0 / length;
      const double speed = (dv[0] * d[0] + dv[1] * d[1] + dv[2] * d[2]) * inv;
      const double tension = k[s] * (length - rest[s]) + c[s] * speed;
      for (int i = 0; i < 3; ++i) {
        out[3 * a + i] += tension * inv * d[i];
        out[3 * b + i] -= tension * inv * d[i];
      }
    }
    benchmark::DoNotOptimize(out);
  }
  state.SetItemsProcessed(state.iterations() * m);
}

// The spring adjoint as a plain loop (no engine), with the compact form
// g_d = alpha u + beta dv + gamma g: what a hand-written adjoint can cost at best.
void BM_SpringPlainAdjointLoop(benchmark::State& state) {
  SpringFixture f(static_cast<int>(state.range(0)));
  const Index m = f.model.spring_count();
  const double* x = f.x.values().data();
  const double* v = f.v.values().data();
  const double* k = f.model.stiffness.values().data();
  const double* c = f.model.damping.values().data();
  const double* rest = f.model.rest_length.values().data();
  const double* gf = f.force.adjoints().data();
  double* gx = f.x.adjoints().data();
  double* gv = f.v.adjoints().data();
  double* gk = f.model.stiffness.adjoints().data();
  double* gc = f.model.damping.adjoints().data();
  double* gl = f.model.rest_length.adjoints().data();
  for (auto _ : state) {
    for (Index s = 0; s < m; ++s) {
      const Index a = f.model.springs.node(s, 0), b = f.model.springs.node(s, 1);
      double d[3], dv[3], g[3];
      for (int i = 0; i < 3; ++i) {
        d[i] = x[3 * b + i] - x[3 * a + i];
        dv[i] = v[3 * b + i] - v[3 * a + i];
        g[i] = gf[3 * a + i] - gf[3 * b + i];
      }
      const double r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      const double inv = 1.0 / r;
      const double u[3] = {d[0] * inv, d[1] * inv, d[2] * inv};
      const double speed = dv[0] * u[0] + dv[1] * u[1] + dv[2] * u[2];
      const double tension = k[s] * (r - rest[s]) + c[s] * speed;
      const double gt = g[0] * u[0] + g[1] * u[1] + g[2] * u[2];
      const double alpha = gt * (k[s] - (c[s] * speed + tension) * inv);
      const double beta = gt * c[s] * inv;
      const double gamma = tension * inv;
      for (int i = 0; i < 3; ++i) {
        const double gd = alpha * u[i] + beta * dv[i] + gamma * g[i];
        const double gdv = c[s] * gt * u[i];
        gx[3 * b + i] += gd;
        gx[3 * a + i] -= gd;
        gv[3 * b + i] += gdv;
        gv[3 * a + i] -= gdv;
      }
      gk[s] += gt * (r - rest[s]);
      gc[s] += gt * speed;
      gl[s] -= k[s] * gt;
    }
    benchmark::DoNotOptimize(gx);
  }
  state.SetItemsProcessed(state.iterations() * m);
}

// One multiply-add chain of 64 operations on the local tape, recorded and swept.
void BM_LocalTapeRecordAndSweep(benchmark::State& state) {
  for (auto _ : state) {
    ad::LocalTape& tape = ad::thread_tape();
    tape.reset();
    ad::Var a = ad::Var::input(1.0001), b = ad::Var::input(0.9999);
    for (int i = 0; i < 32; ++i) a = a * b + 0.5;
    tape.clear_adjoints();
    tape.adjoint(a.i) = 1.0;
    tape.sweep();
    benchmark::DoNotOptimize(tape.adjoint(b.i));
  }
  state.SetItemsProcessed(state.iterations() * 64);
}

BENCHMARK(BM_SpringForward)->Arg(10)->Arg(20);
BENCHMARK(BM_SpringHandAdjoint)->Arg(10)->Arg(20);
BENCHMARK(BM_SpringDerivedAdjoint)->Arg(10)->Arg(20);
BENCHMARK(BM_SpringPlainLoop)->Arg(10)->Arg(20);
BENCHMARK(BM_SpringPlainAdjointLoop)->Arg(10)->Arg(20);
BENCHMARK(BM_LocalTapeRecordAndSweep);

}  // namespace
}  // namespace simgrad

BENCHMARK_MAIN();
