// Slot entries, the device's scatter (core/slot_entries.hpp), run on the host: a Kernel's bits in
// any element order, misuse reported, and the device's fixed tape against the host's.
#include "core/slot_entries.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <vector>

#include "core/kernel.hpp"
#include "core/parallel.hpp"
#include "tests/core/slot_entries_check.hpp"

namespace simgrad {
namespace {

// A pull between the two ends of an edge with no hand-written adjoint (so the derived one runs):
// force w sin|d| d on end a and minus that on end b, d = b - a.
struct PullBody {
  Field<2> points;      // per node (gathered)
  Field<1> weight;      // per edge
  Field<2> node_force;  // out: per node

  std::array<FieldRef, 1> gathered() const { return {points}; }
  std::array<FieldRef, 1> scattered() const { return {node_force}; }

  template <class E>
  void operator()(E& e) const {
    using std::sin, std::sqrt;
    const auto d = e.slot(points, 1) - e.slot(points, 0);
    const auto f = (e.own(weight) * sin(sqrt(dot(d, d)))) * d;
    e.scatter(node_force, 0, f);
    e.scatter(node_force, 1, -f);
  }
};

// A body that adds to a shared parameter's adjoint, which slot entries do not offer yet.
struct SharedBody {
  Field<1> scale;  // shared
  Field<1> out;    // per element

  template <class E>
  void operator()(E& e) const {
    e.write(out, e.shared(scale) * 2.0);
  }
  template <class E>
  void adjoint(E& e) const {
    e.add_shared(scale, 2.0 * e.output_adjoint(out));
  }
};

TEST(SlotEntries, GiveTheKernelsBitsInAnyElementOrder) {
  // Edges over a few nodes, so that every node meets many edges in both slots.
  const int edges = 3000, nodes = 97;
  std::vector<std::int32_t> ends;
  for (int e = 0; e < edges; ++e) ends.insert(ends.end(), {e % nodes, (e % nodes + 1 + (e * 31) % (nodes - 1)) % nodes});
  const Incidence incidence(2, ends, nodes);
  Array<2> points(nodes, true), force(nodes, true);
  Array<1> weight(edges, true);
  for (Index i = 0; i < 2 * nodes; ++i) {
    points.values()[i] = std::sin(0.37 * i);
    force.adjoints()[i] = std::cos(0.23 * i);
  }
  for (Index e = 0; e < edges; ++e) weight.values()[e] = 1.0 + std::cos(0.11 * e);
  const PullBody body{points.field(), weight.field(), force.field()};
  for (int threads : {1, 3}) {
    set_thread_count(threads);
    testing::expect_entries_match_kernel(body, incidence, {points.adjoints(), weight.adjoints()});
  }
  set_thread_count(0);
}

TEST(SlotEntries, ReportAFieldNotRoutedThroughEntries) {
  const Incidence incidence(2, {0, 1}, 2);
  Array<2> points(2, true), force(2, true);
  Array<1> weight(1, true);
  points.values()[2] = 1.0;
  weight.values()[0] = 1.0;
  const PullBody body{points.field(), weight.field(), force.field()};
  const EntryTable none;
  EXPECT_FALSE(forward_element(body, incidence.arrays(), none, 0));
  EXPECT_FALSE(adjoint_element(body, incidence.arrays(), none, 0));
}

TEST(SlotEntries, ReportSharedAdjoints) {
  Array<1> scale(1, true), out(4, true);
  const SharedBody body{scale.field(), out.field()};
  const SlotIncidence no_slots;
  const EntryTable none;
  EXPECT_TRUE(forward_element(body, no_slots, none, 0));
  EXPECT_FALSE(adjoint_element(body, no_slots, none, 0));
  EXPECT_FALSE(derived_adjoint_element(body, no_slots, none, 0));
}

TEST(SlotEntries, GatherAddsFromZeroOrAfterTheValue) {
  // Node 0 in slots 0 (edge 0) and 3 (edge 1), node 1 in slots 1 and 2.
  const Incidence incidence(2, {0, 1, 1, 0}, 2);
  std::vector<double> entries = {1.0, 2.0, 3.0, 4.0};  // one double per slot
  const SlotEntries field{nullptr, entries.data(), 1};
  std::vector<double> nodes = {10.0, 20.0};
  gather_node(incidence.arrays(), field, nodes.data(), 0, true);
  gather_node(incidence.arrays(), field, nodes.data(), 1, false);
  EXPECT_EQ(nodes[0], 10.0 + 1.0 + 4.0);
  EXPECT_EQ(nodes[1], 2.0 + 3.0);
}

// The device's tape sweeps as the host's does, and flags an element it cannot hold.
TEST(FixedTape, SweepsAsTheLocalTapeAndFlagsOverflow) {
  std::array<ad::TapeEntry, 8> storage;
  std::array<double, 8> adjoints;
  ad::FixedTape fixed{storage.data(), adjoints.data(), 8};
  ad::LocalTape& local = ad::thread_tape();
  fixed.reset();
  local.reset();
  // y = (a * b + a) * 0.5, recorded by hand on both: a = 3, b = 4.
  for (auto* tape : {static_cast<void*>(&fixed), static_cast<void*>(&local)}) {
    auto record = [&](std::int32_t x, double dx, std::int32_t y, double dy) {
      return tape == &fixed ? fixed.push(x, dx, y, dy) : local.push(x, dx, y, dy);
    };
    const std::int32_t a = record(0, 0.0, 0, 0.0), b = record(0, 0.0, 0, 0.0);
    const std::int32_t ab = record(a, 4.0, b, 3.0);
    const std::int32_t sum = record(ab, 1.0, a, 1.0);
    record(sum, 0.5, 0, 0.0);
  }
  fixed.clear_adjoints();
  local.clear_adjoints();
  fixed.adjoint(fixed.size() - 1) = 1.0;
  local.adjoint(local.size() - 1) = 1.0;
  fixed.sweep();
  local.sweep();
  EXPECT_EQ(fixed.adjoint(1), local.adjoint(1));
  EXPECT_EQ(fixed.adjoint(1), 2.5);  // (b + 1) / 2
  EXPECT_EQ(fixed.adjoint(2), 1.5);  // a / 2
  EXPECT_FALSE(fixed.overflow);
  for (int k = 0; k < 3; ++k) fixed.leaf();
  EXPECT_TRUE(fixed.overflow);
  EXPECT_EQ(fixed.size(), 8);
}

}  // namespace
}  // namespace simgrad
