// The immutable description of a 2D smoke simulation and the quantities a designer tunes.
//
// Sources are emitters and vents alike: a smooth Gaussian footprint exp(-|x - c|^2 / r^2)
// (forcing.cpp: periodic axes measure the offset smoothly) around a centre c that need not sit on a cell, which adds smoke density and temperature at
// given rates and pulls the velocity towards (speed cos angle, speed sin angle) (fully at the
// centre, less further out). A vent is a source without smoke. Speed and angle follow
// piecewise-linear schedules with `knots` evenly spaced knots over the run.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "sims/fluid/advect.hpp"
#include "sims/fluid/grid.hpp"
#include "sims/fluid/pressure.hpp"

namespace simgrad::fluid {

// A tunable array and its adjoint.
struct Quantity {
  std::vector<double> value, adjoint;

  void resize(std::size_t n) {
    value.assign(n, 0.0);
    adjoint.assign(n, 0.0);
  }
  std::size_t size() const { return value.size(); }
};

struct SmokeSettings {
  double dt = 0.03;
  int steps = 100;
  double buoyancy = 0.0;   // upward acceleration per unit temperature
  double weight = 0.0;     // downward acceleration per unit smoke density
  double viscosity = 0.0;  // kinematic, explicit diffusion of velocity
  // How velocity is advected (semi-Lagrangian or MacCormack), and smoke density and temperature
  // (either of those, or conservative).
  AdvectionScheme velocity_advection = AdvectionScheme::kSemiLagrangian;
  AdvectionScheme carried_advection = AdvectionScheme::kSemiLagrangian;
  // Whether vorticity confinement acts (confinement.hpp); its strength is the model's
  // `confinement`, tunable, so it is on even at strength 0 when asked for.
  bool confinement = false;
  PressureSettings pressure;
};

struct SmokeModel {
  Grid grid;
  SmokeSettings settings;
  // Initial state: velocity on the faces (x-faces then y-faces), density and temperature per cell.
  Quantity initial_velocity, initial_density, initial_temperature;
  // Sources, one entry each (speed and angle: `knots` entries each, source-major).
  std::vector<std::string> source_names;
  int knots = 1;
  Quantity source_x, source_y, source_radius, density_rate, temperature_rate, speed, angle;
  // Vorticity confinement strength epsilon (one value).
  Quantity confinement;

  // Sets the grid and sizes the initial fields (zero); no sources.
  void reset(Grid g, SmokeSettings s);
  // Appends a source with constant schedules.
  void add_source(const std::string& name, double x, double y, double radius, double density, double temperature,
                  double source_speed, double source_angle);
  // Changes the number of schedule knots, holding each source's first value.
  void set_knots(int k);
  int source_count() const { return static_cast<int>(source_names.size()); }
  Index state_size() const { return grid.u_count() + grid.v_count() + 2 * grid.cells(); }
  // The value of source s's schedule `q` at step t, and the knot weights that make it.
  double scheduled(const Quantity& q, int s, int t, int& knot, double& fraction) const;
  // Zeroes every adjoint.
  void clear_adjoints();
  // Whether temperature is zero throughout and acts on nothing (no buoyancy, no hot source, none
  // at the start): then steps need not advect it, nor adjoints carry it back.
  bool temperature_inert() const;
};

// Views of a state's parts.
struct FieldsView {
  std::span<double> u, v, density, temperature;
};
struct ConstFieldsView {
  std::span<const double> u, v, density, temperature;
};
FieldsView fields_of(const Grid& g, std::span<double> state);
ConstFieldsView fields_of(const Grid& g, std::span<const double> state);

}  // namespace simgrad::fluid
