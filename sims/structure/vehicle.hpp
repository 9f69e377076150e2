// A vehicle crossing the deck as a sequence of load cases: one per position of its front axle,
// from the deck's start until its last axle has left the far end, each axle's load split between
// the two deck joints around it in proportion to where it stands. Distances along the deck are
// those of the given design; the splits stay fixed while joints are tuned.
#pragma once

#include <utility>
#include <vector>

#include "sims/structure/truss_model.hpp"

namespace simgrad::structure {

struct Vehicle {
  std::vector<int> deck;                       // joints the vehicle rolls over, in order
  std::vector<std::pair<double, double>> axles;  // (distance behind the front axle, load)
  int positions = 1;                           // 1: the front axle at midspan
  bool self_weight = true;                     // each case also carries the structure's weight
  int down_axis = 1;                           // loads act along minus this axis
  double gravity = 9.81;                       // for self-weight, along minus down_axis
};

// Distance along a path of joints at each of its joints (0 at the first).
std::vector<double> distances_along(const TrussModel& model, const Design& design, const std::vector<int>& path);

// Where distance s falls on a path with those distances: the segment's end index i (the load
// goes to path[i - 1] and path[i]) and the fraction t of the way along it.
std::pair<std::size_t, double> place_on_path(const std::vector<double>& along, double s);

// The vehicle's load cases, named "vehicle at <distance>".
std::vector<LoadCase> vehicle_load_cases(const TrussModel& model, const Design& design, const Vehicle& vehicle);

}  // namespace simgrad::structure
