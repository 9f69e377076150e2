#include "sims/creature/body_plan.hpp"

#include <algorithm>
#include <cmath>

namespace simgrad::creature {

std::vector<std::int32_t> BodyPlan::actuated() const {
  std::vector<std::int32_t> out;
  for (std::size_t e = 0; e < springs.size(); ++e)
    if (springs[e].actuation != 0.0) out.push_back(static_cast<std::int32_t>(e));
  return out;
}

void BodyPlan::validate() const {
  const auto n = static_cast<std::int32_t>(nodes.size());
  if (n == 0) throw std::invalid_argument("body plan: no nodes");
  if (head < 0 || head >= n) throw std::invalid_argument("body plan: the head is not a node");
  for (std::int32_t b : block)
    if (b < 0 || b >= n) throw std::invalid_argument("body plan: a block node is not a node");
  if (!mass.empty() && mass.size() != nodes.size()) throw std::invalid_argument("body plan: expected one mass per node");
  for (double m : mass)
    if (!(m > 0.0)) throw std::invalid_argument("body plan: masses must be > 0");
  for (std::size_t e = 0; e < springs.size(); ++e) {
    const PlanSpring& s = springs[e];
    const std::string where = "body plan: spring " + std::to_string(e);
    if (s.a < 0 || s.b < 0 || s.a >= n || s.b >= n) throw std::invalid_argument(where + " joins a missing node");
    if (s.a == s.b) throw std::invalid_argument(where + " joins a node to itself");
    if (!(s.length > 0.0)) throw std::invalid_argument(where + " has a rest length <= 0");
    if (!(s.stiffness > 0.0)) throw std::invalid_argument(where + " has a stiffness <= 0");
  }
}

std::int32_t ModuleGrid::point(double i, double j) {
  const std::pair<int, int> key{static_cast<int>(std::lround(2 * i)), static_cast<int>(std::lround(2 * j))};
  if (auto it = points_.find(key); it != points_.end()) return it->second;
  const auto id = static_cast<std::int32_t>(plan_.nodes.size());
  plan_.nodes.push_back({{origin_[0] + i * spacing_, origin_[1] + j * spacing_}});
  points_.emplace(key, id);
  return id;
}

void ModuleGrid::spring(std::int32_t a, std::int32_t b, double stiffness, double actuation) {
  if (springs_.count({a, b}) != 0 || springs_.count({b, a}) != 0) return;
  springs_[{a, b}] = true;
  const Vec<double, 2> d = plan_.nodes[static_cast<std::size_t>(b)] - plan_.nodes[static_cast<std::size_t>(a)];
  plan_.springs.push_back({a, b, std::sqrt(dot(d, d)), stiffness, actuation});
}

void ModuleGrid::square(int i, int j, double stiffness, double vertical, double horizontal) {
  // b d
  // a c
  const std::int32_t a = point(i, j), b = point(i, j + 1), c = point(i + 1, j), d = point(i + 1, j + 1);
  spring(a, b, stiffness, vertical);
  spring(c, d, stiffness, vertical);
  if (horizontal != 0.0) {
    spring(a, c, stiffness, horizontal);
    spring(b, d, stiffness, horizontal);
  }
  const std::int32_t corners[] = {a, b, c, d};
  for (std::int32_t p : corners)
    for (std::int32_t q : corners)
      if (p != q) spring(p, q, stiffness, 0.0);
}

void ModuleGrid::triangle(int i, int j, double stiffness) {
  const std::int32_t a = point(i + 0.5, j + 0.5), b = point(i, j + 1), d = point(i + 1, j + 1);
  const std::int32_t corners[] = {a, b, d};
  for (std::int32_t p : corners)
    for (std::int32_t q : corners)
      if (p != q) spring(p, q, stiffness, 0.0);
}

void ModuleGrid::block(int i, int j, double stiffness, double mass) {
  square(i, j, stiffness, 0.0, 0.0);
  const std::int32_t corners[] = {point(i, j), point(i, j + 1), point(i + 1, j), point(i + 1, j + 1)};
  plan_.mass.resize(plan_.nodes.size(), 1.0);
  for (std::int32_t p : corners) {
    plan_.mass[static_cast<std::size_t>(p)] = mass;
    if (std::find(plan_.block.begin(), plan_.block.end(), p) == plan_.block.end()) plan_.block.push_back(p);
  }
}

BodyPlan parse_grid(const std::vector<std::string>& rows, const GridOptions& options) {
  if (rows.empty()) throw GridError(0, 0, "expected at least one row");
  if (!(options.spacing > 0.0 && options.stiffness > 0.0 && options.stiff_factor > 0.0))
    throw GridError(0, 0, "spacing, stiffness and stiff factor must be > 0");
  ModuleGrid grid(options.spacing, options.origin);
  const int height = static_cast<int>(rows.size());
  for (int r = height - 1; r >= 0; --r) {
    const std::string& row = rows[static_cast<std::size_t>(r)];
    const int j = height - 1 - r;
    for (int i = 0; i < static_cast<int>(row.size()); ++i) {
      const double k = options.stiffness, act = options.actuation;
      switch (row[static_cast<std::size_t>(i)]) {
        case '.': case ' ': break;
        case '#': grid.square(i, j, k, 0.0, 0.0); break;
        case 'R': grid.square(i, j, k * options.stiff_factor, 0.0, 0.0); break;
        case 'V': grid.square(i, j, k, act, 0.0); break;
        case 'H': grid.square(i, j, k, 0.0, act); break;
        case '^': grid.triangle(i, j, k); break;
        case 'B': grid.block(i, j, k, options.block_mass); break;
        default:
          throw GridError(r + 1, i + 1, std::string("unknown module '") + row[static_cast<std::size_t>(i)] +
                                            "' (expected one of . # R V H ^ B)");
      }
    }
  }
  if (grid.plan().nodes.empty()) throw GridError(0, 0, "the rows hold no module");
  if (!grid.plan().mass.empty()) grid.plan().mass.resize(grid.plan().nodes.size(), 1.0);
  return std::move(grid.plan());
}

BodyPlan difftaichi_robot(int index) {
  if (index == 0) {
    // robotA: six masses, every spring actuated with strength 0.1.
    BodyPlan plan;
    plan.nodes = {{{0.2, 0.1}}, {{0.3, 0.13}}, {{0.4, 0.1}}, {{0.2, 0.2}}, {{0.3, 0.2}}, {{0.4, 0.2}}};
    const int links[][2] = {{0, 1}, {1, 2}, {3, 4}, {4, 5}, {0, 3}, {2, 5}, {0, 4}, {1, 4}, {2, 4}, {3, 1}, {5, 1}};
    for (const auto& l : links) {
      const Vec<double, 2> d = plan.nodes[static_cast<std::size_t>(l[1])] - plan.nodes[static_cast<std::size_t>(l[0])];
      plan.springs.push_back({l[0], l[1], std::sqrt(dot(d, d)), 14000.0, 0.1});
    }
    return plan;
  }
  if (index < 1 || index > 3) throw std::out_of_range("DiffTaichi robots are numbered 0 to 3");
  // robotB-D: cells of 0.05 from (0.1, 0.1), stiffness 3e4, actuated cells with strength 0.15.
  ModuleGrid grid(0.05, {{0.1, 0.1}});
  const double k = 3e4;
  auto sq = [&](int i, int j, double act = 0.0) { grid.square(i, j, k, act, 0.0); };
  if (index == 1) {
    grid.triangle(2, 0, k);
    grid.triangle(0, 0, k);
    sq(0, 1, 0.15);
    sq(0, 2);
    sq(1, 2);
    sq(2, 1, 0.15);
    sq(2, 2);
  } else {
    sq(2, 0, 0.15);
    sq(0, 0, 0.15);
    sq(0, 1, 0.15);
    sq(0, 2);
    sq(1, 2);
    sq(2, 1, 0.15);
    sq(2, 2);
    sq(2, 3);
    sq(2, 4);
    if (index == 3) {
      sq(3, 1);
      sq(4, 0, 0.15);
      sq(4, 1, 0.15);
    }
  }
  return std::move(grid.plan());
}

softbody::MassSpringModel<2> assemble(const BodyPlan& plan, int copies, const BodyOptions& options) {
  plan.validate();
  if (copies < 1) throw std::invalid_argument("assemble: at least one copy");
  const auto n = static_cast<std::int32_t>(plan.nodes.size());
  const std::vector<std::int32_t> actuated = plan.actuated();
  const auto per_copy = static_cast<std::int32_t>(actuated.size());
  std::vector<std::int32_t> ends;
  std::vector<std::int32_t> actuator_of_spring;
  for (int c = 0; c < copies; ++c) {
    std::int32_t next_actuator = c * per_copy;
    for (const PlanSpring& s : plan.springs) {
      ends.push_back(c * n + s.a);
      ends.push_back(c * n + s.b);
      actuator_of_spring.push_back(s.actuation != 0.0 ? next_actuator++ : -1);
    }
  }
  softbody::MassSpringModel<2> m;
  m.settings.dt = options.dt;
  m.settings.drag = options.drag;
  m.settings.length_epsilon = options.length_epsilon;
  m.settings.penalty = options.penalty;
  m.build(static_cast<Index>(n) * copies, std::move(ends), options.steps);
  m.set_actuators(actuator_of_spring, per_copy * copies);
  m.gravity.values()[1] = options.gravity;
  const std::size_t m_springs = plan.springs.size();
  for (int c = 0; c < copies; ++c) {
    for (std::size_t i = 0; i < plan.nodes.size(); ++i) {
      const std::size_t at = static_cast<std::size_t>(c) * plan.nodes.size() + i;
      for (int k = 0; k < 2; ++k) m.initial_position.values()[at * 2 + k] = plan.nodes[i][k];
      if (!plan.mass.empty()) m.inverse_mass.values()[at] = 1.0 / plan.mass[i];
    }
    for (std::size_t e = 0; e < m_springs; ++e) {
      const std::size_t at = static_cast<std::size_t>(c) * m_springs + e;
      m.stiffness.values()[at] = plan.springs[e].stiffness;
      m.rest_length.values()[at] = plan.springs[e].length;
    }
  }
  if (options.ground) m.planes.push_back(ground_plane(options));
  return m;
}

softbody::ContactPlane<2> ground_plane(const BodyOptions& options) {
  softbody::ContactPlane<2> ground;
  ground.normal = {{0.0, 1.0}};
  ground.offset = options.ground_height;
  ground.friction = options.ground_friction;
  ground.model = options.ground_model;
  return ground;
}

}  // namespace simgrad::creature
