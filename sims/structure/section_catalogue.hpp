// A member's section and material as the physics reads them, from the design: a sized member's
// area (its second moment and section modulus scaled with it), or a catalogue member's discrete
// choice relaxed into a softmax mixture of the entries during tuning, with its hard twin (the
// most likely entry) for the report.
#pragma once

#include <cmath>
#include <cstddef>
#include <vector>

#include "core/local_ad.hpp"
#include "sims/structure/truss_model.hpp"

namespace simgrad::structure {

template <class S>
struct MemberProperties {
  S area, inertia, modulus, young, yield, density, price;
};

// The softmax weights of logits / temperature; temperature <= 0 gives the one-hot argmax (the
// hard twin; ties go to the first entry).
template <class S>
void catalogue_weights(const S* logits, std::size_t n, double temperature, S* weights) {
  using std::exp;
  std::size_t best = 0;
  for (std::size_t k = 1; k < n; ++k)
    if (value_of(logits[k]) > value_of(logits[best])) best = k;
  if (temperature <= 0.0) {
    for (std::size_t k = 0; k < n; ++k) weights[k] = S(k == best ? 1.0 : 0.0);
    return;
  }
  S total = S(0.0);
  for (std::size_t k = 0; k < n; ++k) {
    weights[k] = exp((logits[k] - value_of(logits[best])) / temperature);
    total = total + weights[k];
  }
  for (std::size_t k = 0; k < n; ++k) weights[k] = weights[k] / total;
}

// The index of the largest logit: the entry a catalogue member snaps to.
inline int chosen_entry(const double* logits, std::size_t n) {
  std::size_t best = 0;
  for (std::size_t k = 1; k < n; ++k)
    if (logits[k] > logits[best]) best = k;
  return static_cast<int>(best);
}

// Properties of a sized member of area `area`: I ~ A^2 and S ~ A^1.5 keep the shape.
template <class S>
MemberProperties<S> sized_properties(const Member& member, const Material& material, const S& area) {
  using std::pow;
  using std::sqrt;
  const S scale = area / member.section.area;
  return {area,
          member.section.inertia * scale * scale,
          member.section.modulus * scale * sqrt(scale),
          S(material.young),
          S(material.yield),
          S(material.density),
          S(material.price)};
}

// Properties of a catalogue member: every property mixed by the entries' weights.
template <class S>
MemberProperties<S> catalogue_properties(const TrussModel& model, const S* logits, double temperature) {
  const std::size_t n = model.catalogue.size();
  std::vector<S> w(n);
  catalogue_weights(logits, n, temperature, w.data());
  MemberProperties<S> p{S(0.0), S(0.0), S(0.0), S(0.0), S(0.0), S(0.0), S(0.0)};
  for (std::size_t k = 0; k < n; ++k) {
    const CatalogueEntry& e = model.catalogue[k];
    const Material& m = model.materials[static_cast<std::size_t>(e.material)];
    p.area = p.area + w[k] * e.section.area;
    p.inertia = p.inertia + w[k] * e.section.inertia;
    p.modulus = p.modulus + w[k] * e.section.modulus;
    p.young = p.young + w[k] * m.young;
    p.yield = p.yield + w[k] * m.yield;
    p.density = p.density + w[k] * m.density;
    p.price = p.price + w[k] * m.price;
  }
  return p;
}

// A member's properties from the design: `area` for a sized member, its logits for a catalogue
// member; `hard` snaps catalogue members to their chosen entry.
template <class S>
MemberProperties<S> member_properties(const TrussModel& model, const Member& member, const S& area,
                                      const S* logits, bool hard) {
  if (member.catalogue < 0)
    return sized_properties(member, model.materials[static_cast<std::size_t>(member.material)], area);
  return catalogue_properties(model, logits, hard ? 0.0 : model.rating.catalogue_temperature);
}

}  // namespace simgrad::structure
