// The element bodies of simgrad's simulators as CUDA kernels.
//
// simgrad has no device backend yet (docs/gpu.md sets it out). What this file proves, by
// compiling in the test command, is that the physics written once for the host is already device
// code: the spring and FEM element bodies with their hand-written adjoints, their derived
// adjoints on the local reverse-mode scalar (ad::Var, recording to a per-thread FixedTape), the
// scatter through slot entries that keeps every result the host's bits, the epidemic's
// contact hazard and infection sampling with its counter-based draws, and the smoke's
// semi-Lagrangian trace with the stencil its adjoint scatters through. Every kernel below calls
// the host's own functions; none restates a law.
//
// Compiled with --fmad=false: the host never contracts a * b + c into one rounding, so neither
// may the device, or the bits would differ.
#include "core/rng.hpp"
#include "core/slot_entries.hpp"
#include "sims/contagion/hazard.hpp"
#include "sims/contagion/transition.hpp"
#include "sims/fem/force.hpp"
#include "sims/fluid/semi_lagrangian.hpp"
#include "sims/softbody/spring_force.hpp"

namespace simgrad::gpu {

// This thread's first index of a grid-stride loop, and the loop's stride.
__device__ inline Index first_index() { return static_cast<Index>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ inline Index grid_stride() { return static_cast<Index>(gridDim.x) * blockDim.x; }

// Each element runs `body` forward into its slot entries; `failed` is set (to 1, by every thread
// that fails alike) when an element misuses its view.
template <class Body>
__global__ void forward_elements(Body body, SlotIncidence incidence, EntryTable entries, int* failed) {
  for (Index e = first_index(); e < incidence.elements; e += grid_stride())
    if (!forward_element(body, incidence, entries, e)) *failed = 1;
}

// Each element runs the adjoint of `body` (hand-written where the body has one) into its own
// adjoints and its slot entries.
template <class Body>
__global__ void adjoint_elements(Body body, SlotIncidence incidence, EntryTable entries, int* failed) {
  for (Index e = first_index(); e < incidence.elements; e += grid_stride())
    if (!adjoint_element(body, incidence, entries, e)) *failed = 1;
}

// Each element runs the derived adjoint of `body` on its thread's tape.
template <class Body>
__global__ void derived_adjoint_elements(Body body, SlotIncidence incidence, EntryTable entries, int* failed) {
  for (Index e = first_index(); e < incidence.elements; e += grid_stride())
    if (!derived_adjoint_element(body, incidence, entries, e)) *failed = 1;
}

// Each node adds its slot entries to itself in slot order: the second half of every scatter.
__global__ void gather_nodes(SlotIncidence incidence, SlotEntries field, double* node_field, bool accumulate) {
  for (Index n = first_index(); n < incidence.node_count; n += grid_stride())
    gather_node(incidence, field, node_field, n, accumulate);
}

// The bodies whose device code the test command proves, in the dimensions the simulators use.
#define SIMGRAD_ELEMENT_KERNELS(Body)                                                                      \
  template __global__ void forward_elements<Body>(Body, SlotIncidence, EntryTable, int*);                  \
  template __global__ void adjoint_elements<Body>(Body, SlotIncidence, EntryTable, int*);                  \
  template __global__ void derived_adjoint_elements<Body>(Body, SlotIncidence, EntryTable, int*);
SIMGRAD_ELEMENT_KERNELS(softbody::SpringForce<2>)
SIMGRAD_ELEMENT_KERNELS(softbody::SpringForce<3>)
SIMGRAD_ELEMENT_KERNELS(fem::ElasticForce<2>)
SIMGRAD_ELEMENT_KERNELS(fem::ElasticForce<3>)
#undef SIMGRAD_ELEMENT_KERNELS

// What the epidemic's day needs of its model for the susceptible agents (contagion/epidemic.cpp).
struct InfectionDay {
  int day;
  std::uint64_t seed;
  double reproduction;             // R on this day
  double protect;                  // share protected by vaccination
  const double* susceptibility;    // per age group
  const double* mean_interactions; // per age group
  const std::uint8_t* age;         // per agent
  contagion::Sampler sampler;
  double temperature;
  bool straight_through;
};

// The contact network (CSR) and the day's shedding, as epidemic.cpp holds them.
struct ContactDay {
  const std::int64_t* offsets;
  const std::int32_t* neighbors;
  const std::uint8_t* layer;  // null with one layer
  const double* layer_weight;
  const double* shedding;
  const std::uint64_t* sheds;  // bit j: agent j sheds
};

// Each susceptible agent's hazard sum and infection for the day: x (susceptible occupancy) and
// tau as in epidemic.hpp; the infected occupancy goes to `infected`, the hazard to `hazard` (the
// adjoint's residual).
__global__ void infect_agents(InfectionDay d, ContactDay c, Index agents, const double* x, const double* tau,
                              double* x1, double* tau1, double* infected, double* hazard) {
  for (Index i = first_index(); i < agents; i += grid_stride()) {
    double z = 0.0, h = 0.0;
    x1[i] = x[i];
    tau1[i] = tau[i];
    if (tau[i] < 0.0) {
      h = contagion::contact_hazard(c.offsets[i], c.offsets[i + 1], c.neighbors, c.layer, c.layer_weight, c.shedding,
                                    c.sheds);
      if (h != 0.0) {
        const int a = d.age[i];
        const double k = d.reproduction * d.susceptibility[a] / d.mean_interactions[a];
        const contagion::Infection event = contagion::infection(
            k, h, d.protect,
            contagion::event_draw(d.seed, static_cast<std::uint64_t>(d.day), static_cast<std::uint64_t>(i),
                                  contagion::kInfectionDraw),
            d.sampler, d.temperature, d.straight_through);
        z = x[i] * event.value;
        x1[i] = x[i] - z;
        tau1[i] = event.hard > 0.0 ? d.day + 1.0 : -(d.day + 2.0);
      }
    }
    infected[i] = z;
    hazard[i] = h;
  }
}

// Semi-Lagrangian advection of q (on lattice l) by the velocity (u on ul, v on vl) over
// scale = dt / h, one sample per thread.
__global__ void semi_lagrangian(fluid::Lattice l, fluid::Lattice ul, fluid::Lattice vl, const double* q,
                                const double* u, const double* v, double scale, bool euler, double* out) {
  const Index samples = static_cast<Index>(l.cx) * l.cy;
  for (Index k = first_index(); k < samples; k += grid_stride()) {
    const int i = static_cast<int>(k % l.cx), j = static_cast<int>(k / l.cx);
    double x, y;
    fluid::trace_foot(ul, vl, l, u, v, scale, i, j, euler, x, y);
    out[k] = fluid::sample(l, x, y, q);
  }
}

// The first half of its adjoint with respect to q: each sample's adjoint times the weights of the
// stencil at its foot, as four (lattice point, value) entries; a gather per lattice point over
// the entries sorted by point finishes it (docs/gpu.md).
__global__ void semi_lagrangian_adjoint_entries(fluid::Lattice l, fluid::Lattice ul, fluid::Lattice vl,
                                                const double* u, const double* v, double scale, bool euler,
                                                const double* out_adjoint, Index* entry_point, double* entry_value) {
  const Index samples = static_cast<Index>(l.cx) * l.cy;
  for (Index k = first_index(); k < samples; k += grid_stride()) {
    const int i = static_cast<int>(k % l.cx), j = static_cast<int>(k / l.cx);
    double x, y;
    fluid::trace_foot(ul, vl, l, u, v, scale, i, j, euler, x, y);
    const fluid::Stencil s = fluid::stencil_at<true>(l, 1.0, x, y);
    for (int m = 0; m < 4; ++m) {
      entry_point[4 * k + m] = s.index[m];
      entry_value[4 * k + m] = s.weight[m] * out_adjoint[k];
    }
  }
}

}  // namespace simgrad::gpu
