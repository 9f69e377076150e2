#include "core/row_slabs.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace simgrad {

RowRun slab_of(int rows, int band_rows, int processes, int process) {
  const int bands = (rows + band_rows - 1) / band_rows;
  if (processes > bands)
    throw std::invalid_argument("cannot split a grid of " + std::to_string(rows) + " rows over " +
                                std::to_string(processes) + " processes: they make " + std::to_string(bands) +
                                " band" + (bands == 1 ? "" : "s") + " of " + std::to_string(band_rows) +
                                " rows (a process holds whole bands); use at most " + std::to_string(bands) +
                                " processes");
  const int share = bands / processes, extra = bands % processes;
  const int b0 = process * share + std::min(process, extra);
  const int b1 = b0 + share + (process < extra ? 1 : 0);
  return {std::min(rows, b0 * band_rows), std::min(rows, b1 * band_rows)};
}

std::vector<HaloPiece> halo_pieces(std::span<const RowRun> slabs, int process, int below, int above, int field_rows,
                                   bool wrap) {
  const int rows = field_rows;
  const int last_process = static_cast<int>(slabs.size()) - 1;
  RowRun own = slabs[static_cast<std::size_t>(process)];
  if (process == last_process) own.last = rows;
  std::vector<char> wanted(static_cast<std::size_t>(rows), 0);
  const int reach_below = std::min(below, rows), reach_above = std::min(above, rows);
  for (int d = 1; d <= reach_below; ++d)
    if (wrap || own.first - d >= 0) wanted[static_cast<std::size_t>(((own.first - d) % rows + rows) % rows)] = 1;
  for (int d = 0; d < reach_above; ++d)
    if (wrap || own.last + d < rows) wanted[static_cast<std::size_t>((own.last + d) % rows)] = 1;
  std::vector<HaloPiece> pieces;
  std::size_t owner = 0;
  for (int row = 0; row < rows; ++row) {
    while (static_cast<int>(owner) < last_process && row >= slabs[owner].last) ++owner;
    if (!wanted[static_cast<std::size_t>(row)] || own.contains(row)) continue;
    if (!pieces.empty() && pieces.back().last == row && pieces.back().owner == static_cast<int>(owner)) ++pieces.back().last;
    else pieces.push_back({static_cast<int>(owner), row, row + 1});
  }
  return pieces;
}

RowRun rows_here(const RowSlabs* slabs, int field_rows) {
  return slabs ? slabs->own(field_rows) : RowRun{0, field_rows};
}

int RowSlabs::owner(int row, int field_rows) const {
  int p = 0;
  while (p + 1 < processes() && !slab(p, field_rows).contains(row)) ++p;
  return p;
}

RowSlabs::RowSlabs(int rows, int band_rows, int process, int processes)
    : rows_(rows), band_rows_(band_rows), process_(process) {
  for (int p = 0; p < processes; ++p) slabs_.push_back(slab_of(rows, band_rows, processes, p));
}

}  // namespace simgrad
