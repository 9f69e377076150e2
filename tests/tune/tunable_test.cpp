#include "tune/tunable.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <span>
#include <vector>

namespace simgrad::tune {
namespace {

// A model of two quantities: a 2-vector per node (3 nodes), and a schedule of 2 knots per
// source (3 sources), picked by "source".
struct Toy {
  Array<2> position{3, true};
  Array<1> speed;

  Toy() { speed.assign({1, 2, 3, 4, 5, 6}, true); }
};

// A span's numbers, to compare.
std::vector<double> numbers(std::span<const double> a) { return {a.begin(), a.end()}; }

// Sets the speed's adjoints.
void set_speed_adjoints(Toy& toy, const std::vector<double>& adjoint) {
  std::copy(adjoint.begin(), adjoint.end(), toy.speed.adjoints().begin());
}

const TunableTable<Toy>& toy_table() {
  static const TunableTable<Toy> table = {
      {{"position", "m", "node", "where a node is", TunableDefault::number(0.0)}, [](Toy& t) { return array_storage(t.position); }},
      {{"speed", "m/s", "source and knot", "a source's scheduled speed", TunableDefault::number(0.0), "source"},
       [](Toy& t) { return array_storage(t.speed, 1, 2); }},
  };
  return table;
}

TEST(Tunable, EachEntryOfAnArrayOfVectorsIsItsOwnValueInEntryOrder) {
  Toy toy;
  for (std::size_t i = 0; i < 6; ++i) toy.position.values()[i] = 10.0 + static_cast<double>(i);
  const BoundParameter b = bind(toy_table(), toy, "position", {});
  EXPECT_EQ(b.parameter.initial, (std::vector<double>{10, 11, 12, 13, 14, 15}));
  EXPECT_EQ(b.parameter.unit, "m");
  b.assign(std::vector<double>{1, 2, 3, 4, 5, 6});
  EXPECT_EQ(toy.position.values()[5], 6.0);
}

TEST(Tunable, GroupsOfVectorEntriesShareTheirComponentsAndSumAdjointsInEntryOrder) {
  Toy toy;
  const BoundParameter b = bind(toy_table(), toy, "position", {.sharing = Sharing::groups, .groups = {1, 0, 1}});
  ASSERT_EQ(b.parameter.initial.size(), 4u);
  b.assign(std::vector<double>{7, 8, 9, 10});
  EXPECT_EQ(numbers(toy.position.values()),
            (std::vector<double>{9, 10, 7, 8, 9, 10}));
  std::vector<double> adjoint = {0.1, 0.2, 0.3, 0.4, 0.5, 0.6};
  std::copy(adjoint.begin(), adjoint.end(), toy.position.adjoints().begin());
  std::vector<double> g(4);
  b.gradient(g);
  EXPECT_EQ(g, (std::vector<double>{0.3, 0.4, 0.1 + 0.5, 0.2 + 0.6}));
  // A group number that no entry has would leave a value no gradient ever moves.
  EXPECT_THROW(bind(toy_table(), toy, "position", {.sharing = Sharing::groups, .groups = {0, 2, 2}}), std::invalid_argument);
  EXPECT_THROW(bind(toy_table(), toy, "position", {.sharing = Sharing::groups, .groups = {0, 1}}), std::invalid_argument);
}

TEST(Tunable, GroupMinusOneLeavesAnEntryUntuned) {
  Toy toy;
  for (std::size_t i = 0; i < 6; ++i) toy.speed.values()[i] = 10.0 + static_cast<double>(i);
  const BoundParameter b = bind(toy_table(), toy, "speed", {.sharing = Sharing::groups, .groups = {-1, 0, -1, -1, 1, 0}});
  EXPECT_EQ(b.parameter.initial, (std::vector<double>{11, 14}));
  b.assign(std::vector<double>{1, 2});
  EXPECT_EQ(numbers(toy.speed.values()), (std::vector<double>{10, 1, 12, 13, 2, 1}));
  set_speed_adjoints(toy, {0.1, 0.2, 0.3, 0.4, 0.5, 0.6});
  std::vector<double> g(2);
  b.gradient(g);
  EXPECT_EQ(g, (std::vector<double>{0.2 + 0.6, 0.5}));
  // Nothing left to tune, or a group below -1, is an error.
  EXPECT_THROW(bind(toy_table(), toy, "speed", {.sharing = Sharing::groups, .groups = {-1, -1, -1, -1, -1, -1}}),
               std::invalid_argument);
  EXPECT_THROW(bind(toy_table(), toy, "speed", {.sharing = Sharing::groups, .groups = {-2, 0, 0, 0, 0, 0}}), std::invalid_argument);
}

TEST(Tunable, PickedItemsCoverTheirEntriesOnlyAndUniformSumsThem) {
  Toy toy;
  const BoundParameter b = bind(toy_table(), toy, "speed", {.sharing = Sharing::uniform, .items = {2, 0}});
  EXPECT_EQ(b.parameter.initial, std::vector<double>{5.0});  // the first covered entry: source 2's first knot
  b.assign(std::vector<double>{-1.0});
  EXPECT_EQ(numbers(toy.speed.values()), (std::vector<double>{-1, -1, 3, 4, -1, -1}));
  set_speed_adjoints(toy, {1, 2, 4, 8, 16, 32});
  std::vector<double> g(1);
  b.gradient(g);
  EXPECT_EQ(g[0], 16.0 + 32.0 + 1.0 + 2.0);
  EXPECT_THROW(bind(toy_table(), toy, "speed", {.items = {3}}), std::invalid_argument);
  EXPECT_THROW(bind(toy_table(), toy, "position", {.items = {0}}), std::invalid_argument);
}

TEST(Tunable, LeadingEntriesAreTunedAndLaterOnesFollowTheLast) {
  Toy toy;
  const BoundParameter b = bind(toy_table(), toy, "speed", {.leading = 2});
  EXPECT_EQ(b.parameter.initial, (std::vector<double>{1, 2}));
  b.assign(std::vector<double>{7, 9});
  EXPECT_EQ(numbers(toy.speed.values()), (std::vector<double>{7, 9, 9, 9, 9, 9}));
  set_speed_adjoints(toy, {1, 1, 1, 1, 1, 1});
  std::vector<double> g(2);
  b.gradient(g);
  EXPECT_EQ(g, (std::vector<double>{1, 5}));
}

TEST(Tunable, ADefaultSharingAndAnInitialFillOfTheCoveredEntries) {
  Toy toy;
  TunableInfo one_value = toy_table()[1].info;
  one_value.sharings = {Sharing::uniform};
  auto locate = [&toy] { return array_storage(toy.speed, 1, 2); };
  EXPECT_EQ(bind_tunable(one_value, locate, {}).parameter.initial.size(), 1u);
  EXPECT_THROW(bind_tunable(one_value, locate, {.sharing = Sharing::each}), std::invalid_argument);
  fill_tunable(one_value, locate(), {.items = {1}}, 0.5);
  EXPECT_EQ(numbers(toy.speed.values()), (std::vector<double>{1, 2, 0.5, 0.5, 5, 6}));
  EXPECT_THROW(bind(toy_table(), toy, "sped", {}), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::tune
