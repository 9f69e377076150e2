// glTF 2.0 (Khronos): an Animation as one mesh whose motion is a morph target per frame, so that
// Blender (shape keys), three.js, Unity and Unreal importers play it back.
//
// The mesh's positions are frame 0; target k - 1 holds frame k's displacement from frame 0, and
// the animation's weights switch targets on and off with STEP interpolation, one frame at a time.
// Triangles (mode 4), lines (mode 1), or points (mode 0) for a body without cells; tetrahedra
// are not drawn (give their surface triangles). Positions are single precision, as glTF's are.
// The file is self-contained: the binary buffer is embedded as a base64 data URI.
#pragma once

#include <filesystem>
#include <string>

#include "report/animation.hpp"

namespace simgrad::report {

// The .gltf text of an animation with at least one frame; `name` names the node and the clip.
std::string gltf_text(const Animation& animation, const std::string& name);

// Writes it, atomically.
void write_gltf(const std::filesystem::path& file, const Animation& animation);

}  // namespace simgrad::report
