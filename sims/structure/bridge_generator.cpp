#include "sims/structure/bridge_generator.hpp"

#include <stdexcept>

namespace simgrad::structure {

Structure make_bridge(BridgeType type, int panels, double panel, double height, const Material& material,
                      const Section& section) {
  if (panels < 2) throw std::invalid_argument("a bridge needs at least two panels");
  Structure s;
  TrussModel& m = s.model;
  m.kind = StructureKind::truss2d;
  m.materials = {material};
  auto joint = [&](double x, double y) {
    s.design.positions.push_back(x);
    s.design.positions.push_back(y);
    return m.joint_count++;
  };
  auto member = [&](int a, int b) {
    Member mem;
    mem.joints = {a, b};
    mem.section = section;
    m.members.push_back(mem);
    s.design.areas.push_back(section.area);
  };
  for (int i = 0; i <= panels; ++i) joint(i * panel, 0.0);
  for (int i = 0; i < panels; ++i) member(i, i + 1);
  if (type == BridgeType::warren) {
    // Top joints over the middle of each panel; diagonals up and down.
    const int top = m.joint_count;
    for (int i = 0; i < panels; ++i) joint((i + 0.5) * panel, height);
    for (int i = 0; i + 1 < panels; ++i) member(top + i, top + i + 1);
    for (int i = 0; i < panels; ++i) {
      member(i, top + i);
      member(top + i, i + 1);
    }
  } else {
    // Top joints over the inner bottom joints; verticals; diagonals falling towards midspan.
    const int top = m.joint_count - 1;  // top joint over bottom joint i is top + i, i = 1..panels-1
    for (int i = 1; i < panels; ++i) joint(i * panel, height);
    for (int i = 1; i + 1 < panels; ++i) member(top + i, top + i + 1);
    for (int i = 1; i < panels; ++i) member(i, top + i);
    member(0, top + 1);
    member(panels, top + panels - 1);
    for (int i = 1; i + 1 < panels; ++i) {
      if (2 * (i + 1) <= panels) member(top + i, i + 1);
      else member(i, top + i + 1);
    }
  }
  m.supports = {{0, SupportKind::pinned, 1}, {panels, SupportKind::roller, 1}};
  m.rating.span = panels * panel;
  return s;
}

Structure make_bridge(BridgeType type, int panels, double panel, double height, const std::vector<Material>& materials,
                      int material, const Section& section, const std::vector<CatalogueEntry>& catalogue) {
  Structure s = make_bridge(type, panels, panel, height, materials.at(static_cast<std::size_t>(material)), section);
  for (Member& mem : s.model.members) mem.material = material;
  s.model.materials = materials;
  s.model.catalogue = catalogue;
  s.design.logits.assign(s.model.members.size() * catalogue.size(), 0.0);
  return s;
}

}  // namespace simgrad::structure
