#include "sims/structure/tunables.hpp"

namespace simgrad::structure {

const std::vector<tune::TunableInfo>& structure_tunables() {
  using tune::TunableDefault;
  static const std::vector<tune::TunableInfo> table = {
      {"joint_offset", "length", "joint and axis", "a joint's move from where it starts", TunableDefault::number(0.0)},
      {"area", "length^2", "member", "a sized member's cross-section area (I ~ A^2, S ~ A^1.5)",
       TunableDefault::text("the member's section, clamped to [lower, upper]")},
      {"section_choice", "1", "member and catalogue entry",
       "logits of a catalogue member's softmax over sections (snapped to the largest when re-scored)",
       TunableDefault::text("the member's logits, clamped to [lower, upper]")},
  };
  return table;
}

}  // namespace simgrad::structure
