// The report's view of an FEM body (simulator "fem"): the summary and the frames
// (Scenario::summary() and frames(), scenario/scenario.hpp) of its scenarios.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "core/system.hpp"
#include "sims/fem/fem.hpp"

namespace simgrad::report {

// {"dimension", "nodes", "elements", "regions", "mass"}.
template <int D>
nlohmann::json fem_summary(const fem::FemModel<D>& model);

// Where the frames also write the body's boundary surface as .obj files (step_000000.obj, ...):
// every `every`-th step into `folder`; an empty folder writes none.
struct SurfaceObj {
  std::string folder;
  int every = 1;
};

// Nodes and element edges every few steps of a run of the model's current values, edges
// coloured by strain; 3D bodies seen from the side (x, z).
template <int D>
nlohmann::json fem_frames(fem::Fem<D>& system, TrajectoryLoss& loss, int steps, const SurfaceObj& obj = {});

}  // namespace simgrad::report
