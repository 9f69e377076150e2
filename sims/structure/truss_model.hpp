// The immutable description of a structure (joints, members, materials, sections, supports,
// load cases, rating settings) apart from the design values that are tuned (joint positions,
// member areas, catalogue choices), as MuJoCo and Jolt keep a model apart from its state.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace simgrad::structure {

// Pin-jointed trusses carry axial force only; a frame's members also carry bending.
enum class StructureKind { truss2d, truss3d, frame2d };

// Coordinates per joint.
inline int dimension_of(StructureKind kind) { return kind == StructureKind::truss3d ? 3 : 2; }
// Degrees of freedom per joint: displacements, plus a rotation in a frame.
inline int dofs_per_joint(StructureKind kind) { return kind == StructureKind::truss2d ? 2 : 3; }

struct Material {
  std::string name;
  double young = 0.0;    // Young's modulus E
  double yield = 0.0;    // yield strength, in tension and in squash
  double density = 0.0;  // mass per volume
  double price = 0.0;    // price per mass
};

// A cross-section: area, second moment and elastic section modulus (bending stress = M / S).
struct Section {
  std::string name;
  double area = 0.0;
  double inertia = 0.0;
  double modulus = 0.0;
};

// One choice of a discrete catalogue: a section in a material.
struct CatalogueEntry {
  Section section;
  int material = 0;
};

struct Member {
  std::array<int, 2> joints{};
  int material = 0;
  // Sized members scale their second moment and section modulus with the area as geometrically
  // similar shapes do (I ~ A^2, S ~ A^1.5), so that thickening a strut also stiffens it against
  // buckling. Catalogue members (catalogue >= 0) take all three from the chosen entry.
  Section section;
  int catalogue = -1;
  double buckling_length_factor = 1.0;  // K in the Euler load pi^2 E I / (K L)^2
};

// Support conditions: which of a joint's degrees of freedom are held.
enum class SupportKind { pinned, roller, fixed };

struct Support {
  int joint = 0;
  SupportKind kind = SupportKind::pinned;
  int roller_axis = 1;  // a roller holds this axis only (1: vertical in 2D)
};

struct PointLoad {
  int joint = 0;
  std::array<double, 3> force{};  // components per degree of freedom (a moment third in a frame)
};

struct LoadCase {
  std::string name;
  std::vector<PointLoad> loads;
  bool self_weight = false;
  std::array<double, 3> gravity{};  // acceleration applied to member mass, half to each end
};

// What the rating adds up, each term times its weight; lower ratings are better.
struct RatingWeights {
  double mass = 0.0;
  double cost = 1.0;
  double stress = 0.0;              // smooth maximum of stress ratios
  double stress_penalty = 0.0;      // sum of max(0, ratio - 1)^2
  double deflection = 0.0;          // smooth maximum of deflection over the limit
  double deflection_penalty = 0.0;  // sum of max(0, deflection / limit - 1)^2
  double budget_penalty = 0.0;      // max(0, cost / budget - 1)^2
};

struct RatingSettings {
  RatingWeights weights;
  double joint_price = 0.0;
  double temperature = 0.05;     // of the smooth maxima (log-sum-exp); the hard model uses 0
  double span = 0.0;             // the deflection limit is span / deflection_ratio
  double deflection_ratio = 300.0;
  int deflection_axis = 1;       // the axis deflection is measured along
  double budget = 0.0;           // 0: no budget
  bool buckling = true;          // compression checked against buckling; false: against yield
  double catalogue_temperature = 1.0;  // of the softmax over catalogue entries
};

struct TrussModel {
  StructureKind kind = StructureKind::truss2d;
  std::vector<Material> materials;
  std::vector<CatalogueEntry> catalogue;
  std::vector<Member> members;
  std::vector<Support> supports;
  std::vector<LoadCase> load_cases;
  std::vector<int> deflection_joints;  // joints whose deflection is rated; empty: every joint
  RatingSettings rating;
  int joint_count = 0;

  int dimension() const { return dimension_of(kind); }
  int dofs() const { return dofs_per_joint(kind); }
};

// What is tuned: positions (dimension() per joint), member areas (used by sized members) and
// catalogue logits (catalogue.size() per member; unused for sized members).
struct Design {
  std::vector<double> positions;
  std::vector<double> areas;
  std::vector<double> logits;
};

}  // namespace simgrad::structure
