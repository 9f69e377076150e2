#include "core/kernel.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "core/gradcheck.hpp"
#include "tests/core/threaded_subdomain.hpp"

namespace simgrad {
namespace {

// A test body that uses every kind of read and write: per edge, reads both end points (slots),
// its own weight and a shared 2-vector, and writes a per-end output and an own output.
struct EdgeBody {
  Field<2> points;     // per node (gathered)
  Field<1> weight;     // per edge
  Field<2> shift;      // shared
  Field<2> end_out;    // per (edge, end)
  Field<1> own_out;    // per edge

  std::array<FieldRef, 1> gathered() const { return {points}; }

  template <class E>
  void operator()(E& e) const {
    using S = typename E::Scalar;
    using std::sin, std::sqrt;
    const auto d = e.slot(points, 1) - e.slot(points, 0) + e.shared(shift);
    const S len = sqrt(dot(d, d) + 0.1);
    const S w = e.own(weight);
    e.write_slot(end_out, 0, (w * sin(len)) * d);
    e.write_slot(end_out, 1, (w / len) * e.slot(points, 1));
    e.write(own_out, w * len * len);
  }
};

// A small graph, its fields and a scalar function of them through forward + gather.
struct Fixture {
  Incidence edges{2, {0, 1, 1, 2, 2, 0, 0, 3, 3, 2, 1, 3, 0, 2}, 4};
  Array<2> points{4, true};
  Array<1> weight{7, true};
  Array<2> shift{1, true};
  Array<2> end_out{14, true};
  Array<1> own_out{7, true};
  Array<2> node_out{4, true};
  Kernel kernel{"edge_body", &edges};

  Fixture() {
    const double p[] = {0.1, 0.2, 1.1, -0.3, 0.4, 0.9, -0.5, 0.6};
    std::copy(std::begin(p), std::end(p), points.values().begin());
    for (int e = 0; e < 7; ++e) weight.values()[e] = 0.5 + 0.1 * e;
    shift.values()[0] = 0.05;
    shift.values()[1] = -0.02;
  }
  EdgeBody body() { return {points.field(), weight.field(), shift.field(), end_out.field(), own_out.field()}; }

  // Loss = sum_n c_n . node_out_n + sum_e own_out_e^2 / 2, with node_out the gathered end outputs.
  double loss() {
    kernel.forward(body());
    gather_slots(edges, end_out.field(), node_out.field());
    double l = 0.0;
    for (int i = 0; i < 8; ++i) l += (0.3 + 0.1 * i) * node_out.values()[i];
    for (double o : own_out.values()) l += 0.5 * o * o;
    return l;
  }
  // Reverse pass of loss(), after loss() was called.
  void backward(bool derived) {
    for (auto* a : {&points, &shift, &end_out, &node_out}) std::fill(a->adjoints().begin(), a->adjoints().end(), 0.0);
    for (auto* a : {&weight, &own_out}) std::fill(a->adjoints().begin(), a->adjoints().end(), 0.0);
    for (int i = 0; i < 8; ++i) node_out.adjoints()[i] = 0.3 + 0.1 * i;
    for (int e = 0; e < 7; ++e) own_out.adjoints()[e] = own_out.values()[e];
    gather_slots_adjoint(edges, end_out.field(), node_out.field());
    if (derived) kernel.derived_adjoint(body());
    else kernel.adjoint(body());
  }
};

TEST(Kernel, DerivedAdjointMatchesFiniteDifferences) {
  Fixture fx;
  fx.loss();
  fx.backward(true);
  // Concatenate all inputs: points (8), weight (7), shift (2).
  std::vector<double> x, g;
  for (auto* a : {&fx.points, &fx.shift}) {
    x.insert(x.end(), a->values().begin(), a->values().end());
    g.insert(g.end(), a->adjoints().begin(), a->adjoints().end());
  }
  x.insert(x.end(), fx.weight.values().begin(), fx.weight.values().end());
  g.insert(g.end(), fx.weight.adjoints().begin(), fx.weight.adjoints().end());
  auto f = [&](std::span<const double> p) {
    Fixture probe;
    std::copy(p.begin(), p.begin() + 8, probe.points.values().begin());
    std::copy(p.begin() + 8, p.begin() + 10, probe.shift.values().begin());
    std::copy(p.begin() + 10, p.end(), probe.weight.values().begin());
    return probe.loss();
  };
  const GradCheckReport report = check_gradient(f, x, g);
  for (const auto& c : report.checks) EXPECT_TRUE(c.ok) << c.label << ": ad " << c.ad << " fd " << c.fd;
}

TEST(Kernel, ResultsAreIdenticalForAnyThreadCount) {
  // Many elements so that several blocks run in parallel.
  const int n = 20000;
  std::vector<std::int32_t> ends;
  for (int e = 0; e < n; ++e) {
    ends.push_back(e % 997);
    ends.push_back((e * 31 + 7) % 997);
  }
  Incidence edges(2, ends, 997);
  Array<2> points(997, true), shift(1, true), end_out(2 * n, true), node_out(997, true);
  Array<1> weight(n, true), own_out(n, true);
  for (Index i = 0; i < 2 * 997; ++i) points.values()[i] = std::sin(0.37 * i);
  for (Index e = 0; e < n; ++e) weight.values()[e] = 1.0 + std::cos(0.11 * e);
  Kernel kernel("edge_body", &edges);
  EdgeBody body{points.field(), weight.field(), shift.field(), end_out.field(), own_out.field()};
  auto run = [&](int threads) {
    set_thread_count(threads);
    kernel.forward(body);
    for (auto* a : {&points, &shift, &end_out}) std::fill(a->adjoints().begin(), a->adjoints().end(), 0.0);
    std::fill(weight.adjoints().begin(), weight.adjoints().end(), 0.0);
    for (Index k = 0; k < 4 * n; ++k) end_out.adjoints()[k] = std::sin(0.01 * k);
    for (Index e = 0; e < n; ++e) own_out.adjoints()[e] = 1.0;
    kernel.derived_adjoint(body);
    std::vector<double> all(end_out.values().begin(), end_out.values().end());
    for (auto* a : {&points, &shift}) all.insert(all.end(), a->adjoints().begin(), a->adjoints().end());
    all.insert(all.end(), weight.adjoints().begin(), weight.adjoints().end());
    return all;
  };
  const auto one = run(1);
  EXPECT_EQ(one, run(2));
  EXPECT_EQ(one, run(4));
  set_thread_count(0);
}

// A force between two nodes of a chain, scattered into both, with its hand-written adjoint.
struct PairForce {
  Field<1> x;      // per node (gathered)
  Field<1> force;  // per node (scattered)

  std::array<FieldRef, 1> gathered() const { return {x}; }
  std::array<FieldRef, 1> scattered() const { return {force}; }

  template <class E>
  void operator()(E& e) const {
    using std::sin;
    const auto d = e.slot(x, 1) - e.slot(x, 0);
    const auto f = sin(d) * d;
    e.scatter(force, 0, f);
    e.scatter(force, 1, -f);
  }
  template <class E>
  void adjoint(E& e) const {
    const double d = e.slot(x, 1) - e.slot(x, 0);
    const double g = (e.scattered_adjoint(force, 0) - e.scattered_adjoint(force, 1)) * (std::cos(d) * d + std::sin(d));
    e.add_slot(x, 1, g);
    e.add_slot(x, 0, -g);
  }
};

TEST(Kernel, BlocksAwayFromPartBoundariesRunPrivatelyWithTheSameBits) {
  // A chain listed in node order: each element joins nodes i and i + 1 or i + 2, so only the
  // blocks next to a boundary between parts touch a node of two parts, and of those only the
  // later part's deposit through entries.
  const int nodes = 20000;
  std::vector<std::int32_t> ends;
  for (int i = 0; i + 2 < nodes; ++i)
    for (int step : {1, 2}) {
      ends.push_back(i);
      ends.push_back(i + step);
    }
  Incidence chain(2, ends, nodes);
  for (int parts : {2, 3, 4}) {
    const Partition& p = chain.partition(parts);
    int flagged = 0;
    for (int part = 0; part < parts; ++part)
      for (Index b = p.first_block[part]; b < p.first_block[part + 1]; ++b) {
        bool touches = false;  // a node an earlier part touched first
        for (Index e = b * kBlockSize; e < std::min((b + 1) * kBlockSize, chain.elements()); ++e)
          for (int s = 0; s < 2; ++s) touches = touches || p.first_part[chain.node(e, s)] < part;
        EXPECT_EQ(p.block_shared[b], touches) << "block " << b << " of " << parts << " parts";
        flagged += touches;
      }
    // Only the first block after each boundary reaches back over it.
    EXPECT_EQ(flagged, parts - 1) << parts << " parts";
  }

  Array<1> x(nodes, true), force(nodes, true);
  for (Index i = 0; i < nodes; ++i) x.values()[i] = std::sin(0.37 * i) + 0.01 * i;
  Kernel kernel("pair_force", &chain);
  const PairForce body{x.field(), force.field()};
  auto run = [&](int threads) {
    set_thread_count(threads);
    kernel.forward(body);
    std::fill(x.adjoints().begin(), x.adjoints().end(), 0.0);
    for (Index i = 0; i < nodes; ++i) force.adjoints()[i] = std::cos(0.01 * i);
    kernel.adjoint(body);
    std::vector<double> all(force.values().begin(), force.values().end());
    all.insert(all.end(), x.adjoints().begin(), x.adjoints().end());
    return all;
  };
  const auto one = run(1);
  EXPECT_EQ(one, run(2));
  EXPECT_EQ(one, run(3));
  EXPECT_EQ(one, run(4));
  // And the hand-written adjoint against the derived one, which runs every block partitioned.
  std::fill(x.adjoints().begin(), x.adjoints().end(), 0.0);
  set_thread_count(4);
  kernel.derived_adjoint(body);
  for (Index i = 0; i < nodes; ++i) EXPECT_NEAR(x.adjoints()[i], one[static_cast<std::size_t>(nodes + i)], 1e-12) << i;
  set_thread_count(0);
}

// A body with a hand-written adjoint that must agree with the derived one.
struct Scale {
  Field<1> in, out;
  template <class E>
  void operator()(E& e) const {
    using std::exp;
    e.write(out, exp(e.own(in)) * e.own(in));
  }
  template <class E>
  void adjoint(E& e) const {
    const double x = e.own(in);
    e.add_own(in, e.output_adjoint(out) * std::exp(x) * (1.0 + x));
  }
};

TEST(Kernel, HandWrittenAdjointIsUsedAndAgreesWithDerived) {
  Array<1> in(3, true), out(3, true);
  in.values()[0] = 0.5;
  in.values()[1] = -1.0;
  in.values()[2] = 2.0;
  for (double& a : out.adjoints()) a = 1.5;
  Kernel k("scale", 3);
  k.adjoint(Scale{in.field(), out.field()});
  const std::vector<double> hand(in.adjoints().begin(), in.adjoints().end());
  std::fill(in.adjoints().begin(), in.adjoints().end(), 0.0);
  k.derived_adjoint(Scale{in.field(), out.field()});
  for (int i = 0; i < 3; ++i) EXPECT_NEAR(hand[i], in.adjoints()[i], 1e-14);
}

struct Blowup {
  Field<1> in, out;
  template <class E>
  void operator()(E& e) const {
    using std::log;
    e.write(out, log(e.own(in)));
  }
};

TEST(Kernel, NonFiniteValueNamesKernelAndFirstElement) {
  Array<1> in(2000, true), out(2000, true);
  for (double& x : in.values()) x = 1.0;
  in.values()[1234] = -1.0;
  in.values()[1800] = -1.0;
  Kernel k("log_kernel", 2000);
  try {
    k.forward(Blowup{in.field(), out.field()});
    FAIL() << "expected NonFiniteError";
  } catch (const NonFiniteError& e) {
    EXPECT_EQ(e.kernel(), "log_kernel");
    EXPECT_EQ(e.element(), 1234);
    EXPECT_FALSE(e.in_adjoint());
  }
}

struct Undeclared {
  Field<1> in, out;
  template <class E>
  void operator()(E& e) const {
    e.write(out, e.slot(in, 0));
  }
};

TEST(Kernel, SlotReadOfUndeclaredFieldIsAnError) {
  Incidence inc(1, {1, 0}, 2);
  Array<1> in(2, true), out(2, true);
  Kernel k("undeclared", &inc);
  EXPECT_THROW(k.derived_adjoint(Undeclared{in.field(), out.field()}), std::logic_error);
}

struct SumBody {
  Field<1> in;
  template <class E>
  typename E::Scalar operator()(E& e) const {
    return e.own(in) * e.own(in);
  }
};

TEST(Kernel, SumAndItsAdjoint) {
  Array<1> in(1500, true);
  for (Index i = 0; i < 1500; ++i) in.values()[i] = 0.001 * i;
  Kernel k("sum", 1500);
  double expected = 0.0;
  for (Index i = 0; i < 1500; ++i) expected += 1e-6 * i * i;
  EXPECT_NEAR(k.sum(SumBody{in.field()}), expected, 1e-12);
  k.sum_adjoint(SumBody{in.field()}, 2.0);
  EXPECT_DOUBLE_EQ(in.adjoints()[700], 4.0 * 0.7);
}


// out = scale x in, with `scale` a shared parameter; an element whose input is zero writes zero
// without reading it, so whole blocks add nothing to the scale's adjoint (not +0).
struct ScaledBody {
  Field<1> in, out;
  Field<1> scale;  // shared
  template <class E>
  void operator()(E& e) const {
    if (e.own(in) == 0.0) return e.write(out, typename E::Scalar(0.0));
    e.write(out, e.own(in) * e.shared(scale));
  }
};

// A kernel over each process's part of a split model sums and adds its shared adjoints as the
// whole model's kernel does, bit for bit, also above 1,024 blocks (groups of two blocks here,
// the last one partial) and with blocks that add nothing.
TEST(Kernel, SplitOverProcessesGivesTheWholeKernelsBits) {
  const Index total = 1101 * kBlockSize + 37;
  ASSERT_EQ(group_blocks(total), 2);
  auto input = [](Index i) { return i / kBlockSize % 5 == 3 ? 0.0 : std::sin(0.37 * i) * std::pow(10.0, i % 9 - 4); };
  auto run = [&](Index first, Index count, const Subdomain* split) {
    Array<1> in(count, false), out(count, true), scale(1, true);
    for (Index i = 0; i < count; ++i) in.values()[i] = input(first + i);
    scale.values()[0] = 1.5;
    for (Index i = 0; i < count; ++i) out.adjoints()[i] = std::cos(0.11 * (first + i));
    scale.adjoints()[0] = -0.0;  // kept when nothing is added
    Kernel kernel("scaled", count);
    const std::array<FieldRef, 1> shared = {scale.field()};
    if (split) kernel.split_over(*split, shared);
    const double sum = kernel.sum(SumBody{in.field()});
    kernel.derived_adjoint(ScaledBody{in.field(), out.field(), scale.field()});
    return std::array<double, 2>{sum, scale.adjoints()[0]};
  };
  const std::array<double, 2> whole = run(0, total, nullptr);
  for (int processes : {2, 3, 5}) {
    testing::PartitionBoard board(processes, total);
    std::vector<std::array<double, 2>> parts(static_cast<std::size_t>(processes));
    testing::run_processes(processes, 2, [&](int p) {
      const ElementRun r = board.runs[static_cast<std::size_t>(p)];
      const testing::ThreadedSubdomain subdomain(board, p, {});
      parts[static_cast<std::size_t>(p)] = run(r.first, r.last - r.first, &subdomain);
    });
    for (const std::array<double, 2>& part : parts) {
      EXPECT_EQ(part[0], whole[0]) << processes << " processes";
      EXPECT_EQ(part[1], whole[1]) << processes << " processes";
    }
  }
}

}  // namespace
}  // namespace simgrad
