// The car body's loads: how weight and downforce split between the axles, with the static
// split from the centre-of-mass position and the dynamic transfer from its height.
#pragma once

namespace simgrad::vehicle {

template <class S>
struct AxleLoads {
  S front, rear;
};

// Axle loads of a car of mass m with its centre of mass lf behind the front axle and lr ahead
// of the rear one, at height h, accelerating at ax: static m g lr / L and m g lf / L, minus /
// plus the transfer m ax h / L, plus downforce split like the weight.
template <class S>
AxleLoads<S> axle_loads(const S& m, double gravity, const S& lf, const S& lr, const S& h, const S& ax,
                        const S& downforce) {
  const S length = lf + lr;
  const S transfer = m * ax * h / length;
  const S weight = m * gravity + downforce;
  return {weight * lr / length - transfer, weight * lf / length + transfer};
}

}  // namespace simgrad::vehicle
