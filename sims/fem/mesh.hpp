// FEM meshes: built-in generators (box, beam, rectangle, disk), TetGen / Triangle .node and .ele
// files, and the boundary surface written as Wavefront .obj for rendering elsewhere.
#pragma once

#include <array>
#include <cstdint>
#include <iosfwd>
#include <span>
#include <string>
#include <vector>

#include "core/vec.hpp"

namespace simgrad::fem {

// Node positions (nodes x D), element nodes (elements x (D + 1)) and each element's region.
template <int D>
struct FemMesh {
  std::vector<double> positions;
  std::vector<std::int32_t> elements;
  std::vector<std::int32_t> regions;  // empty: one region

  Index node_count() const { return static_cast<Index>(positions.size()) / D; }
  Index element_count() const { return static_cast<Index>(elements.size()) / (D + 1); }
};

// A box [origin, origin + size] of nx x ny x nz cells, each split into six tetrahedra around
// its main diagonal (the same split in every cell, so faces match). Node (i, j, k) has index
// (k (ny + 1) + j) (nx + 1) + i.
FemMesh<3> make_box_mesh(int nx, int ny, int nz, Vec<double, 3> size, Vec<double, 3> origin);
// A beam along x of the given length, height (z) and width (y), `cells_along` cells long and
// `cells_across` cells through its height (width cells in proportion, at least one).
FemMesh<3> make_beam_mesh(double length, double height, double width, int cells_along, int cells_across,
                          Vec<double, 3> origin);
// A rectangle [origin, origin + size] of nx x ny cells, each split into two triangles along
// alternating diagonals. Node (i, j) has index j (nx + 1) + i.
FemMesh<2> make_rectangle_mesh(int nx, int ny, Vec<double, 2> size, Vec<double, 2> origin);
// A disk of the given radius: a centre node and `rings` rings of 6 k nodes (k = 1 .. rings),
// neighbouring rings joined by a strip of triangles. Node 0 is the centre.
FemMesh<2> make_disk_mesh(double radius, int rings, Vec<double, 2> centre);

// Reads a TetGen mesh (D = 3: `.node` with 3 coordinates, `.ele` with 4 nodes per element) or a
// Triangle mesh (D = 2: 2 coordinates, 3 nodes), given the path without extension ("bar" reads
// bar.node and bar.ele). Indices may start at 0 or 1 (as the first node's); comments start with
// '#'. The first element attribute, if any, is the element's region. Errors name the file and
// line.
template <int D>
FemMesh<D> read_tetgen(const std::string& path_without_extension);
// The same from streams; `node_name` and `ele_name` name them in errors.
template <int D>
FemMesh<D> read_tetgen(std::istream& node, std::istream& ele, const std::string& node_name,
                       const std::string& ele_name);

// The boundary of a mesh: in 3D the triangles that belong to one tetrahedron only, oriented
// outwards; in 2D every triangle (a flat surface), counter-clockwise.
template <int D>
std::vector<std::array<std::int32_t, 3>> surface_triangles(Index node_count, std::span<const std::int32_t> elements);
// Writes positions (nodes x D; z = 0 in 2D) and the triangles as a Wavefront .obj.
template <int D>
void write_obj(std::ostream& out, std::span<const double> positions,
               std::span<const std::array<std::int32_t, 3>> triangles);

}  // namespace simgrad::fem
