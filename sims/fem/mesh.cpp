#include "sims/fem/mesh.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <numbers>
#include <sstream>
#include <stdexcept>

namespace simgrad::fem {

FemMesh<3> make_box_mesh(int nx, int ny, int nz, Vec<double, 3> size, Vec<double, 3> origin) {
  if (nx < 1 || ny < 1 || nz < 1) throw std::invalid_argument("box mesh: at least one cell along each axis");
  FemMesh<3> mesh;
  const int n[3] = {nx, ny, nz};
  for (int k = 0; k <= nz; ++k)
    for (int j = 0; j <= ny; ++j)
      for (int i = 0; i <= nx; ++i) {
        const int p[3] = {i, j, k};
        for (int c = 0; c < 3; ++c) mesh.positions.push_back(origin[c] + size[c] * p[c] / n[c]);
      }
  auto id = [&](int i, int j, int k) { return static_cast<std::int32_t>((k * (ny + 1) + j) * (nx + 1) + i); };
  // Freudenthal's split: one tetrahedron per order of the three axes, walking from corner 000 to
  // corner 111 one axis at a time.
  static const int orders[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int k = 0; k < nz; ++k)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i)
        for (const auto& order : orders) {
          int p[3] = {i, j, k};
          mesh.elements.push_back(id(p[0], p[1], p[2]));
          for (int axis : order) {
            ++p[axis];
            mesh.elements.push_back(id(p[0], p[1], p[2]));
          }
        }
  return mesh;
}

FemMesh<3> make_beam_mesh(double length, double height, double width, int cells_along, int cells_across,
                          Vec<double, 3> origin) {
  const double cell = height / cells_across;
  const int cells_wide = std::max(1, static_cast<int>(std::lround(width / cell)));
  return make_box_mesh(cells_along, cells_wide, cells_across, {{length, width, height}}, origin);
}

FemMesh<2> make_rectangle_mesh(int nx, int ny, Vec<double, 2> size, Vec<double, 2> origin) {
  if (nx < 1 || ny < 1) throw std::invalid_argument("rectangle mesh: at least one cell along each axis");
  FemMesh<2> mesh;
  for (int j = 0; j <= ny; ++j)
    for (int i = 0; i <= nx; ++i) {
      mesh.positions.push_back(origin[0] + size[0] * i / nx);
      mesh.positions.push_back(origin[1] + size[1] * j / ny);
    }
  auto id = [&](int i, int j) { return static_cast<std::int32_t>(j * (nx + 1) + i); };
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const std::int32_t a = id(i, j), b = id(i + 1, j), c = id(i + 1, j + 1), d = id(i, j + 1);
      // Alternating diagonals keep the mesh symmetric, so a beam bends alike either way.
      if ((i + j) % 2 == 0) mesh.elements.insert(mesh.elements.end(), {a, b, c, a, c, d});
      else mesh.elements.insert(mesh.elements.end(), {a, b, d, b, c, d});
    }
  return mesh;
}

FemMesh<2> make_disk_mesh(double radius, int rings, Vec<double, 2> centre) {
  if (rings < 1) throw std::invalid_argument("disk mesh: at least one ring");
  FemMesh<2> mesh;
  mesh.positions = {centre[0], centre[1]};
  std::vector<std::int32_t> first = {0};  // first node of each ring; ring 0 is the centre
  for (int k = 1; k <= rings; ++k) {
    first.push_back(static_cast<std::int32_t>(mesh.positions.size() / 2));
    for (int m = 0; m < 6 * k; ++m) {
      const double angle = 2.0 * std::numbers::pi * m / (6 * k);
      mesh.positions.push_back(centre[0] + radius * k / rings * std::cos(angle));
      mesh.positions.push_back(centre[1] + radius * k / rings * std::sin(angle));
    }
  }
  // Between rings k - 1 and k: walk around both by angle, each triangle advancing the ring whose
  // next node comes first (the centre counts as a ring of one node at every angle).
  for (int k = 1; k <= rings; ++k) {
    const int inner = k == 1 ? 1 : 6 * (k - 1), outer = 6 * k;
    int a = k == 1 ? inner : 0, b = 0;  // the centre has no nodes to walk past
    while (a < inner || b < outer) {
      const double next_inner = k == 1 ? 2.0 : static_cast<double>(a + 1) / inner;
      const double next_outer = static_cast<double>(b + 1) / outer;
      const std::int32_t ia = first[k - 1] + (k == 1 ? 0 : a % inner), ob = first[k] + b % outer;
      if (b < outer && (next_outer <= next_inner || a >= inner)) {
        mesh.elements.insert(mesh.elements.end(), {ia, ob, first[k] + (b + 1) % outer});
        ++b;
      } else {
        mesh.elements.insert(mesh.elements.end(), {ia, ob, first[k - 1] + (a + 1) % inner});
        ++a;
      }
    }
  }
  return mesh;
}

namespace {

// Lines of a TetGen file without comments and blank lines, with their line numbers.
struct DataLines {
  std::vector<std::pair<int, std::string>> lines;
  explicit DataLines(std::istream& in) {
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
      line = line.substr(0, line.find('#'));
      if (line.find_first_not_of(" \t\r") != std::string::npos) lines.emplace_back(number, line);
    }
  }
};

// Reads `count` numbers from a line; an error names the file and line.
std::vector<double> numbers(const std::pair<int, std::string>& line, std::size_t count, const std::string& file) {
  std::istringstream in(line.second);
  std::vector<double> out;
  double x;
  while (in >> x) out.push_back(x);
  if (!in.eof() || out.size() < count)
    throw std::invalid_argument(file + ":" + std::to_string(line.first) + ": expected at least " +
                                std::to_string(count) + " numbers");
  return out;
}

}  // namespace

template <int D>
FemMesh<D> read_tetgen(std::istream& node, std::istream& ele, const std::string& node_name,
                       const std::string& ele_name) {
  const DataLines nodes(node), elements(ele);
  if (nodes.lines.empty()) throw std::invalid_argument(node_name + ": no header line");
  if (elements.lines.empty()) throw std::invalid_argument(ele_name + ": no header line");
  const std::vector<double> node_header = numbers(nodes.lines[0], 2, node_name);
  const auto node_count = static_cast<std::size_t>(node_header[0]);
  if (static_cast<int>(node_header[1]) != D)
    throw std::invalid_argument(node_name + ":" + std::to_string(nodes.lines[0].first) + ": expected dimension " +
                                std::to_string(D));
  if (nodes.lines.size() < node_count + 1) throw std::invalid_argument(node_name + ": fewer node lines than declared");
  FemMesh<D> mesh;
  int base = 0;
  for (std::size_t i = 0; i < node_count; ++i) {
    const std::vector<double> v = numbers(nodes.lines[i + 1], D + 1, node_name);
    if (i == 0) base = static_cast<int>(v[0]);
    if (static_cast<int>(v[0]) != base + static_cast<int>(i))
      throw std::invalid_argument(node_name + ":" + std::to_string(nodes.lines[i + 1].first) +
                                  ": nodes must be numbered consecutively");
    for (int c = 0; c < D; ++c) mesh.positions.push_back(v[1 + c]);
  }
  const std::vector<double> ele_header = numbers(elements.lines[0], 2, ele_name);
  const auto element_count = static_cast<std::size_t>(ele_header[0]);
  if (static_cast<int>(ele_header[1]) != D + 1)
    throw std::invalid_argument(ele_name + ":" + std::to_string(elements.lines[0].first) + ": expected " +
                                std::to_string(D + 1) + " nodes per element (linear elements only)");
  const bool has_region = ele_header.size() > 2 && ele_header[2] > 0;
  if (elements.lines.size() < element_count + 1)
    throw std::invalid_argument(ele_name + ": fewer element lines than declared");
  std::map<long, std::int32_t> region_index;  // attribute value -> region, in order of appearance
  for (std::size_t e = 0; e < element_count; ++e) {
    const auto& line = elements.lines[e + 1];
    const std::vector<double> v = numbers(line, D + 2 + (has_region ? 1 : 0), ele_name);
    for (int s = 0; s < D + 1; ++s) {
      const long n = static_cast<long>(v[1 + s]) - base;
      if (n < 0 || n >= static_cast<long>(node_count))
        throw std::invalid_argument(ele_name + ":" + std::to_string(line.first) + ": node " +
                                    std::to_string(n + base) + " does not exist");
      mesh.elements.push_back(static_cast<std::int32_t>(n));
    }
    if (has_region) {
      const long attribute = std::lround(v[D + 2]);
      const auto [it, inserted] = region_index.emplace(attribute, static_cast<std::int32_t>(region_index.size()));
      mesh.regions.push_back(it->second);
    }
  }
  return mesh;
}

template <int D>
FemMesh<D> read_tetgen(const std::string& path_without_extension) {
  const std::string node_path = path_without_extension + ".node", ele_path = path_without_extension + ".ele";
  std::ifstream node(node_path), ele(ele_path);
  if (!node) throw std::invalid_argument(node_path + ": cannot open");
  if (!ele) throw std::invalid_argument(ele_path + ": cannot open");
  return read_tetgen<D>(node, ele, node_path, ele_path);
}

template <int D>
std::vector<std::array<std::int32_t, 3>> surface_triangles(Index, std::span<const std::int32_t> elements) {
  std::vector<std::array<std::int32_t, 3>> out;
  const std::size_t count = elements.size() / (D + 1);
  if constexpr (D == 2) {
    for (std::size_t e = 0; e < count; ++e) out.push_back({elements[3 * e], elements[3 * e + 1], elements[3 * e + 2]});
  } else {
    // A positively oriented tetrahedron (a, b, c, d) has outward faces (a, c, b), (a, b, d),
    // (a, d, c), (b, c, d); a face seen twice is interior.
    std::map<std::array<std::int32_t, 3>, std::pair<int, std::array<std::int32_t, 3>>> faces;
    for (std::size_t e = 0; e < count; ++e) {
      const std::int32_t* t = elements.data() + 4 * e;
      const std::array<std::array<std::int32_t, 3>, 4> local = {
          {{t[0], t[2], t[1]}, {t[0], t[1], t[3]}, {t[0], t[3], t[2]}, {t[1], t[2], t[3]}}};
      for (const auto& f : local) {
        std::array<std::int32_t, 3> key = f;
        std::sort(key.begin(), key.end());
        auto& entry = faces[key];
        ++entry.first;
        entry.second = f;
      }
    }
    for (const auto& entry : faces)
      if (entry.second.first == 1) out.push_back(entry.second.second);
  }
  return out;
}

template <int D>
void write_obj(std::ostream& out, std::span<const double> positions,
               std::span<const std::array<std::int32_t, 3>> triangles) {
  for (std::size_t n = 0; n < positions.size() / D; ++n) {
    out << 'v';
    for (int c = 0; c < 3; ++c) out << ' ' << (c < D ? positions[n * D + c] : 0.0);
    out << '\n';
  }
  for (const auto& t : triangles) out << "f " << t[0] + 1 << ' ' << t[1] + 1 << ' ' << t[2] + 1 << '\n';
}

template FemMesh<2> read_tetgen<2>(const std::string&);
template FemMesh<3> read_tetgen<3>(const std::string&);
template FemMesh<2> read_tetgen<2>(std::istream&, std::istream&, const std::string&, const std::string&);
template FemMesh<3> read_tetgen<3>(std::istream&, std::istream&, const std::string&, const std::string&);
template std::vector<std::array<std::int32_t, 3>> surface_triangles<2>(Index, std::span<const std::int32_t>);
template std::vector<std::array<std::int32_t, 3>> surface_triangles<3>(Index, std::span<const std::int32_t>);
template void write_obj<2>(std::ostream&, std::span<const double>, std::span<const std::array<std::int32_t, 3>>);
template void write_obj<3>(std::ostream&, std::span<const double>, std::span<const std::array<std::int32_t, 3>>);

}  // namespace simgrad::fem
