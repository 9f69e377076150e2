// Scenario files for 3D Eulerian smoke (simulator "fluid" with "cells": [nx, ny, nz]): the grid
// and its six sides, solid boxes, emitters and vents (3D centres, flows leaning out of the x-y
// plane by "tilt"), the pressure tolerance, a box-shaped region to fill and what may be tuned.
// Frames show the density projected along z (a side view, y up).
#pragma once

#include <memory>

#include "scenario/scenario.hpp"

namespace simgrad::scenario {

// Reads a 3D fluid scenario from the root of its file.
std::unique_ptr<Scenario> load_fluid3d_scenario(const ScenarioNode& root, const ScenarioOverrides& overrides);

}  // namespace simgrad::scenario
