// Boundary vents: ducts in a side of the domain. A vent sets the normal velocity of the side's
// faces to (inflow speed) x w, w a smooth footprint along the side, so that its centre,
// width and speed are all differentiable and never snapped to cells:
//   w(s) = (tanh((d + W/2) / e) - tanh((d - W/2) / e)) / 2,   d = s - centre,
// a segment of width W whose edges soften over e = one cell; its integral along the side is W
// exactly, so the flux a vent drives is speed x W wherever it sits (sampled on the faces, to
// two parts in 10^4, less what the soft edges lose past the side's ends). In 3D the patch's footprint is the product of one such segment per tangent axis.
// Positive speeds blow into the domain, negative ones draw out; overlapping vents add.
//
// On a closed side the vents act after the walls are zeroed and before the pressure projection,
// which keeps wall faces as they are and counts them in each cell's divergence: the prescribed
// flux enters the Poisson problem's right-hand side. With an open side the pressure takes up
// any net inflow.
// In a fully closed domain the projection removes the right-hand side's mean over the fluid
// cells (pressure.hpp), so vents whose fluxes do not balance leave a uniform divergence of
// (net inflow) / (fluid volume): the smoke compresses or thins evenly instead of the solve
// failing, and gradients stay exact for that operator.
//
// On an open side (an exhaust fan in an open window) a face under the vents' summed footprint W
// is a blend: before the projection its velocity is W x (vent) + (1 - W) x (what the step gave
// it), and the projection scales its pressure-gradient correction by 1 - W (pressure.hpp), so
// after it the face carries W x (vent) + (1 - W) x (the open side's flow). Fully under a vent
// (W = 1) the face is a wall with a given flux, Neumann for the pressure; away from vents
// (W = 0) it stays open, p = 0 outside. The matrix's diagonal moves smoothly with W, so the
// vents' position and width enter the pressure solve itself: their adjoint adds
// -mu^T (dA/dW) p and the correction's own derivative (apply_boundary_vents_adjoint's replay).
// Vents on one open side must not overlap (W > 1 would make the matrix indefinite: refused at
// the rollout's start), nor should they cover every open face in full (the pressure would lose
// its reference and CG stall); the Jacobi pressure solver, whose unrolled sweeps have no such
// adjoint, is refused.
//
// An inflow vent may carry smoke and heat in: the cell inside each face gains dt x rate x w.
// Parameter adjoints sum over the boundary faces in a fixed order (the faces are few: one side).
#pragma once

#include <span>
#include <vector>

#include "sims/fluid/smoke_model.hpp"

namespace simgrad::fluid {

// A vent's footprint at coordinate s along one tangent axis (periodic axes measure the offset
// smoothly, as sources do), and its derivatives with respect to the centre and the width.
struct SegmentWeight {
  double w, dcentre, dwidth;
};
SegmentWeight segment_weight(double s, double centre, double width, double softness, bool periodic, double length);

// The inflow velocity, density and temperature of every vent at step t, in place.
void apply_boundary_vents(const SmokeModel& m, int t, FieldsView f);
void apply_boundary_vents(const SmokeModel3& m, int t, const Fields3View& f);

// What the adjoint of vents on open sides needs from the step it reverses. `record`: for each
// face of an open side with vents (sides in order, faces along each side), its velocity before
// the vents, then for each the pressure the projection found in the face's cell (the step
// writes it with record_open_vent_velocity and record_open_vent_pressure); `projected_adjoint`:
// the adjoint of the projected face velocities (flat, as the state stores them); `mu`: the
// adjoint solve's solution, per cell. Unread without vents on open sides.
struct OpenVentReplay {
  std::span<const double> record, projected_adjoint, mu;
};

// The number of faces on open sides with vents: a record holds two doubles for each.
Index open_vent_faces(const SmokeModel& m);
Index open_vent_faces(const SmokeModel3& m);
// Writes a record's first half from the face velocities (flat, as the state stores them).
void record_open_vent_velocity(const SmokeModel& m, std::span<const double> faces, std::span<double> record);
void record_open_vent_velocity(const SmokeModel3& m, std::span<const double> faces, std::span<double> record);
// Writes a record's second half from the projection's pressure (per cell).
void record_open_vent_pressure(const SmokeModel& m, std::span<const double> pressure, std::span<double> record);
void record_open_vent_pressure(const SmokeModel3& m, std::span<const double> pressure, std::span<double> record);

// The projection's per-face scales (flat, as the state stores velocities): 1 - W on the faces
// of open sides under vents, one elsewhere; left empty without vents on open sides.
void open_vent_face_scale(const SmokeModel& m, std::vector<double>& scale);
void open_vent_face_scale(const SmokeModel3& m, std::vector<double>& scale);

// What a smoke system keeps for vents on open sides: the projection's face scales, and for an
// adjoint without the step's record (a recomputed checkpoint segment) a replayed state and the
// record the replay writes.
struct OpenVentWork {
  std::vector<double> scale, replay, record;

  // Recomputes the scales for the vents' current footprints and sizes the buffers; true when
  // the projection must take the scales (there are, or were, vents on open sides). Throws
  // std::invalid_argument when such vents meet a solver other than conjugate gradients or
  // overlap (their footprints summing to more than one).
  bool refresh(const SmokeModel& m);
  bool refresh(const SmokeModel3& m);
  bool active() const { return !scale.empty(); }
  // What the adjoint of a step needs (nothing without vents on open sides): the step's record
  // (`residual`), or, when a recomputed checkpoint segment kept none, the record that
  // rerun(next, record) writes by replaying the step; with the projected velocities' adjoint and
  // the adjoint solve's pressure.
  template <class Rerun>
  OpenVentReplay for_adjoint(std::span<const double> residual, std::span<const double> projected_adjoint,
                             std::span<const double> mu, const Rerun& rerun) {
    if (!active()) return {};
    if (residual.empty()) rerun(std::span<double>(replay), std::span<double>(record));
    return {residual.empty() ? std::span<const double>(record) : residual, projected_adjoint, mu};
  }
  // The doubles of a step's record (0 without vents on open sides).
  Index record_size() const { return static_cast<Index>(record.size()); }
};

// The adjoint of apply_boundary_vents (closed sides' faces start from zero; open sides' from
// the recorded velocity), including the vents' share of the projection that follows on open sides:
// maps `a` in place and accumulates the vents' parameter adjoints in the model.
void apply_boundary_vents_adjoint(SmokeModel& m, int t, FieldsView a, const OpenVentReplay& replay = {});
void apply_boundary_vents_adjoint(SmokeModel3& m, int t, const Fields3View& a, const OpenVentReplay& replay = {});

// The net volume flux into the domain through the vents at step t (m^2/s in 2D, m^3/s in 3D),
// summed over the faces: zero for vents that balance.
double net_vent_inflow(const SmokeModel& m, int t);
double net_vent_inflow(const SmokeModel3& m, int t);

}  // namespace simgrad::fluid
