// No allocation inside an FEM step: after a first step and adjoint step (which size the kernels'
// work space), further steps and adjoint steps of symplectic and implicit Euler, damped, with
// penalty contact and a static box, allocate nothing. Counted by replacing the global operator
// new and delete of this test binary (they forward to malloc and free, so the sanitizers still
// see matched pairs).
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <new>
#include <vector>

#include "core/parallel.hpp"
#include "sims/fem/fem.hpp"
#include "sims/fem/mesh.hpp"

namespace {

std::atomic<long> allocations{0};

void* counted_allocation(std::size_t size, std::size_t alignment) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  void* p = alignment <= alignof(std::max_align_t)
                ? std::malloc(size == 0 ? 1 : size)
                : std::aligned_alloc(alignment, (size + alignment - 1) / alignment * alignment);
  return p;
}

// Out of line so that the compiler, seeing malloc behind operator new inlined, does not pair it
// with this free and warn of a mismatch (the pairing is the replaced operators' own).
[[gnu::noinline]] void counted_release(void* p) noexcept { std::free(p); }

}  // namespace

void* operator new(std::size_t size) {
  if (void* p = counted_allocation(size, 0)) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return operator new(size); }
void* operator new(std::size_t size, std::align_val_t alignment) {
  if (void* p = counted_allocation(size, static_cast<std::size_t>(alignment))) return p;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size, std::align_val_t alignment) { return operator new(size, alignment); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_allocation(size, 0); }
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept { return counted_allocation(size, 0); }
void operator delete(void* p) noexcept { counted_release(p); }
void operator delete[](void* p) noexcept { counted_release(p); }
void operator delete(void* p, std::size_t) noexcept { counted_release(p); }
void operator delete[](void* p, std::size_t) noexcept { counted_release(p); }
void operator delete(void* p, std::align_val_t) noexcept { counted_release(p); }
void operator delete[](void* p, std::align_val_t) noexcept { counted_release(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { counted_release(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { counted_release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { counted_release(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { counted_release(p); }

namespace simgrad::fem {
namespace {

// Allocations made by `steps` steps and adjoint steps of a small damped 2D body on the ground,
// pressed against a box, after one of each to warm up.
long allocations_in_steps(FemIntegrator integrator, int steps) {
  const FemMesh<2> mesh = make_rectangle_mesh(4, 2, {{0.2, 0.1}}, {{0.0, 0.001}});
  FemModel<2> m;
  m.build(mesh.positions, mesh.elements, mesh.regions, steps + 1);
  m.set_material(2e4, 0.3, 0.01, 1000.0);
  m.settings.dt = 5e-4;
  m.settings.integrator = integrator;
  m.settings.material = MaterialModel::kNeoHookean;
  m.settings.penalty = {2e4, 2000.0, 0.05};
  m.mass_damping.values()[0] = 0.5;
  m.gravity.values()[1] = -9.8;
  m.pin(m.node_count - 1);
  ContactPlane<2> ground;
  ground.normal = {{0.0, 1.0}};
  ground.friction = 0.4;
  m.planes.push_back(ground);
  ContactBox<2> box;
  box.lo = {{0.195, -0.1}};
  box.hi = {{0.4, 0.05}};
  box.friction = 0.3;
  m.boxes.push_back(box);
  for (auto* a : {&m.youngs, &m.poisson, &m.damping, &m.mass_damping}) a->set_differentiable(true);
  m.update_masses();
  Fem<2> fem(m);
  const std::size_t n = static_cast<std::size_t>(fem.state_size());
  std::vector<double> state(n), next(n), residual(static_cast<std::size_t>(fem.residual_size()));
  std::vector<double> next_adjoint(n, 1.0), adjoint(n);
  fem.initial_state(state);
  fem.clear_adjoints();
  fem.step(0, state, next, residual);
  fem.step_adjoint(0, state, residual, next_adjoint, adjoint);
  const long before = allocations.load();
  for (int t = 1; t <= steps; ++t) {
    fem.step(t, state, next, residual);
    fem.step_adjoint(t, state, residual, next_adjoint, adjoint);
    fem.step_adjoint(t, state, {}, next_adjoint, adjoint);  // replayed (binomial checkpoints)
    state.swap(next);
  }
  return allocations.load() - before;
}

TEST(FemAllocation, TheCounterSeesAnAllocation) {
  static std::vector<double>* volatile kept = nullptr;
  const long before = allocations.load();
  kept = new std::vector<double>(8);
  delete kept;
  EXPECT_GE(allocations.load() - before, 2);
}

TEST(FemAllocation, SymplecticStepsAllocateNothing) {
  set_thread_count(1);
  EXPECT_EQ(allocations_in_steps(FemIntegrator::kSymplecticEuler, 3), 0);
}

TEST(FemAllocation, ImplicitStepsAllocateNothing) {
  set_thread_count(1);
  EXPECT_EQ(allocations_in_steps(FemIntegrator::kImplicitEuler, 3), 0);
}

}  // namespace
}  // namespace simgrad::fem
