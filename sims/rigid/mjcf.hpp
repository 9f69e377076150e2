// Reads MJCF, MuJoCo's XML model format (as written for MuJoCo, MJX, Brax and Newton), into a
// RigidModel, computing what MuJoCo's compiler computes: body frames, masses and inertias from
// the geoms, joint addresses, the default classes, the contact pairs.
//
// Nothing is dropped silently: an element or attribute that changes the simulation and that
// simgrad does not model is an error naming file, line, element and attribute. Visual-only ones
// (lights, cameras, textures, colours) are errors too unless MjcfOptions::ignore_visual is set;
// those that MuJoCo itself ignores when simulating (<custom>, <size>, user data, its constraint
// solver's settings) are accepted. mjcf_schema.cpp lists which is which.
//
// Differences from MuJoCo 2.2.2 (the version the tests load next to simgrad): autolimits defaults
// to true, as in MuJoCo 2.3 and later (2.2.2 rejects a range given without `limited`).
#pragma once

#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

#include "sims/rigid/model.hpp"

namespace simgrad::rigid {

struct MjcfOptions {
  // Skip visual-only elements and attributes (light, camera, texture, material, rgba, ...)
  // instead of rejecting them.
  bool ignore_visual = false;
  // Refuse a model in which two geoms may touch as a pair of shapes simgrad cannot collide yet
  // (they would pass through each other). Off: read the model all the same, to look at what it
  // compiles to.
  bool require_collisions = true;
};

// A model that cannot be read: the message is "FILE:LINE: <element> attribute 'x': what is wrong".
class MjcfError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads the MJCF file.
RigidModel load_mjcf(const std::filesystem::path& file, const MjcfOptions& options = {});

// Reads MJCF text; file_name_for_errors names it in error messages.
RigidModel parse_mjcf(std::string_view xml, const std::string& file_name_for_errors, const MjcfOptions& options = {});

}  // namespace simgrad::rigid
