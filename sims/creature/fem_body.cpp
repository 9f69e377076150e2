#include "sims/creature/fem_body.hpp"

#include <cmath>
#include <map>
#include <utility>

namespace simgrad::creature {

std::vector<double> assemble_fem(const std::vector<std::string>& rows, const GridOptions& grid,
                                 const FemBodyOptions& options, const BodyOptions& body,
                                 fem::FemModel<2>& model) {
  const BodyPlan plan = parse_grid(rows, grid);  // validates the rows and numbers the nodes
  // Node of each grid point, keyed by doubled grid coordinates as ModuleGrid keys them.
  std::map<std::pair<long, long>, std::int32_t> node_at;
  for (std::size_t i = 0; i < plan.nodes.size(); ++i)
    node_at[{std::lround(2.0 * (plan.nodes[i][0] - grid.origin[0]) / grid.spacing),
             std::lround(2.0 * (plan.nodes[i][1] - grid.origin[1]) / grid.spacing)}] = static_cast<std::int32_t>(i);
  auto point = [&](double i, double j) { return node_at.at({std::lround(2.0 * i), std::lround(2.0 * j)}); };

  enum Region { kSoft = 0, kRigid = 1, kBlock = 2 };
  std::vector<std::int32_t> elements, regions, actuator, axis;
  std::vector<double> strength;
  auto triangle = [&](std::int32_t a, std::int32_t b, std::int32_t c, Region region, int actuated, int along) {
    elements.insert(elements.end(), {a, b, c});
    regions.push_back(region);
    actuator.push_back(actuated);
    axis.push_back(along);
  };
  const int height = static_cast<int>(rows.size());
  for (int r = height - 1; r >= 0; --r) {
    const std::string& row = rows[static_cast<std::size_t>(r)];
    const int j = height - 1 - r;
    for (int i = 0; i < static_cast<int>(row.size()); ++i) {
      const char module = row[static_cast<std::size_t>(i)];
      if (module == '.' || module == ' ') continue;
      if (module == '^') {
        triangle(point(i + 0.5, j + 0.5), point(i + 1, j + 1), point(i, j + 1), kSoft, -1, 0);
        continue;
      }
      int actuated = -1, along = 0;
      if (module == 'H' || module == 'V') {
        actuated = static_cast<int>(strength.size());
        along = module == 'H' ? 0 : 1;
        strength.push_back(grid.actuation);
      }
      const Region region = module == 'R' ? kRigid : module == 'B' ? kBlock : kSoft;
      // b d
      // a c
      const std::int32_t a = point(i, j), b = point(i, j + 1), c = point(i + 1, j), d = point(i + 1, j + 1);
      triangle(a, c, d, region, actuated, along);
      triangle(a, d, b, region, actuated, along);
    }
  }
  if (strength.empty()) throw GridError(0, 0, "the rows hold no actuator (H or V)");

  std::vector<double> positions;
  for (const Vec<double, 2>& p : plan.nodes) positions.insert(positions.end(), {p[0], p[1]});
  model.settings.dt = body.dt;
  model.settings.steps = body.steps;
  model.settings.material = options.material;
  model.settings.penalty = body.penalty;
  model.build(positions, elements, regions, body.steps);
  const double density = 1.0 / (grid.spacing * grid.spacing);
  for (int k = 0; k < model.region_count; ++k) {
    model.youngs.values()[k] = options.youngs_modulus * (k == kRigid ? grid.stiff_factor : 1.0);
    model.poisson.values()[k] = options.poisson_ratio;
    model.damping.values()[k] = options.damping;
    model.density[static_cast<std::size_t>(k)] = density * (k == kBlock ? 4.0 * grid.block_mass : 1.0);
  }
  model.update_masses();
  model.mass_damping.values()[0] = body.drag;
  model.gravity.values()[1] = body.gravity;
  model.actuator_count = static_cast<int>(strength.size());
  model.element_actuator = actuator;
  model.element_axis.assign(axis.begin(), axis.end());
  model.actuation.resize(static_cast<Index>(body.steps + 1) * model.actuator_count, false);
  if (body.ground) model.planes.push_back(ground_plane(body));
  return strength;
}

}  // namespace simgrad::creature
