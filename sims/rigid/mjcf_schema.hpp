// What simgrad does with each MJCF element and attribute it accepts: models it, skips it as
// visual-only (an error unless MjcfOptions::ignore_visual), or skips it because MuJoCo's own
// simulation ignores it too. Anything not listed is an error. The list is in mjcf_schema.cpp.
#pragma once

#include <optional>
#include <string_view>

namespace simgrad::rigid::mjcf {

enum class Use {
  kModelled,  // read into the RigidModel
  kVisual,    // drawing only
  kIgnored,   // no effect on MuJoCo's simulation either (names, user data, solver settings)
};

// What becomes of an element (and, for visual and ignored ones, everything inside it); nullopt
// when it is not supported.
std::optional<Use> element_use(std::string_view element);

// What becomes of an attribute of a supported element; nullopt when it is not supported.
std::optional<Use> attribute_use(std::string_view element, std::string_view attribute);

}  // namespace simgrad::rigid::mjcf
