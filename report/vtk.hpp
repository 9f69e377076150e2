// VTK XML files for ParaView: a time series (.pvd) of unstructured grids (.vtu: a body's points
// and cells, or particles) or of image data (.vti: fields on a regular grid).
//
// Series.pvd lists one file per frame, written to the folder Series/ beside it as
// Series_0000.vtu (or .vti) with the frame's time. Values are ASCII with 17 significant digits,
// so a reader gets the simulation's doubles back exactly. Every file is written atomically; the
// .pvd last, so a reader never sees it list a frame that is not there.
#pragma once

#include <filesystem>

#include "report/animation.hpp"

namespace simgrad::report {

// Writes the series of a body: points (3D; z = 0 for a 2D body) and its cells, tetrahedra
// (VTK_TETRA), triangles (VTK_TRIANGLE) and lines (VTK_LINE), or one VTK_VERTEX per point for
// a body without cells. Returns the number of frames written.
int write_vtk_series(const std::filesystem::path& pvd, const Animation& animation);

// Writes the series of a grid: each field as cell data. Returns the number of frames written.
int write_vtk_series(const std::filesystem::path& pvd, const GridAnimation& animation);

}  // namespace simgrad::report
