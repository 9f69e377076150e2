// Each stage of an MPM step against central differences: the particle stress (every material,
// elastic and plastic), the grid update (walls, colliders, the relaxed ground), the
// particle-to-grid and grid-to-particle transfers; in 2D and 3D.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "sims/mpm/grid_update.hpp"
#include "sims/mpm/stress.hpp"
#include "sims/mpm/transfer.hpp"
#include "tests/sims/mpm/test_models.hpp"

namespace simgrad::mpm {
namespace {

using testing::expect_gradient;

// Arrays that a kernel reads and writes, packed as one vector of inputs for the checks.
struct Inputs {
  std::vector<Array<1>*> scalars;
  std::vector<std::pair<double*, Index>> spans;  // (values, size) of every input, in order
  std::vector<double*> adjoints;

  void add(double* values, double* adjoint, Index size) {
    spans.push_back({values, size});
    adjoints.push_back(adjoint);
  }
  std::vector<double> values() const {
    std::vector<double> x;
    for (auto [v, n] : spans) x.insert(x.end(), v, v + n);
    return x;
  }
  void set(std::span<const double> x) const {
    std::size_t k = 0;
    for (auto [v, n] : spans)
      for (Index i = 0; i < n; ++i) v[i] = x[k++];
  }
  std::vector<double> gradient() const {
    std::vector<double> g;
    for (std::size_t s = 0; s < spans.size(); ++s) g.insert(g.end(), adjoints[s], adjoints[s] + spans[s].second);
    return g;
  }
  void clear() const {
    for (std::size_t s = 0; s < spans.size(); ++s) std::fill(adjoints[s], adjoints[s] + spans[s].second, 0.0);
  }
};

// sum_k r_k out_k over outputs, with r fixed random weights, and its seeds.
double weighted(const std::vector<std::pair<double*, Index>>& outputs, const std::vector<double>& r) {
  double l = 0.0;
  std::size_t k = 0;
  for (auto [v, n] : outputs)
    for (Index i = 0; i < n; ++i) l += r[k++] * v[i];
  return l;
}

// A hand-written adjoint against the derived one, entry by entry.
void expect_same(const std::vector<double>& hand, const std::vector<double>& derived, const char* label) {
  ASSERT_EQ(hand.size(), derived.size());
  double scale = 0.0;
  for (double d : derived) scale = std::max(scale, std::abs(d));
  for (std::size_t k = 0; k < hand.size(); ++k) EXPECT_NEAR(hand[k], derived[k], 1e-12 * scale) << label << " entry " << k;
}

template <int D>
void check_stress(Material material, double stretch, bool actuated, double sharpness) {
  constexpr Index n = 3;
  std::mt19937 rng(7 + static_cast<unsigned>(material));
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Array<D * D> f(n, true), c(n, true), f_next(n, true), affine(n, true);
  Array<1> plastic(n, true), youngs(n, true), poisson(n, true), density(n, true), angle(n, true), hardening(n, true), bulk(n, true),
      volume(n, false), signal(n, true), plastic_next(n, true), mass(n, true);
  Array<D> direction(n, false);
  std::vector<Material> kinds(n, material);
  std::vector<std::int32_t> actuator(n, actuated ? 0 : -1);
  for (Index p = 0; p < n; ++p) {
    for (int i = 0; i < D; ++i)
      for (int j = 0; j < D; ++j) {
        f.values()[p * D * D + i * D + j] = (i == j ? stretch : 0.0) + 0.04 * u(rng);
        c.values()[p * D * D + i * D + j] = 0.5 * u(rng);
      }
    plastic.values()[p] = material == Material::kSnow ? 0.98 : 0.0;
    youngs.values()[p] = 100.0 * (1.2 + 0.2 * u(rng));
    poisson.values()[p] = 0.3 + 0.05 * u(rng);
    density.values()[p] = 10.0 + u(rng);
    angle.values()[p] = 30.0 + 3.0 * u(rng);
    hardening.values()[p] = 5.0 + u(rng);
    bulk.values()[p] = 80.0 + 5.0 * u(rng);
    volume.values()[p] = 0.01;
    signal.values()[p] = 0.5 * u(rng);
    for (int d = 0; d < D; ++d) direction.values()[p * D + d] = d == D - 1 ? 1.0 : 0.0;
  }
  ParticleStress<D> body;
  body.f = f.field();
  body.c = c.field();
  body.plastic = plastic.field();
  body.youngs = youngs.field();
  body.poisson = poisson.field();
  body.density = density.field();
  body.friction_angle = angle.field();
  body.hardening = hardening.field();
  body.bulk_modulus = bulk.field();
  body.volume = volume.field();
  body.signal = signal.field();
  body.direction = direction.field();
  body.f_next = f_next.field();
  body.plastic_next = plastic_next.field();
  body.affine = affine.field();
  body.mass = mass.field();
  body.material = kinds.data();
  body.actuator = actuator.data();
  body.dt = 0.01;
  body.inv_dx = 10.0;
  body.actuation_strength = 3.0;
  body.plastic_sharpness = sharpness;
  body.critical_compression = 0.025;
  body.critical_stretch = 0.0075;

  Inputs in;
  in.add(f.values().data(), f.adjoints().data(), n * D * D);
  in.add(c.values().data(), c.adjoints().data(), n * D * D);
  in.add(plastic.values().data(), plastic.adjoints().data(), n);
  for (Array<1>* a : {&youngs, &poisson, &density, &angle, &hardening, &bulk, &signal}) in.add(a->values().data(), a->adjoints().data(), n);
  const std::vector<std::pair<double*, Index>> outputs = {
      {f_next.values().data(), n * D * D}, {plastic_next.values().data(), n}, {affine.values().data(), n * D * D}, {mass.values().data(), n}};
  const std::vector<std::pair<double*, Index>> seeds = {
      {f_next.adjoints().data(), n * D * D}, {plastic_next.adjoints().data(), n}, {affine.adjoints().data(), n * D * D}, {mass.adjoints().data(), n}};
  std::vector<double> r;
  for (auto [v, k] : outputs)
    for (Index i = 0; i < k; ++i) r.push_back(u(rng));
  Kernel kernel("stress", n);
  auto loss = [&](std::span<const double> x) {
    in.set(x);
    kernel.forward(body);
    return weighted(outputs, r);
  };
  const std::vector<double> x0 = in.values();
  loss(x0);
  std::size_t k = 0;
  for (auto [a, count] : seeds)
    for (Index i = 0; i < count; ++i) a[i] = r[k++];
  in.clear();
  kernel.derived_adjoint(body);
  const std::vector<double> derived = in.gradient();
  in.clear();
  kernel.adjoint(body);
  const std::vector<double> g = in.gradient();
  expect_same(g, derived, "stress");
  const double largest = expect_gradient(loss, x0, g, "stress", 6, 1e-5, 1e-9);
  EXPECT_GT(largest, 1e-6);
}

TEST(MpmKernels, StressCorotated) {
  check_stress<2>(Material::kCorotated, 1.0, true, 0.0);
  check_stress<3>(Material::kCorotated, 1.0, true, 0.0);
}
TEST(MpmKernels, StressNeoHookean) {
  check_stress<2>(Material::kNeoHookean, 1.05, false, 0.0);
  check_stress<3>(Material::kNeoHookean, 0.95, true, 0.0);
}
TEST(MpmKernels, StressLiquid) {
  check_stress<2>(Material::kLiquid, 0.97, false, 0.0);
  check_stress<3>(Material::kLiquid, 1.02, false, 0.0);
}
// Sand compressed with shear (the return mapping projects onto the cone) and stretched (to the tip).
TEST(MpmKernels, StressSandReturnMapping) {
  check_stress<2>(Material::kSand, 0.9, false, 0.0);
  check_stress<3>(Material::kSand, 0.9, false, 0.0);
  check_stress<2>(Material::kSand, 1.1, false, 0.0);
  check_stress<2>(Material::kSand, 0.9, false, 200.0);
  check_stress<3>(Material::kSand, 0.9, false, 200.0);
  check_stress<3>(Material::kSand, 1.1, false, 0.0);
  check_stress<3>(Material::kSand, 1.0, false, 300.0);
}
// Snow stretched past its critical stretch (the clamp is active) and inside its band.
TEST(MpmKernels, StressSnowReturnMapping) {
  check_stress<2>(Material::kSnow, 1.12, false, 0.0);
  check_stress<3>(Material::kSnow, 0.88, false, 0.0);
  check_stress<2>(Material::kSnow, 1.12, false, 500.0);
}

// The grid update on every node of a small grid with walls of each kind and two colliders.
template <int D>
void check_grid_update(double sharpness) {
  MpmSettings<D> s;
  for (int d = 0; d < D; ++d) s.nodes[d] = 9;
  s.dx = 0.125;
  s.dt = 0.01;
  s.gravity[D - 1] = -9.8;
  s.bound = 2;
  s.walls[0] = {WallKind::kSticky, 0.0};
  s.walls[1] = {WallKind::kSlip, 0.0};
  s.walls[2] = {WallKind::kSeparating, 0.4};
  s.walls[3] = {WallKind::kSeparating, 0.0};
  s.colliders.push_back({ColliderShape::kSphere, Vec<double, D>::zero(), Vec<double, D>::zero(), 0.2, {WallKind::kSeparating, 0.3}});
  s.colliders.back().centre[0] = 0.55;
  s.colliders.back().centre[1] = 0.5;
  Collider<D> box;
  box.centre[0] = 0.4;
  box.centre[1] = 0.6;
  for (int d = 0; d < D; ++d) box.half_extent[d] = 0.07;
  box.wall = {WallKind::kSlip, 0.0};
  s.colliders.push_back(box);
  s.boundary_sharpness = sharpness;
  Index nodes = 1;
  for (int d = 0; d < D; ++d) nodes *= 9;
  Array<1> mass(nodes, true);
  Array<D> momentum(nodes, true), velocity(nodes, true);
  std::mt19937 rng(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  for (Index i = 0; i < nodes; ++i) {
    mass.values()[i] = 1.0 + 0.5 * u(rng);
    for (int d = 0; d < D; ++d) momentum.values()[i * D + d] = u(rng);
  }
  std::vector<double> r(static_cast<std::size_t>(nodes * D));
  for (double& x : r) x = u(rng);
  Kernel kernel("grid", nodes);
  GridUpdate<D> body{mass.field(), momentum.field(), velocity.field(), &s};
  Inputs in;
  in.add(mass.values().data(), mass.adjoints().data(), nodes);
  in.add(momentum.values().data(), momentum.adjoints().data(), nodes * D);
  auto loss = [&](std::span<const double> x) {
    in.set(x);
    kernel.forward(body);
    return weighted({{velocity.values().data(), nodes * D}}, r);
  };
  const std::vector<double> x0 = in.values();
  loss(x0);
  std::copy(r.begin(), r.end(), velocity.adjoints().begin());
  in.clear();
  kernel.adjoint(body);
  // Hard walls switch where a node's normal speed changes sign: small steps stay on one piece.
  expect_gradient(loss, x0, in.gradient(), "grid_update", 6, 1e-5, 1e-7, 1e-7);
}

TEST(MpmKernels, GridUpdateWallsAndColliders) {
  check_grid_update<2>(0.0);
  check_grid_update<3>(0.0);
  check_grid_update<2>(20.0);
}

// The particle-to-grid gather and its adjoint (the pairing's, hand-written and derived), and the
// grid-to-particle kernel with its node adjoint (the particle side hand-written and derived), on
// random particles.
template <int D>
void check_transfers() {
  constexpr Index n = 40;
  Vec<int, D> nodes;
  for (int d = 0; d < D; ++d) nodes[d] = 10;
  const double dx = 0.1;
  Index node_count = 1;
  for (int d = 0; d < D; ++d) node_count *= nodes[d];
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  Array<D> x(n, true), v(n, true), x_next(n, true), v_next(n, true);
  Array<D * D> q(n, true), c_next(n, true);
  Array<1> m(n, true), gm(node_count, true);
  Array<D> gp(node_count, true), gv(node_count, true);
  for (Index p = 0; p < n; ++p) {
    for (int d = 0; d < D; ++d) {
      x.values()[p * D + d] = 0.3 + 0.4 * u(rng);
      v.values()[p * D + d] = u(rng) - 0.5;
    }
    for (int k = 0; k < D * D; ++k) q.values()[p * D * D + k] = u(rng) - 0.5;
    m.values()[p] = 0.5 + u(rng);
  }
  for (double& g : gv.values()) g = u(rng) - 0.5;
  ParticleBins<D> bins;
  bins.resize(nodes, n);

  // Particle to grid: inputs x, v, Q, m; outputs node mass and momentum.
  {
    Inputs in;
    in.add(x.values().data(), x.adjoints().data(), n * D);
    in.add(v.values().data(), v.adjoints().data(), n * D);
    in.add(q.values().data(), q.adjoints().data(), n * D * D);
    in.add(m.values().data(), m.adjoints().data(), n);
    std::vector<double> r(static_cast<std::size_t>(node_count * (D + 1)));
    for (double& a : r) a = u(rng) - 0.5;
    auto loss = [&](std::span<const double> xs) {
      in.set(xs);
      EXPECT_EQ(bins.build(x.values().data(), 1.0 / dx), -1);
      std::fill(gm.values().begin(), gm.values().end(), 0.0);
      std::fill(gp.values().begin(), gp.values().end(), 0.0);
      particles_to_grid<D>(bins, 0, bins.box_size(), m.values().data(), v.values().data(), q.values().data(), dx, gm.values().data(),
                           gp.values().data());
      return weighted({{gm.values().data(), node_count}, {gp.values().data(), node_count * D}}, r);
    };
    const std::vector<double> x0 = in.values();
    loss(x0);
    std::copy_n(r.begin(), node_count, gm.adjoints().begin());
    std::copy(r.begin() + node_count, r.end(), gp.adjoints().begin());
    in.clear();
    Kernel pairing("pairing", n);
    const ParticleToGridPairing<D> body{x.field(), v.field(), q.field(), m.field(), gm.adjoints().data(), gp.adjoints().data(), &bins, dx};
    pairing.adjoint(body);
    const std::vector<double> hand = in.gradient();
    in.clear();
    pairing.sum_adjoint(body, 1.0);
    expect_same(hand, in.gradient(), "particles_to_grid");
    expect_gradient(loss, x0, hand, "particles_to_grid", 6);
  }
  // Grid to particle: inputs x and the grid velocities; outputs x', v', C'.
  {
    Inputs in;
    in.add(x.values().data(), x.adjoints().data(), n * D);
    in.add(gv.values().data(), gv.adjoints().data(), node_count * D);
    std::vector<double> r(static_cast<std::size_t>(n * (2 * D + D * D)));
    for (double& a : r) a = u(rng) - 0.5;
    const double dt = 0.05;
    Kernel g2p("g2p", n);
    GridToParticle<D> body{x.field(), x_next.field(), v_next.field(), c_next.field(), gv.values().data(), &bins, dx, dt};
    auto loss = [&](std::span<const double> xs) {
      in.set(xs);
      EXPECT_EQ(bins.build(x.values().data(), 1.0 / dx), -1);
      g2p.forward(body);
      return weighted({{x_next.values().data(), n * D}, {v_next.values().data(), n * D}, {c_next.values().data(), n * D * D}}, r);
    };
    const std::vector<double> x0 = in.values();
    loss(x0);
    std::copy_n(r.begin(), n * D, x_next.adjoints().begin());
    std::copy_n(r.begin() + n * D, n * D, v_next.adjoints().begin());
    std::copy(r.begin() + 2 * n * D, r.end(), c_next.adjoints().begin());
    in.clear();
    g2p.derived_adjoint(body);
    const std::vector<double> derived = in.gradient();
    in.clear();
    g2p.adjoint(body);
    expect_same(in.gradient(), derived, "grid_to_particle");
    grid_to_particle_adjoint<D>(bins, 0, bins.box_size(), x_next.adjoints().data(), v_next.adjoints().data(), c_next.adjoints().data(), dx, dt,
                                gv.adjoints().data());
    expect_gradient(loss, x0, in.gradient(), "grid_to_particle", 6);
  }
}

TEST(MpmKernels, Transfers) {
  check_transfers<2>();
  check_transfers<3>();
}

}  // namespace
}  // namespace simgrad::mpm
