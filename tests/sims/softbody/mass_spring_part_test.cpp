// The mass-spring model split over processes: each part runs its own nodes, copies its ghosts'
// positions and velocities and their forces' adjoints, and ends with the whole model's loss,
// gravity gradient, own nodes' states and gradients and own springs' gradients, bit for bit.
// Processes are threads here (tests/core/threaded_subdomain.hpp).
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/rollout.hpp"
#include "sims/softbody/losses.hpp"
#include "sims/softbody/mass_spring.hpp"
#include "sims/softbody/mass_spring_part.hpp"
#include "tests/core/threaded_subdomain.hpp"

namespace simgrad::softbody {
namespace {

constexpr int kSteps = 60;
constexpr int kStride = 15;

// What one process ends with: the loss, gravity's gradient, and its part's per-node and
// per-spring values as the whole model numbers them.
struct Evaluation {
  double loss = 0.0;
  std::vector<double> gravity;
  std::vector<std::vector<double>> node_rows;    // [whole node] final position, velocity, initial-state gradients
  std::vector<std::vector<double>> spring_rows;  // [whole spring] stiffness, damping, rest length gradients
};

// A falling 2D lattice of 48 x 48 nodes (five blocks of nodes) with a soft ground and a
// time-of-impact wall, or a 3D block of 14 x 14 x 12.
template <int D>
MassSpringModel<D> falling_body() {
  MassSpringModel<D> m;
  if constexpr (D == 2) m = make_lattice_2d(48, 48, 0.02, {{0.0, 0.002}}, kSteps);
  else m = make_jelly_block(14, 14, 12, 0.02, {{0.0, 0.0, 0.002}}, kSteps);
  m.settings.dt = 5e-4;
  m.settings.drag = 0.5;
  for (double& k : m.stiffness.values()) k = 400.0;
  for (double& c : m.damping.values()) c = 0.3;
  for (std::size_t k = 0; k < m.inverse_mass.values().size(); ++k) m.inverse_mass.values()[k] = 80.0 + (k % 7);
  m.gravity.values()[D - 1] = -9.8;
  for (std::size_t i = 0; i < m.initial_velocity.values().size(); i += D) m.initial_velocity.values()[i] = 0.3;
  ContactPlane<D> ground;
  ground.normal = Vec<double, D>::zero();
  ground.normal[D - 1] = 1.0;
  ground.friction = 0.4;
  m.planes.push_back(ground);
  m.settings.penalty = {2e3, 2e3, 0.05};
  if constexpr (D == 2) {
    ContactPlane<2> wall;  // the right side reaches it within the run
    wall.normal = {{-1.0, 0.0}};
    wall.offset = -0.945;
    wall.model = ContactModel::kTimeOfImpact;
    m.planes.push_back(wall);
  }
  m.enable_adjoints(true, true, true, false, true, true, true);
  return m;
}

// Reference positions: the initial ones, shifted a little per frame, for the given nodes.
template <int D>
std::vector<double> reference_of(const MassSpringModel<D>& whole, const std::vector<std::int64_t>& nodes) {
  std::vector<double> reference;
  for (int f = 0; f <= kSteps / kStride; ++f)
    for (const std::int64_t n : nodes)
      for (int c = 0; c < D; ++c)
        reference.push_back(whole.initial_position.values()[static_cast<std::size_t>(n * D + c)] - 0.002 * f * (c + 1));
  return reference;
}

// Every node, or every seventh as markers.
std::vector<std::int64_t> marker_nodes(Index nodes, bool every_node) {
  std::vector<std::int64_t> markers;
  for (Index n = 0; n < nodes; n += every_node ? 1 : 7) markers.push_back(n);
  return markers;
}

// Runs the loss and gradient of a part (a whole model is the part of one process with no
// subdomain) and records what it ends with.
template <int D>
Evaluation evaluate(const MassSpringModel<D>& whole, MassSpringPart<D>& part, const Subdomain* subdomain,
                    bool every_node, const char* checkpoint) {
  const std::vector<std::int64_t> markers = marker_nodes(whole.node_count, every_node);
  std::unique_ptr<MassSpring<D>> system =
      subdomain ? std::make_unique<MassSpring<D>>(part, *subdomain) : std::make_unique<MassSpring<D>>(part.model);
  std::unique_ptr<TrajectoryMatchLoss<D>> loss;
  if (every_node && subdomain) {
    std::vector<std::int64_t> own;
    for (Index n = part.nodes.first; n < part.nodes.last; ++n) own.push_back(n);
    loss = std::make_unique<TrajectoryMatchLoss<D>>(*subdomain, part.model.node_count, kStride, reference_of(whole, own));
  } else {
    std::vector<std::int32_t> local;  // every process holds every marker
    for (const std::int64_t n : markers) local.push_back(static_cast<std::int32_t>(part.local_node(n)));
    loss = std::make_unique<TrajectoryMatchLoss<D>>(*system, local, kStride, reference_of(whole, markers));
  }
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse(checkpoint);
  Rollout rollout(*system, *loss, kSteps, options);
  Evaluation e;
  e.loss = rollout.loss_and_gradient();
  const MassSpringModel<D>& m = part.model;
  e.gravity.assign(m.gravity.adjoints().begin(), m.gravity.adjoints().end());
  const std::span<const double> state = rollout.final_state();
  e.node_rows.resize(static_cast<std::size_t>(whole.node_count));
  for (Index n = part.nodes.first; n < part.nodes.last; ++n) {
    const Index i = n - part.nodes.first;
    std::vector<double>& row = e.node_rows[static_cast<std::size_t>(n)];
    for (int c = 0; c < D; ++c)
      row.insert(row.end(), {state[D * i + c], state[D * (m.node_count + i) + c], m.initial_position.adjoints()[D * i + c],
                             m.initial_velocity.adjoints()[D * i + c]});
  }
  e.spring_rows.resize(static_cast<std::size_t>(whole.spring_count()));
  for (std::size_t k = 0; k < part.springs.size(); ++k)
    e.spring_rows[static_cast<std::size_t>(part.springs[k])] = {m.stiffness.adjoints()[k], m.damping.adjoints()[k],
                                                                m.rest_length.adjoints()[k]};
  return e;
}

// The whole model as the part of one process.
template <int D>
MassSpringPart<D> whole_part(const MassSpringModel<D>& whole) {
  MassSpringPart<D> part;
  part.model = whole;
  part.nodes = {0, whole.node_count};
  for (Index e = 0; e < whole.spring_count(); ++e) part.springs.push_back(e);
  return part;
}

// Whether every process of every split ends with the whole model's bits.
template <int D>
void expect_whole_bits(bool every_node) {
  const MassSpringModel<D> whole = falling_body<D>();
  MassSpringPart<D> one = whole_part(whole);
  const Evaluation reference = evaluate(whole, one, nullptr, every_node, "all");
  ASSERT_NE(reference.gravity[D - 1], 0.0);
  const std::vector<std::int64_t> markers = marker_nodes(whole.node_count, every_node);
  for (int processes : {1, 2, 3, 4})
    for (int threads : {1, 2}) {
      const char* checkpoint = threads == 1 ? "all" : "binomial:4";
      simgrad::testing::PartitionBoard board(processes, whole.node_count);
      std::vector<Evaluation> results(static_cast<std::size_t>(processes));
      simgrad::testing::run_processes(processes, threads, [&](int p) {
        MassSpringPart<D> part = part_of(whole, board.runs[static_cast<std::size_t>(p)],
                                         every_node ? std::span<const std::int64_t>() : std::span(markers));
        const simgrad::testing::ThreadedSubdomain subdomain(board, p, part.ghosts);
        results[static_cast<std::size_t>(p)] = evaluate(whole, part, &subdomain, every_node, checkpoint);
      });
      for (int p = 0; p < processes; ++p) {
        const Evaluation& e = results[static_cast<std::size_t>(p)];
        const std::string where = std::to_string(processes) + " processes, " + std::to_string(threads) +
                                  " threads, process " + std::to_string(p);
        EXPECT_EQ(e.loss, reference.loss) << where;
        EXPECT_EQ(e.gravity, reference.gravity) << where;
        for (std::size_t n = 0; n < e.node_rows.size(); ++n) {
          if (!e.node_rows[n].empty()) {
            ASSERT_EQ(e.node_rows[n], reference.node_rows[n]) << where << ", node " << n;
          }
        }
        for (std::size_t s = 0; s < e.spring_rows.size(); ++s) {
          if (!e.spring_rows[s].empty()) {
            ASSERT_EQ(e.spring_rows[s], reference.spring_rows[s]) << where << ", spring " << s;
          }
        }
      }
    }
}

TEST(MassSpringPart, EveryProcessEndsWithTheWholeModelsBitsWithEveryNodeAMarker) { expect_whole_bits<2>(true); }

TEST(MassSpringPart, EveryProcessEndsWithTheWholeModelsBitsWithMarkersOnEveryProcess) { expect_whole_bits<3>(false); }

// The whole model's parameter adjoints after a gradient of its every-node loss, with every
// stiffness set to 500 after the system was made (as tuning writes its parameters).
std::vector<std::vector<double>> whole_adjoints(MassSpringModel<2>& whole, const Subdomain* subdomain) {
  std::unique_ptr<MassSpringPart<2>> part;
  std::unique_ptr<MassSpring<2>> system;
  std::unique_ptr<TrajectoryMatchLoss<2>> loss;
  const std::vector<std::int64_t> every = marker_nodes(whole.node_count, true);
  if (subdomain) {
    part = std::make_unique<MassSpringPart<2>>(part_of(whole, ElementRun{subdomain->first(), subdomain->first() + subdomain->owned()}));
    system = std::make_unique<MassSpring<2>>(*part, *subdomain, &whole);
    const std::vector<std::int64_t> own(every.begin() + subdomain->first(), every.begin() + subdomain->first() + subdomain->owned());
    loss = std::make_unique<TrajectoryMatchLoss<2>>(*subdomain, part->model.node_count, kStride, reference_of(whole, own));
  } else {
    system = std::make_unique<MassSpring<2>>(whole);
    std::vector<std::int32_t> markers(every.begin(), every.end());
    loss = std::make_unique<TrajectoryMatchLoss<2>>(*system, markers, kStride, reference_of(whole, every));
  }
  whole.stiffness.fill(500.0);
  Rollout rollout(*system, *loss, kSteps, RolloutOptions{});
  rollout.loss_and_gradient();
  std::vector<std::vector<double>> adjoints;
  for (const Array<1>* a : {&whole.stiffness, &whole.damping, &whole.rest_length})
    adjoints.emplace_back(a->adjoints().begin(), a->adjoints().end());
  for (const Array<2>* a : {&whole.gravity, &whole.initial_position, &whole.initial_velocity})
    adjoints.emplace_back(a->adjoints().begin(), a->adjoints().end());
  return adjoints;
}

TEST(MassSpringPart, WithTheWholeModelBesideItEveryProcessEndsWithAllItsAdjoints) {
  MassSpringModel<2> reference_model = falling_body<2>();
  const std::vector<std::vector<double>> reference = whole_adjoints(reference_model, nullptr);
  for (int processes : {2, 3, 4}) {
    simgrad::testing::PartitionBoard board(processes, reference_model.node_count);
    std::vector<std::vector<std::vector<double>>> results(static_cast<std::size_t>(processes));
    simgrad::testing::run_processes(processes, 2, [&](int p) {
      MassSpringModel<2> whole = falling_body<2>();  // each process's own
      const ElementRun run = board.runs[static_cast<std::size_t>(p)];
      std::vector<std::int64_t> ghosts = part_of(whole, run).ghosts;
      const simgrad::testing::ThreadedSubdomain subdomain(board, p, ghosts);
      results[static_cast<std::size_t>(p)] = whole_adjoints(whole, &subdomain);
    });
    for (int p = 0; p < processes; ++p)
      for (std::size_t a = 0; a < reference.size(); ++a)
        EXPECT_EQ(results[static_cast<std::size_t>(p)][a], reference[a]) << processes << " processes, process " << p << ", array " << a;
  }
}

// Springs far too stiff for the time step in the top rows: the part that holds them goes
// non-finite, and every process raises at that step (none waits for it), the owner naming the
// whole model's node or spring, the others "on another process".
TEST(MassSpringPart, ANonFiniteValueInOnePartRaisesOnEveryProcess) {
  MassSpringModel<2> whole = falling_body<2>();
  for (Index e = 0; e < whole.spring_count(); ++e)
    if (whole.springs.node(e, 0) >= 2100) whole.stiffness.values()[static_cast<std::size_t>(e)] = 1e14;
  for (int processes : {2, 3}) {
    simgrad::testing::PartitionBoard board(processes, whole.node_count);
    std::vector<Index> elements(static_cast<std::size_t>(processes), -2);
    std::vector<int> steps(static_cast<std::size_t>(processes), -2);
    simgrad::testing::run_processes(processes, 1, [&](int p) {
      MassSpringPart<2> part = part_of(whole, board.runs[static_cast<std::size_t>(p)]);
      const simgrad::testing::ThreadedSubdomain subdomain(board, p, part.ghosts);
      MassSpring<2> system(part, subdomain);
      std::vector<std::int64_t> own;
      for (Index n = part.nodes.first; n < part.nodes.last; ++n) own.push_back(n);
      TrajectoryMatchLoss<2> loss(subdomain, part.model.node_count, kStride, reference_of(whole, own));
      Rollout rollout(system, loss, kSteps, RolloutOptions{});
      try {
        rollout.loss_and_gradient();
      } catch (const NonFiniteError& e) {
        elements[static_cast<std::size_t>(p)] = e.element();
        steps[static_cast<std::size_t>(p)] = e.step();
      }
    });
    const std::size_t last = static_cast<std::size_t>(processes - 1);
    EXPECT_GE(elements[last], 0) << processes << " processes";
    for (std::size_t p = 0; p < last; ++p) {
      EXPECT_EQ(elements[p], -1) << processes << " processes, process " << p;
      EXPECT_EQ(steps[p], steps[last]) << processes << " processes, process " << p;
    }
    EXPECT_GT(steps[last], 0);
  }
}

TEST(MassSpringPart, APartHoldsItsNodesTheirSpringsAndTheOtherEnds) {
  const MassSpringModel<2> whole = make_lattice_2d(4, 3, 1.0, {{0.0, 0.0}}, 10);  // rows of 4 nodes
  const std::int64_t marker = 11;
  const MassSpringPart<2> part = part_of(whole, ElementRun{4, 8}, std::span(&marker, 1));  // the middle row
  for (Index e = 0; e < whole.spring_count(); ++e) {
    const bool touches = part.nodes.contains(whole.springs.node(e, 0)) || part.nodes.contains(whole.springs.node(e, 1));
    EXPECT_EQ(std::count(part.springs.begin(), part.springs.end(), e), touches ? 1 : 0) << e;
  }
  EXPECT_TRUE(std::is_sorted(part.springs.begin(), part.springs.end()));
  EXPECT_EQ(part.ghosts, (std::vector<std::int64_t>{0, 1, 2, 3, 8, 9, 10, 11}));
  EXPECT_EQ(part.model.node_count, 12);
  EXPECT_EQ(part.local_node(5), 1);
  EXPECT_EQ(part.local_node(9), 4 + 5);
  for (std::size_t k = 0; k < part.springs.size(); ++k)
    for (int s = 0; s < 2; ++s) {
      const Index local = part.model.springs.node(static_cast<Index>(k), s);
      const Index whole_node = whole.springs.node(part.springs[k], s);
      EXPECT_EQ(part.local_node(whole_node), local);
      for (int c = 0; c < 2; ++c)
        EXPECT_EQ(part.model.initial_position.values()[2 * local + c], whole.initial_position.values()[2 * whole_node + c]);
    }
}

TEST(MassSpringPart, AModelWithActuatorsIsRefused) {
  MassSpringModel<2> whole = make_lattice_2d(4, 3, 1.0, {{0.0, 0.0}}, 10);
  whole.set_actuators(std::vector<std::int32_t>(static_cast<std::size_t>(whole.spring_count()), 0), 1);
  EXPECT_THROW(part_of(whole, ElementRun{0, 4}), std::invalid_argument);
}

}  // namespace
}  // namespace simgrad::softbody
