// The spring kernel through slot entries, the device's scatter (core/slot_entries.hpp): forward,
// hand-written adjoint and derived adjoint give a Kernel's bits with the springs run backwards.
#include "sims/softbody/spring_force.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "core/rng.hpp"
#include "tests/core/slot_entries_check.hpp"

namespace simgrad::softbody {
namespace {

// A deterministic pseudo-random number in [-1, 1) for entry i of stream k.
double noise(std::uint64_t k, std::uint64_t i) { return 2.0 * uniform01(11, k, i) - 1.0; }

// Springs between random pairs of 24 nodes (a node meets several springs, in both slots).
template <int D>
void check_springs(bool actuated, double length_epsilon) {
  const Index nodes = 24, springs = 60;
  std::vector<std::int32_t> ends;
  for (Index s = 0; s < springs; ++s) {
    const auto a = static_cast<std::int32_t>(uniform01(12, 0, static_cast<std::uint64_t>(s)) * nodes);
    const auto b = static_cast<std::int32_t>((a + 1 + static_cast<Index>(uniform01(12, 1, static_cast<std::uint64_t>(s)) * (nodes - 1))) % nodes);
    ends.insert(ends.end(), {a, b});
  }
  const Incidence incidence(2, ends, nodes);
  Array<D> x(nodes, true), v(nodes, true), force(nodes, true);
  Array<1> k(springs, true), c(springs, true), rest(springs, true), act(springs, true);
  for (Index i = 0; i < nodes * D; ++i) {
    x.values()[i] = noise(1, i);
    v.values()[i] = noise(2, i);
    force.adjoints()[i] = noise(3, i);
  }
  for (Index s = 0; s < springs; ++s) {
    k.values()[s] = 100.0 * (1.5 + noise(4, s));
    c.values()[s] = 1.0 + 0.5 * noise(5, s);
    rest.values()[s] = 0.5 + 0.2 * noise(6, s);
    act.values()[s] = 0.1 * noise(7, s);
  }
  SpringForce<D> body{x.field(), v.field(), k.field(), c.field(), rest.field(), act.field(), force.field(),
                      length_epsilon, actuated};
  testing::expect_entries_match_kernel(body, incidence,
                                       {x.adjoints(), v.adjoints(), k.adjoints(), c.adjoints(), rest.adjoints(),
                                        act.adjoints()});
}

TEST(SpringForce, ThroughSlotEntriesGivesTheKernelsBits2D) { check_springs<2>(false, 0.0); }
TEST(SpringForce, ThroughSlotEntriesGivesTheKernelsBits3D) { check_springs<3>(false, 0.0); }
TEST(SpringForce, ActuatedThroughSlotEntriesGivesTheKernelsBits) { check_springs<2>(true, 1e-3); }

}  // namespace
}  // namespace simgrad::softbody
