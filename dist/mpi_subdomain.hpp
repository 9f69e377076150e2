#pragma once

// A split model's exchanges over MPI (core/subdomain.hpp says what they are).
//
// Ghost values go point to point, each process receiving from just the processes that own its
// ghosts and sending to just those that copy its elements (a network of local contacts cut into
// runs touches a few neighbours; random contacts touch every process); the lists of which
// elements are sent where are exchanged once, when the subdomain is made. A day's values are
// mostly zeros (agents that shed nothing), so a message carries the non-zero ones with their
// places when that is shorter. Group sums go by MPI_Allgatherv: every process
// needs every group's, and they are few (at most kMaxGroups rows of a few numbers).

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "core/subdomain.hpp"

namespace simgrad::dist {

#ifdef SIMGRAD_MPI
// This process's share of a model of `total` elements split over MPI_COMM_WORLD; `ghosts` as
// Splitter::subdomain takes them. Collective.
std::unique_ptr<Subdomain> make_mpi_subdomain(Index total, int rank, int size, std::vector<std::int64_t> ghosts);
// This process's slab of a grid of `rows` rows over MPI_COMM_WORLD (core/row_slabs.hpp): halo
// rows go point to point, straight from and into the fields' rows (no copies).
std::unique_ptr<RowSlabs> make_mpi_row_slabs(int rows, int band_rows, int rank, int size);

// A count as one MPI message's; throws std::length_error beyond what one carries.
int message_count(std::size_t count);
// Every process's `mine`, in rank order, into `all`, resized to their total length: the lengths
// first, then the values. `counts` and `displacements` are scratch, one entry per process.
// Returns the bytes this process sent. Collective.
std::size_t gather_every_process(std::span<const double> mine, std::vector<double>& all, std::vector<int>& counts,
                                 std::vector<int>& displacements);
#endif

}  // namespace simgrad::dist
