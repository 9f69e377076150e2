// Views of a smoke state in D dimensions: the face velocities axis by axis (the component along
// axis a lives on the faces normal to a), then smoke density and temperature per cell, in that
// order and contiguous, as the state stores them. 2D and 3D code share these shapes, so the
// smoke system (smoke.hpp) is written once over the dimension.
#pragma once

#include <array>
#include <span>

namespace simgrad::fluid {

// The face components of a velocity field (or of its adjoint).
template <int D>
using Velocity = std::array<std::span<double>, D>;
template <int D>
using ConstVelocity = std::array<std::span<const double>, D>;
using Velocity3 = Velocity<3>;
using ConstVelocity3 = ConstVelocity<3>;

// The parts of a state, T double or const double.
template <class T, int D>
struct FieldsOf {
  std::array<std::span<T>, D> velocity;
  std::span<T> density, temperature;
};
using FieldsView = FieldsOf<double, 2>;
using ConstFieldsView = FieldsOf<const double, 2>;
using Fields3View = FieldsOf<double, 3>;
using ConstFields3View = FieldsOf<const double, 3>;

}  // namespace simgrad::fluid
