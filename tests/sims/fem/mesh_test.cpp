// FEM meshes: generated meshes cover their shapes (volumes add up), TetGen files read back, the
// surface of a box is its six faces, and .obj output lists them.
#include "sims/fem/mesh.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <sstream>
#include <stdexcept>

#include "sims/fem/model.hpp"

namespace simgrad::fem {
namespace {

template <int D>
double total_volume(const FemMesh<D>& mesh) {
  FemModel<D> model;
  model.build(mesh.positions, mesh.elements, mesh.regions, 1);
  double v = 0.0;
  for (double x : model.rest_volume.values()) v += x;
  return v;
}

TEST(FemMesh, GeneratedMeshesFillTheirShapes) {
  const FemMesh<3> box = make_box_mesh(3, 2, 4, {{0.3, 0.2, 0.5}}, {{1.0, 0.0, 0.0}});
  EXPECT_EQ(box.node_count(), 4 * 3 * 5);
  EXPECT_EQ(box.element_count(), 6 * 3 * 2 * 4);
  EXPECT_NEAR(total_volume(box), 0.3 * 0.2 * 0.5, 1e-14);
  const FemMesh<3> beam = make_beam_mesh(1.0, 0.1, 0.2, 20, 2, {{0.0, 0.0, 0.0}});
  EXPECT_EQ(beam.element_count(), 6 * 20 * 4 * 2);
  EXPECT_NEAR(total_volume(beam), 0.02, 1e-14);
  const FemMesh<2> rectangle = make_rectangle_mesh(5, 3, {{0.5, 0.3}}, {{0.0, 0.0}});
  EXPECT_NEAR(total_volume(rectangle), 0.15, 1e-14);
  // A disk of n rings has 6 n^2 triangles tiling the regular polygon of 6 n sides inscribed in
  // the circle, of area (6 n / 2) r^2 sin(2 pi / 6 n).
  const FemMesh<2> disk = make_disk_mesh(0.5, 6, {{0.0, 0.0}});
  EXPECT_EQ(disk.element_count(), 6 * 36);
  EXPECT_EQ(disk.node_count(), 1 + 3 * 6 * 7);
  const double polygon = 0.5 * 36 * 0.25 * std::sin(2.0 * std::numbers::pi / 36.0);
  EXPECT_NEAR(total_volume(disk), polygon, 1e-12);
}

TEST(FemMesh, BoxSurfaceIsItsSixFaces) {
  const FemMesh<3> box = make_box_mesh(2, 3, 4, {{1.0, 1.0, 1.0}}, {{0.0, 0.0, 0.0}});
  FemModel<3> model;
  model.build(box.positions, box.elements, box.regions, 1);
  std::vector<std::int32_t> elements;
  for (Index e = 0; e < model.element_count(); ++e)
    for (int s = 0; s < 4; ++s) elements.push_back(static_cast<std::int32_t>(model.elements.node(e, s)));
  const auto surface = surface_triangles<3>(model.node_count, elements);
  EXPECT_EQ(surface.size(), 2u * 2 * (2 * 3 + 3 * 4 + 2 * 4));
  // Outward: the signed volume enclosed by the surface (divergence theorem) is +1.
  double volume = 0.0;
  for (const auto& t : surface) {
    const double* a = &box.positions[3 * t[0]];
    const double* b = &box.positions[3 * t[1]];
    const double* c = &box.positions[3 * t[2]];
    volume += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) +
               a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
  }
  EXPECT_NEAR(volume, 1.0, 1e-12);
  std::ostringstream obj;
  write_obj<3>(obj, box.positions, surface);
  const std::string text = obj.str();
  EXPECT_EQ(std::count(text.begin(), text.end(), 'v'), box.node_count());
  EXPECT_EQ(std::count(text.begin(), text.end(), 'f'), static_cast<long>(surface.size()));
}

TEST(FemMesh, ReadsTetGenFiles) {
  // Two tetrahedra sharing a face, numbered from 1, with region attributes.
  std::istringstream node("# nodes\n5 3 0 0\n1 0 0 0\n2 1 0 0\n3 0 1 0\n4 0 0 1\n5 1 1 1\n");
  std::istringstream ele("2 4 1\n1 1 2 3 4 7\n2 2 3 4 5 9  # second\n");
  const FemMesh<3> mesh = read_tetgen<3>(node, ele, "a.node", "a.ele");
  EXPECT_EQ(mesh.node_count(), 5);
  ASSERT_EQ(mesh.element_count(), 2);
  EXPECT_EQ(mesh.elements[0], 0);
  EXPECT_EQ(mesh.elements[7], 4);
  EXPECT_EQ(mesh.regions, (std::vector<std::int32_t>{0, 1}));
  EXPECT_NEAR(total_volume(mesh), 1.0 / 6.0 + 1.0 / 3.0, 1e-14);
}

TEST(FemMesh, TetGenErrorsNameFileAndLine) {
  std::istringstream node("3 3 0 0\n0 0 0 0\n1 1 0 0\n2 0 1 0\n");
  std::istringstream ele("1 4 0\n0 0 1 2 3\n");
  try {
    read_tetgen<3>(node, ele, "bar.node", "bar.ele");
    FAIL() << "expected an error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("bar.ele:2"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace simgrad::fem
