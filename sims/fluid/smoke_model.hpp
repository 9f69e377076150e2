// The immutable description of a 2D or 3D smoke simulation and the quantities a designer tunes.
//
// Sources are emitters and vents alike: a smooth Gaussian footprint exp(-|x - c|^2 / r^2)
// (forcing.cpp: periodic axes measure the offset smoothly) around a centre c that need not sit on a cell, which adds smoke density and temperature at
// given rates and pulls the velocity towards (speed cos angle, speed sin angle) (fully at the
// centre, less further out). A vent is a source without smoke. Speed and angle follow
// piecewise-linear schedules with `knots` evenly spaced knots over the run. In 3D the centre has
// a z too, and the flow leans out of the x-y plane by `tilt` towards +z:
// speed (cos tilt cos angle, cos tilt sin angle, sin tilt); 2D models keep z and tilt at zero.
//
// Boundary vents (boundary_vent.hpp) sit on a closed or open side of the domain and set the normal
// velocity of its faces over a smooth segment (2D) or patch (3D): a centre and a width along
// each of the side's tangent axes, an inflow speed on the same schedule knots, and the smoke
// and heat the inflow carries in.
#pragma once

#include <array>
#include <span>
#include <string>
#include <vector>

#include "core/field.hpp"
#include "sims/fluid/advect.hpp"
#include "sims/fluid/fields.hpp"
#include "sims/fluid/grid.hpp"
#include "sims/fluid/grid3d.hpp"
#include "sims/fluid/pressure.hpp"

namespace simgrad::fluid {

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
  // How semi-Lagrangian and MacCormack traces step back (2D only).
  Backtrace backtrace = Backtrace::kMidpoint;
  // Whether vorticity confinement acts (confinement.hpp); its strength is the model's
  // `confinement`, tunable, so it is on even at strength 0 when asked for.
  bool confinement = false;
  PressureSettings pressure;
};

// G: Grid (2D) or Grid3.
template <class G>
struct SmokeModelOf {
  G grid;
  SmokeSettings settings;
  // Initial state: velocity on the faces (axis by axis), density and temperature per cell. Every
  // tunable array is differentiable (its adjoints exist) from reset on.
  Array<1> initial_velocity, initial_density, initial_temperature;
  // Sources, one entry each (speed, angle and tilt: `knots` entries each, source-major).
  std::vector<std::string> source_names;
  int knots = 1;
  Array<1> source_x, source_y, source_z, source_radius, density_rate, temperature_rate, speed, angle, tilt;
  // Vorticity confinement strength epsilon (one value; 2D only).
  Array<1> confinement;
  // Boundary vents, one entry each (vent_speed: `knots` entries each, vent-major); the side
  // index counts as Grid's and Grid3's sides do; position and width along the side's first
  // tangent axis, and in 3D its second one (position2, width2).
  std::vector<std::string> vent_names;
  std::vector<int> vent_sides;
  Array<1> vent_position, vent_position2, vent_width, vent_width2, vent_speed, vent_density_rate, vent_temperature_rate;

  // Sets the grid and sizes the initial fields (zero); no sources.
  void reset(G g, SmokeSettings s);
  // Appends a source with constant schedules (z and tilt zero).
  void add_source(const std::string& name, double x, double y, double radius, double density, double temperature,
                  double source_speed, double source_angle);
  // Appends a source at a 3D centre whose flow leans by `source_tilt` towards +z.
  void add_source(const std::string& name, const std::array<double, 3>& at, double radius, double density,
                  double temperature, double source_speed, double source_angle, double source_tilt);
  // Appends a boundary vent on a closed or open side with a constant inflow `vent_speed` (m/s,
  // negative: outflow); `at` and `width` along the side's tangent axes (the second entries in 3D
  // only). Throws std::invalid_argument for a periodic side or a width that is not positive.
  void add_boundary_vent(const std::string& name, int side, const std::array<double, 2>& at,
                         const std::array<double, 2>& width, double inflow_speed, double density, double temperature);
  int vent_count() const { return static_cast<int>(vent_names.size()); }
  // Changes the number of schedule knots, holding each source's and vent's first value.
  void set_knots(int k);
  int source_count() const { return static_cast<int>(source_names.size()); }
  Index state_size() const { return grid.face_count() + 2 * grid.cells(); }
  // The value of source s's schedule `q` at step t, and the knot weights that make it.
  double scheduled(const Array<1>& q, int s, int t, int& knot, double& fraction) const;
  // Zeroes every adjoint.
  void clear_adjoints();
  // Whether temperature is zero throughout and acts on nothing (no buoyancy, no hot source, none
  // at the start): then steps need not advect it, nor adjoints carry it back.
  bool temperature_inert() const;
};

using SmokeModel = SmokeModelOf<Grid>;
using SmokeModel3 = SmokeModelOf<Grid3>;

// The velocity part of a state on grid g, or of a copy of its faces: the faces normal to each
// axis in turn.
template <class G, class T>
std::array<std::span<T>, G::kDimension> velocity_of(const G& g, std::span<T> faces) {
  std::array<std::span<T>, G::kDimension> v;
  std::size_t at = 0;
  for (std::size_t a = 0; a < v.size(); ++a) {
    const std::size_t n = static_cast<std::size_t>(g.face_count(static_cast<int>(a)));
    v[a] = faces.subspan(at, n);
    at += n;
  }
  return v;
}

// The views of a state's parts on grid g (fields.hpp).
FieldsView fields_of(const Grid& g, std::span<double> state);
ConstFieldsView fields_of(const Grid& g, std::span<const double> state);
Fields3View fields_of(const Grid3& g, std::span<double> state);
ConstFields3View fields_of(const Grid3& g, std::span<const double> state);

}  // namespace simgrad::fluid
