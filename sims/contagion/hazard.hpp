// The hazard sum of a susceptible agent: the shedding of its contacts, weighted by their contact
// layer, summed in contact order over its row of the contact network (CSR), written once for
// the host and the device (core/portable.hpp).
#pragma once

#include <cstdint>

#include "core/portable.hpp"

namespace simgrad::contagion {

// Whether bit j of the mask `sheds` is set: agent j sheds today.
SIMGRAD_HD inline bool sheds_today(const std::uint64_t* sheds, std::int32_t j) { return (sheds[j >> 6] >> (j & 63)) & 1u; }

// Contacts [first, last) of `neighbors`; `sheds` has bit j set when agent j sheds (the terms of
// the others are +0.0 and would not change the sum: skipped). With `layer` null there is one
// layer, whose weight multiplies the sum once; otherwise each term is weighted by its layer's.
SIMGRAD_HD inline double contact_hazard(std::int64_t first, std::int64_t last, const std::int32_t* neighbors,
                                        const std::uint8_t* layer, const double* layer_weight, const double* shedding,
                                        const std::uint64_t* sheds) {
  double h = 0.0;
  if (layer == nullptr) {
    for (std::int64_t e = first; e < last; ++e) {
      const std::int32_t j = neighbors[e];
      if (sheds_today(sheds, j)) h += shedding[j];
    }
    return layer_weight[0] * h;
  }
  for (std::int64_t e = first; e < last; ++e) {
    const std::int32_t j = neighbors[e];
    if (sheds_today(sheds, j)) h += layer_weight[layer[e]] * shedding[j];
  }
  return h;
}

}  // namespace simgrad::contagion
