// Generated planar truss bridges (Warren and Pratt), for examples, closed-form tests and the
// benchmark: joints, members, supports at the two ends, one section for all members; load cases
// are the caller's.
#pragma once

#include "sims/structure/truss_model.hpp"

namespace simgrad::structure {

struct Structure {
  TrussModel model;
  Design design;
};

enum class BridgeType { warren, pratt };

// A bridge of `panels` panels of length `panel` and height `height`. Bottom-chord joints are
// 0..panels (the deck, left to right); the top joints follow. Joint 0 is pinned, joint
// `panels` is on a roller. Every member is sized with `section` in `material`.
Structure make_bridge(BridgeType type, int panels, double panel, double height, const Material& material,
                      const Section& section);
// The same bridge among a scenario's materials and catalogue: every member in
// materials[material], sized with `section`, and none of them a catalogue choice.
Structure make_bridge(BridgeType type, int panels, double panel, double height, const std::vector<Material>& materials,
                      int material, const Section& section, const std::vector<CatalogueEntry>& catalogue);

}  // namespace simgrad::structure
