#include "sims/softbody/mass_spring_model.hpp"

#include <cmath>
#include <stdexcept>

namespace simgrad::softbody {

template <int D>
void MassSpringModel<D>::build(Index nodes, std::vector<std::int32_t> spring_ends, int steps) {
  node_count = nodes;
  settings.steps = steps;
  springs = Incidence(2, std::move(spring_ends), nodes);
  const Index n_springs = springs.elements();
  inverse_mass.resize(nodes, false);
  for (double& w : inverse_mass.values()) w = 1.0;
  stiffness.resize(n_springs, false);
  damping.resize(n_springs, false);
  rest_length.resize(n_springs, false);
  gravity.resize(1, false);
  initial_position.resize(nodes, false);
  initial_velocity.resize(nodes, false);
  set_actuators(std::vector<std::int32_t>(static_cast<std::size_t>(n_springs), -1), 0);
}

template <int D>
void MassSpringModel<D>::set_actuators(const std::vector<std::int32_t>& actuator_of_spring, int actuators) {
  if (static_cast<Index>(actuator_of_spring.size()) != spring_count())
    throw std::invalid_argument("mass-spring: one actuator index per spring expected");
  std::vector<std::int32_t> target(actuator_of_spring.size());
  for (std::size_t e = 0; e < target.size(); ++e) {
    const std::int32_t a = actuator_of_spring[e];
    if (a >= actuators) throw std::out_of_range("mass-spring: actuator index out of range");
    target[e] = a < 0 ? actuators : a;
  }
  spring_actuators = Incidence(1, std::move(target), actuators + 1);
  actuator_count = actuators;
  actuation.resize(actuators > 0 ? static_cast<Index>(settings.steps) * actuators : 0, false);
}

template <int D>
void MassSpringModel<D>::enable_adjoints(bool stiffness_, bool damping_, bool rest_length_, bool actuation_,
                                         bool gravity_, bool initial_position_, bool initial_velocity_) {
  auto toggle = [](auto& array, bool on) { array.set_differentiable(on); };
  toggle(stiffness, stiffness_);
  toggle(damping, damping_);
  toggle(rest_length, rest_length_);
  toggle(actuation, actuation_);
  toggle(gravity, gravity_);
  toggle(initial_position, initial_position_);
  toggle(initial_velocity, initial_velocity_);
}

template <int D>
MassSpringModel<D> MassSpringModel<D>::hard_twin() const {
  MassSpringModel hard = *this;
  hard.settings.penalty = settings.penalty.hard_twin();
  return hard;
}

template struct MassSpringModel<2>;
template struct MassSpringModel<3>;

MassSpringModel<2> make_difftaichi_triangle() {
  MassSpringModel<2> m;
  m.build(3, {0, 1, 1, 2, 2, 0}, 1024);
  m.settings.dt = 1e-3;
  m.settings.drag = 20.0;
  m.settings.length_epsilon = 1e-4;
  const double x0[] = {0.3, 0.5, 0.3, 0.4, 0.4, 0.4};
  std::copy(std::begin(x0), std::end(x0), m.initial_position.values().begin());
  for (double& k : m.stiffness.values()) k = 10.0;
  const double rest[] = {0.1, 0.1, 0.1 * std::sqrt(2.0)};
  std::copy(std::begin(rest), std::end(rest), m.rest_length.values().begin());
  // The wall at x = 0.4 stops motion to the right.
  ContactPlane<2> wall;
  wall.normal = {{-1.0, 0.0}};
  wall.offset = -0.4;
  wall.friction = 0.01;
  wall.model = ContactModel::kProjection;
  m.planes.push_back(wall);
  return m;
}

namespace {

// Adds a spring between two nodes of a lattice, given their coordinates, if both exist.
template <int D>
void link(std::vector<std::int32_t>& ends, const int (&n)[3], const int (&a)[3], const int (&b)[3]) {
  for (int k = 0; k < 3; ++k)
    if (a[k] < 0 || b[k] < 0 || a[k] >= n[k] || b[k] >= n[k]) return;
  auto id = [&](const int (&p)[3]) { return static_cast<std::int32_t>((p[2] * n[1] + p[1]) * n[0] + p[0]); };
  ends.push_back(id(a));
  ends.push_back(id(b));
}

// Lattice nodes joined to the neighbours at offsets with components in {-1, 0, 1} (each pair once).
//
// The spring order matters for speed, not for results' meaning. Within a row of the lattice the
// springs go offset by offset, even x before odd x, so that consecutive springs share no node:
// a node's sums then do not wait on one another (listing a node's springs together made each of
// its force and adjoint additions wait on the last), and a pair of consecutive springs never has
// one node in different slots, so the adjoint runs them in SIMD lanes (core/lanes.hpp).
template <int D>
MassSpringModel<D> make_lattice(const int (&n)[3], double spacing, const Vec<double, D>& origin, int steps) {
  std::vector<std::int32_t> ends;
  for (int z = 0; z < n[2]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int dz = 0; dz <= (D == 3 ? 1 : 0); ++dz)
        for (int dy = (dz == 0 ? 0 : -1); dy <= 1; ++dy)
          for (int dx = (dz == 0 && dy == 0 ? 1 : -1); dx <= 1; ++dx)
            for (int parity = 0; parity < 2; ++parity)
              for (int x = parity; x < n[0]; x += 2) {
                const int a[3] = {x, y, z};
                const int b[3] = {x + dx, y + dy, z + dz};
                link<D>(ends, n, a, b);
              }
  MassSpringModel<D> m;
  const Index nodes = static_cast<Index>(n[0]) * n[1] * n[2];
  m.build(nodes, std::move(ends), steps);
  auto x0 = m.initial_position.values();
  for (int z = 0; z < n[2]; ++z)
    for (int y = 0; y < n[1]; ++y)
      for (int x = 0; x < n[0]; ++x) {
        const Index i = (static_cast<Index>(z) * n[1] + y) * n[0] + x;
        const int p[3] = {x, y, z};
        for (int k = 0; k < D; ++k) x0[i * D + k] = origin[k] + spacing * p[k];
      }
  // Rest lengths from the initial shape.
  for (Index e = 0; e < m.spring_count(); ++e) {
    double d2 = 0.0;
    for (int k = 0; k < D; ++k) {
      const double d = x0[m.springs.node(e, 1) * D + k] - x0[m.springs.node(e, 0) * D + k];
      d2 += d * d;
    }
    m.rest_length.values()[e] = std::sqrt(d2);
  }
  return m;
}

}  // namespace

MassSpringModel<3> make_jelly_block(int nx, int ny, int nz, double spacing, Vec<double, 3> origin, int steps) {
  const int n[3] = {nx, ny, nz};
  return make_lattice<3>(n, spacing, origin, steps);
}

MassSpringModel<2> make_lattice_2d(int nx, int ny, double spacing, Vec<double, 2> origin, int steps) {
  const int n[3] = {nx, ny, 1};
  return make_lattice<2>(n, spacing, origin, steps);
}

}  // namespace simgrad::softbody
