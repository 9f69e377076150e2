#include "report/vtk.hpp"

#include <cstdio>
#include <sstream>
#include <stdexcept>
#include <string>

#include "report/atomic_file.hpp"

namespace simgrad::report {

namespace {

// VTK's cell types (vtkCellType.h).
constexpr int kVertex = 1, kLine = 3, kTriangle = 5, kTetra = 10;

// The XML file's frame around its dataset.
std::string vtk_file(const char* type, const std::string& dataset_attributes, const std::string& body) {
  std::ostringstream out;
  out << "<?xml version=\"1.0\"?>\n<VTKFile type=\"" << type << "\" version=\"1.0\" byte_order=\"LittleEndian\">\n  <"
      << type << dataset_attributes << ">\n" << body << "  </" << type << ">\n</VTKFile>\n";
  return out.str();
}

// An ASCII DataArray.
template <class Values>
void data_array(std::ostringstream& out, const char* type, const std::string& name, int components, const Values& values) {
  out << "      <DataArray type=\"" << type << "\" Name=\"" << name << "\"";
  if (components > 1) out << " NumberOfComponents=\"" << components << "\"";
  out << " format=\"ascii\">\n       ";
  for (const auto& v : values) out << ' ' << v;
  out << "\n      </DataArray>\n";
}

std::string frame_name(const std::filesystem::path& pvd, int frame, const char* extension) {
  char number[16];
  std::snprintf(number, sizeof number, "_%04d", frame);
  return pvd.stem().string() + number + extension;
}

// The folder beside the .pvd, created; and the .pvd listing the frames, written last.
std::filesystem::path frame_folder(const std::filesystem::path& pvd) {
  if (pvd.extension() != ".pvd") throw std::invalid_argument(pvd.string() + ": a VTK series is a .pvd file");
  const std::filesystem::path folder = pvd.parent_path() / pvd.stem();
  std::filesystem::create_directories(folder);
  return folder;
}

void write_collection(const std::filesystem::path& pvd, const std::vector<double>& times, const char* extension) {
  std::ostringstream body;
  body.precision(17);
  for (std::size_t f = 0; f < times.size(); ++f)
    body << "    <DataSet timestep=\"" << times[f] << "\" part=\"0\" file=\"" << pvd.stem().string() << "/"
         << frame_name(pvd, static_cast<int>(f), extension) << "\"/>\n";
  write_file_atomically(pvd, vtk_file("Collection", "", body.str()));
}

}  // namespace

int write_vtk_series(const std::filesystem::path& pvd, const Animation& animation) {
  const std::filesystem::path folder = frame_folder(pvd);
  // The cells are the same in every frame.
  std::vector<Index> connectivity, offsets;
  std::vector<int> types;
  auto add_cells = [&](const auto& cells, int type) {
    for (const auto& cell : cells) {
      connectivity.insert(connectivity.end(), cell.begin(), cell.end());
      offsets.push_back(static_cast<Index>(connectivity.size()));
      types.push_back(type);
    }
  };
  add_cells(animation.tetrahedra, kTetra);
  add_cells(animation.triangles, kTriangle);
  add_cells(animation.lines, kLine);
  if (types.empty())
    for (Index i = 0; i < animation.point_count; ++i) add_cells(std::array<std::array<Index, 1>, 1>{{{i}}}, kVertex);
  std::ostringstream cells;
  cells << "      <Cells>\n";
  data_array(cells, "Int64", "connectivity", 1, connectivity);
  data_array(cells, "Int64", "offsets", 1, offsets);
  data_array(cells, "UInt8", "types", 1, types);
  cells << "      </Cells>\n";

  for (int f = 0; f < animation.frames(); ++f) {
    std::vector<double> points;
    for (Index i = 0; i < animation.point_count; ++i)
      for (double x : animation.point(f, i)) points.push_back(x);
    std::ostringstream piece;
    piece.precision(17);
    piece << "    <Piece NumberOfPoints=\"" << animation.point_count << "\" NumberOfCells=\"" << types.size() << "\">\n"
          << "     <Points>\n";
    data_array(piece, "Float64", "Points", 3, points);
    piece << "     </Points>\n" << cells.str() << "    </Piece>\n";
    write_file_atomically(folder / frame_name(pvd, f, ".vtu"), vtk_file("UnstructuredGrid", "", piece.str()));
  }
  write_collection(pvd, animation.times, ".vtu");
  return animation.frames();
}

int write_vtk_series(const std::filesystem::path& pvd, const GridAnimation& animation) {
  const std::filesystem::path folder = frame_folder(pvd);
  std::ostringstream extent, grid;
  extent << "0 " << animation.cells[0] << " 0 " << animation.cells[1] << " 0 " << animation.cells[2];
  grid.precision(17);
  grid << " WholeExtent=\"" << extent.str() << "\" Origin=\"" << animation.origin[0] << ' ' << animation.origin[1] << ' '
       << animation.origin[2] << "\" Spacing=\"" << animation.spacing << ' ' << animation.spacing << ' ' << animation.spacing
       << "\"";
  const std::size_t cells = static_cast<std::size_t>(animation.cell_count());
  for (int f = 0; f < animation.frames(); ++f) {
    std::ostringstream piece;
    piece.precision(17);
    piece << "    <Piece Extent=\"" << extent.str() << "\">\n     <CellData>\n";
    for (const auto& [name, values] : animation.fields) {
      const auto first = values.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(f) * cells);
      data_array(piece, "Float64", name, 1, std::vector<double>(first, first + static_cast<std::ptrdiff_t>(cells)));
    }
    piece << "     </CellData>\n    </Piece>\n";
    write_file_atomically(folder / frame_name(pvd, f, ".vti"), vtk_file("ImageData", grid.str(), piece.str()));
  }
  write_collection(pvd, animation.times, ".vti");
  return animation.frames();
}

}  // namespace simgrad::report
