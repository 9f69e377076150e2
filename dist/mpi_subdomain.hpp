#pragma once

// A split model's exchanges over MPI (core/subdomain.hpp says what they are).
//
// Ghost values go point to point, each process receiving from just the processes that own its
// ghosts and sending to just those that copy its elements (a contact network cut into slabs
// touches a few neighbours, not everyone); the lists of which elements are sent where are
// exchanged once, when the subdomain is made. Group sums go by MPI_Allgatherv: every process
// needs every group's, and they are few (at most kMaxGroups rows of a few numbers).

#include <cstdint>
#include <memory>
#include <vector>

#include "core/subdomain.hpp"

namespace simgrad::dist {

#ifdef SIMGRAD_MPI
// This process's share of a model of `total` elements split over MPI_COMM_WORLD; `ghosts` as
// Splitter::subdomain takes them. Collective.
std::unique_ptr<Subdomain> make_mpi_subdomain(Index total, int rank, int size, std::vector<std::int64_t> ghosts);
#endif

}  // namespace simgrad::dist
