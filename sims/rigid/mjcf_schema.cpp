#include "sims/rigid/mjcf_schema.hpp"

#include <array>

namespace simgrad::rigid::mjcf {
namespace {

constexpr Use M = Use::kModelled;
constexpr Use V = Use::kVisual;
constexpr Use I = Use::kIgnored;

// One row per element ("" as attribute) and per attribute; "*" stands for any attribute.
struct Rule {
  std::string_view element;
  std::string_view attribute;
  Use use;
};

constexpr auto kRules = std::to_array<Rule>({
    {"mujoco", "", M}, {"mujoco", "model", M},

    {"compiler", "", M}, {"compiler", "angle", M}, {"compiler", "coordinate", M},
    {"compiler", "inertiafromgeom", M}, {"compiler", "eulerseq", M}, {"compiler", "settotalmass", M},
    {"compiler", "autolimits", M},
    // Where mesh files are, and how meshes are made: meshes themselves are rejected.
    {"compiler", "meshdir", I}, {"compiler", "assetdir", I}, {"compiler", "strippath", I},
    {"compiler", "convexhull", I}, {"compiler", "exactmeshinertia", I}, {"compiler", "usethread", I},
    {"compiler", "texturedir", V},

    {"option", "", M}, {"option", "timestep", M}, {"option", "gravity", M}, {"option", "integrator", M},
    {"option", "viscosity", M}, {"option", "density", M},
    // MuJoCo's constraint solver; simgrad's contact and limits have their own parameters.
    {"option", "iterations", I}, {"option", "tolerance", I}, {"option", "solver", I},
    {"option", "ls_iterations", I}, {"option", "ls_tolerance", I}, {"option", "noslip_iterations", I},
    {"option", "noslip_tolerance", I}, {"option", "mpr_iterations", I}, {"option", "mpr_tolerance", I},
    {"option", "jacobian", I}, {"option", "cone", I}, {"option", "impratio", I}, {"option", "apirate", I},

    // Memory sizes and user-data lengths: nothing the simulation reads. nkey adds keyframes.
    {"size", "", M}, {"size", "nkey", M}, {"size", "*", I},
    {"custom", "", I},
    {"visual", "", V}, {"statistic", "", V},
    {"asset", "", M}, {"texture", "", V}, {"material", "", V}, {"skin", "", V},
    {"camera", "", V}, {"light", "", V},

    {"default", "", M}, {"default", "class", M},
    {"worldbody", "", M},

    {"body", "", M}, {"body", "name", M}, {"body", "childclass", M}, {"body", "pos", M}, {"body", "quat", M},
    {"body", "euler", M}, {"body", "axisangle", M}, {"body", "xyaxes", M}, {"body", "zaxis", M},
    {"body", "user", I},

    {"inertial", "", M}, {"inertial", "pos", M}, {"inertial", "quat", M}, {"inertial", "euler", M},
    {"inertial", "axisangle", M}, {"inertial", "xyaxes", M}, {"inertial", "zaxis", M},
    {"inertial", "mass", M}, {"inertial", "diaginertia", M}, {"inertial", "fullinertia", M},

    {"joint", "", M}, {"joint", "name", M}, {"joint", "class", M}, {"joint", "type", M}, {"joint", "pos", M},
    {"joint", "axis", M}, {"joint", "range", M}, {"joint", "limited", M}, {"joint", "damping", M},
    {"joint", "stiffness", M}, {"joint", "armature", M}, {"joint", "springref", M}, {"joint", "ref", M},
    {"joint", "frictionloss", M},  // only 0: friction loss is not modelled yet
    // The limit constraint's softness in MuJoCo's solver; simgrad's limits have their own.
    {"joint", "margin", I}, {"joint", "solreflimit", I}, {"joint", "solimplimit", I},
    {"joint", "solreffriction", I}, {"joint", "solimpfriction", I}, {"joint", "user", I},
    {"joint", "group", V},

    {"freejoint", "", M}, {"freejoint", "name", M}, {"freejoint", "group", V},

    {"geom", "", M}, {"geom", "name", M}, {"geom", "class", M}, {"geom", "type", M}, {"geom", "size", M},
    {"geom", "fromto", M}, {"geom", "pos", M}, {"geom", "quat", M}, {"geom", "euler", M},
    {"geom", "axisangle", M}, {"geom", "xyaxes", M}, {"geom", "zaxis", M}, {"geom", "mass", M},
    {"geom", "density", M}, {"geom", "contype", M}, {"geom", "conaffinity", M}, {"geom", "friction", M},
    {"geom", "mesh", M},  // rejected with its own message: mesh geoms are not supported yet
    // MuJoCo's soft-contact parameters; simgrad's contact model has its own.
    {"geom", "condim", I}, {"geom", "solimp", I}, {"geom", "solref", I}, {"geom", "solmix", I},
    {"geom", "margin", I}, {"geom", "gap", I}, {"geom", "priority", I}, {"geom", "user", I},
    // group: drawing, and which geoms count for the mass (MuJoCo's inertiagrouprange, 0 to 5).
    {"geom", "group", M}, {"geom", "rgba", V}, {"geom", "material", V},

    // Sites mark points on bodies; they exert nothing.
    {"site", "", M}, {"site", "name", M}, {"site", "class", M}, {"site", "type", M}, {"site", "size", M},
    {"site", "fromto", M}, {"site", "pos", M}, {"site", "quat", M}, {"site", "euler", M},
    {"site", "axisangle", M}, {"site", "xyaxes", M}, {"site", "zaxis", M}, {"site", "user", I},
    {"site", "rgba", V}, {"site", "material", V}, {"site", "group", V},

    {"actuator", "", M},
    {"motor", "", M}, {"motor", "name", M}, {"motor", "class", M}, {"motor", "joint", M}, {"motor", "gear", M},
    {"motor", "ctrlrange", M}, {"motor", "ctrllimited", M}, {"motor", "forcerange", M},
    {"motor", "forcelimited", M}, {"motor", "user", I}, {"motor", "group", V},
    {"position", "", M}, {"position", "name", M}, {"position", "class", M}, {"position", "joint", M},
    {"position", "gear", M}, {"position", "ctrlrange", M}, {"position", "ctrllimited", M},
    {"position", "forcerange", M}, {"position", "forcelimited", M}, {"position", "kp", M},
    {"position", "user", I}, {"position", "group", V},
    {"velocity", "", M}, {"velocity", "name", M}, {"velocity", "class", M}, {"velocity", "joint", M},
    {"velocity", "gear", M}, {"velocity", "ctrlrange", M}, {"velocity", "ctrllimited", M},
    {"velocity", "forcerange", M}, {"velocity", "forcelimited", M}, {"velocity", "kv", M},
    {"velocity", "user", I}, {"velocity", "group", V},

    {"contact", "", M}, {"exclude", "", M}, {"exclude", "name", I}, {"exclude", "body1", M}, {"exclude", "body2", M},

    {"keyframe", "", M}, {"key", "", M}, {"key", "name", M}, {"key", "time", M}, {"key", "qpos", M},
    {"key", "qvel", M}, {"key", "ctrl", M},

    // Accepted only empty (as in `<default><tendon/></default>`): tendons are not modelled.
    {"tendon", "", M},
});

}  // namespace

std::optional<Use> element_use(std::string_view element) {
  for (const Rule& r : kRules)
    if (r.element == element && r.attribute.empty()) return r.use;
  return std::nullopt;
}

std::optional<Use> attribute_use(std::string_view element, std::string_view attribute) {
  for (const Rule& r : kRules)
    if (r.element == element && (r.attribute == attribute || r.attribute == "*")) return r.use;
  return std::nullopt;
}

}  // namespace simgrad::rigid::mjcf
