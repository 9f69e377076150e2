#include "sims/fluid/boundary_vent.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "sims/fluid/source_footprint.hpp"

namespace simgrad::fluid {

SegmentWeight segment_weight(double s, double centre, double width, double softness, bool periodic, double length) {
  double d, dd_dc;
  axis_offset(s - centre, periodic, length, d, dd_dc);
  const double ta = std::tanh((d + 0.5 * width) / softness), tb = std::tanh((d - 0.5 * width) / softness);
  const double sa = 1.0 - ta * ta, sb = 1.0 - tb * tb;
  return {0.5 * (ta - tb), 0.5 * (sa - sb) / softness * dd_dc, 0.25 * (sa + sb) / softness};
}

namespace {

// The width of a footprint's soft edges, in cells: wide enough that sampling it on the faces
// keeps the flux at speed x width to two parts in 10^4, narrow enough that a vent reads as a duct.
constexpr double kSoftnessCells = 1.0;

// A face on a side of the domain: its index among the faces normal to the side, the cell inside
// it, and its centre's coordinates along the side's tangent axes (the second one 3D only).
struct BoundaryFace {
  Index face, cell;
  double s[2];
};

// How a side lies: the sign that turns an inflow speed into the face velocity, and whether each
// tangent axis wraps and how long it is (`patch`: a second tangent axis, 3D).
struct SideFrame {
  double sign;
  bool patch;
  bool periodic[2];
  double length[2];
};

// How side `side` of a 2D grid lies (one tangent axis).
SideFrame frame_of(const Grid& g, int side) {
  const bool along_x = side / 2 == 0;  // a left or right side runs along y
  return {side % 2 == 0 ? 1.0 : -1.0,
          false,
          {along_x ? g.periodic_y() : g.periodic_x(), false},
          {along_x ? g.height() : g.width(), 1.0}};
}

// The tangent axes of the sides normal to axis a, in increasing order.
std::array<int, 2> tangent_axes(int a) {
  if (a == 0) return {1, 2};
  if (a == 1) return {0, 2};
  return {0, 1};
}

// How side `side` of a 3D grid lies (two tangent axes).
SideFrame frame_of(const Grid3& g, int side) {
  const std::array<int, 2> t = tangent_axes(side / 2);
  return {side % 2 == 0 ? 1.0 : -1.0, true, {g.periodic(t[0]), g.periodic(t[1])}, {g.extent(t[0]), g.extent(t[1])}};
}

// Calls f(face) for the faces of one side of a 2D grid, along the side in order.
template <class F>
void for_each_boundary_face(const Grid& g, int side, const F& f) {
  const bool high = side % 2 == 1;
  const double h = g.h();
  if (side / 2 == 0) {
    const int i = high ? g.u_columns() - 1 : 0, ci = high ? g.nx() - 1 : 0;
    for (int j = 0; j < g.ny(); ++j) f(BoundaryFace{g.u_face(i, j), g.cell(ci, j), {(j + 0.5) * h, 0.0}});
  } else {
    const int j = high ? g.v_rows() - 1 : 0, cj = high ? g.ny() - 1 : 0;
    for (int i = 0; i < g.nx(); ++i) f(BoundaryFace{g.v_face(i, j), g.cell(i, cj), {(i + 0.5) * h, 0.0}});
  }
}

// Calls f(face) for the faces of one side of a 3D grid, first tangent axis fastest.
template <class F>
void for_each_boundary_face(const Grid3& g, int side, const F& f) {
  const int a = side / 2;
  const bool high = side % 2 == 1;
  const std::array<int, 2> t = tangent_axes(a);
  const Lattice3 faces = g.face_lattice(a);
  const std::size_t as = static_cast<std::size_t>(a), t0 = static_cast<std::size_t>(t[0]), t1 = static_cast<std::size_t>(t[1]);
  for (int q = 0; q < g.n(t[1]); ++q)
    for (int p = 0; p < g.n(t[0]); ++p) {
      std::array<int, 3> ijk{};
      ijk[t0] = p;
      ijk[t1] = q;
      ijk[as] = high ? g.n(a) : 0;
      const Index face = faces.index(ijk[0], ijk[1], ijk[2]);
      ijk[as] = high ? g.n(a) - 1 : 0;
      f(BoundaryFace{face, g.cell(ijk[0], ijk[1], ijk[2]), {(p + 0.5) * g.h(), (q + 0.5) * g.h()}});
    }
}

// Where the faces normal to `axis` start among all faces (as the state stores them).
template <class G>
Index face_offset(const G& g, int axis) {
  Index at = 0;
  for (int a = 0; a < axis; ++a) at += g.face_count(a);
  return at;
}

// A vent's footprint at a boundary face and its derivatives with respect to the vent's centre
// and width along each tangent axis.
struct VentWeight {
  double w;
  double dcentre[2], dwidth[2];
};

template <class Model>
VentWeight vent_weight(const Model& m, const SideFrame& frame, std::size_t v, const BoundaryFace& b) {
  const double e = kSoftnessCells * m.grid.h();
  const SegmentWeight x =
      segment_weight(b.s[0], m.vent_position.values()[v], m.vent_width.values()[v], e, frame.periodic[0], frame.length[0]);
  if (!frame.patch) return {x.w, {x.dcentre, 0.0}, {x.dwidth, 0.0}};
  const SegmentWeight y =
      segment_weight(b.s[1], m.vent_position2.values()[v], m.vent_width2.values()[v], e, frame.periodic[1], frame.length[1]);
  return {x.w * y.w, {x.dcentre * y.w, x.w * y.dcentre}, {x.dwidth * y.w, x.w * y.dwidth}};
}

// The number of sides of the model's domain.
template <class Model>
constexpr int side_count() {
  return std::is_same_v<Model, SmokeModel3> ? 6 : 4;
}

// Calls f(side, frame, face) for every boundary face outside solids of every side with a vent.
template <class Model, class F>
void for_each_vent_face(const Model& m, const F& f) {
  for (int side = 0; side < side_count<Model>(); ++side) {
    bool vented = false;
    for (int s : m.vent_sides) vented = vented || s == side;
    if (!vented) continue;
    const SideFrame frame = frame_of(m.grid, side);
    for_each_boundary_face(m.grid, side, [&](const BoundaryFace& b) {
      if (!m.grid.solid(b.cell)) f(side, frame, b);
    });
  }
}

// apply_boundary_vents for either grid.
template <class Model, class View>
void vents_forward(const Model& m, int t, const View& f) {
  const double dt = m.settings.dt;
  const std::span<const double> density_rate = m.vent_density_rate.values(), temperature_rate = m.vent_temperature_rate.values();
  for_each_vent_face(m, [&](int side, const SideFrame& frame, const BoundaryFace& b) {
    double weight_sum = 0.0, push = 0.0, density = 0.0, temperature = 0.0;
    for (std::size_t v = 0; v < m.vent_sides.size(); ++v) {
      if (m.vent_sides[v] != side) continue;
      const double w = vent_weight(m, frame, v, b).w;
      int knot;
      double fraction;
      weight_sum += w;
      push += w * frame.sign * m.scheduled(m.vent_speed, static_cast<int>(v), t, knot, fraction);
      density += w * density_rate[v];
      temperature += w * temperature_rate[v];
    }
    double& q = f.velocity[static_cast<std::size_t>(side / 2)][static_cast<std::size_t>(b.face)];
    q = (1.0 - weight_sum) * q + push;
    f.density[static_cast<std::size_t>(b.cell)] += dt * density;
    f.temperature[static_cast<std::size_t>(b.cell)] += dt * temperature;
  });
}

// The summed footprint of the vents on `side` at a boundary face.
template <class Model>
double weight_sum_at(const Model& m, int side, const SideFrame& frame, const BoundaryFace& b) {
  double sum = 0.0;
  for (std::size_t v = 0; v < m.vent_sides.size(); ++v)
    if (m.vent_sides[v] == side) sum += vent_weight(m, frame, v, b).w;
  return sum;
}

// Whether some vent sits on an open side.
template <class Model>
bool any_open_vent(const Model& m) {
  for (int s : m.vent_sides)
    if (m.grid.side(s) == Side::kOpen) return true;
  return false;
}

// open_vent_face_scale for either grid.
template <class Model>
void face_scale(const Model& m, std::vector<double>& scale) {
  scale.clear();
  if (!any_open_vent(m)) return;
  scale.assign(static_cast<std::size_t>(m.grid.face_count()), 1.0);
  for_each_vent_face(m, [&](int side, const SideFrame& frame, const BoundaryFace& b) {
    if (m.grid.side(side) != Side::kOpen) return;
    scale[static_cast<std::size_t>(face_offset(m.grid, side / 2) + b.face)] = 1.0 - weight_sum_at(m, side, frame, b);
  });
}

// apply_boundary_vents_adjoint for either grid.
template <class Model, class View>
void vents_adjoint(Model& m, int t, const View& a, const OpenVentReplay& replay) {
  const double dt = m.settings.dt;
  const std::span<const double> density_rate = m.vent_density_rate.values(), temperature_rate = m.vent_temperature_rate.values();
  const std::span<double> density_rate_adjoint = m.vent_density_rate.adjoints(),
                          temperature_rate_adjoint = m.vent_temperature_rate.adjoints();
  const std::span<double> position_adjoint = m.vent_position.adjoints(), width_adjoint = m.vent_width.adjoints(),
                          position2_adjoint = m.vent_position2.adjoints(), width2_adjoint = m.vent_width2.adjoints();
  std::size_t open_face = 0;  // the face's entry in the record
  for_each_vent_face(m, [&](int side, const SideFrame& frame, const BoundaryFace& b) {
    double& aq = a.velocity[static_cast<std::size_t>(side / 2)][static_cast<std::size_t>(b.face)];
    const double ad = a.density[static_cast<std::size_t>(b.cell)], at = a.temperature[static_cast<std::size_t>(b.cell)];
    // On an open side w also scales the face's velocity before the vents (by 1 - W) and the
    // projection's correction, g = 1 - W: dL/dg = mu_c p_c (the matrix's diagonal) minus the
    // projected adjoint times the face's pressure gradient (sign p_c / h, p = 0 outside).
    const bool open = m.grid.side(side) == Side::kOpen;
    double dw_open = 0.0;
    if (open) {
      const std::size_t flat = static_cast<std::size_t>(face_offset(m.grid, side / 2) + b.face);
      const double before = replay.record[open_face], p = replay.record[open_face + replay.record.size() / 2];
      const double gradient = frame.sign * p / m.grid.h();
      dw_open = -before * aq - (replay.mu[static_cast<std::size_t>(b.cell)] * p - replay.projected_adjoint[flat] * gradient);
      ++open_face;
    }
    double weight_sum = 0.0;
    for (std::size_t v = 0; v < m.vent_sides.size(); ++v) {
      if (m.vent_sides[v] != side) continue;
      const VentWeight vw = vent_weight(m, frame, v, b);
      int knot;
      double fraction;
      const double speed = m.scheduled(m.vent_speed, static_cast<int>(v), t, knot, fraction);
      const double rate_d = density_rate[v], rate_t = temperature_rate[v];
      weight_sum += vw.w;
      add_to_knots(m.vent_speed, m, static_cast<int>(v), knot, fraction, vw.w * frame.sign * aq);
      density_rate_adjoint[v] += dt * vw.w * ad;
      temperature_rate_adjoint[v] += dt * vw.w * at;
      // A closed side's face started from zero (after the walls), so there w enters only as push.
      double dw = frame.sign * speed * aq + dt * (rate_d * ad + rate_t * at);
      if (open) dw += dw_open;
      position_adjoint[v] += dw * vw.dcentre[0];
      width_adjoint[v] += dw * vw.dwidth[0];
      position2_adjoint[v] += dw * vw.dcentre[1];
      width2_adjoint[v] += dw * vw.dwidth[1];
    }
    aq *= 1.0 - weight_sum;
  });
}

// net_vent_inflow for either grid.
template <class Model>
double net_inflow(const Model& m, int t) {
  const double area = std::is_same_v<Model, SmokeModel3> ? m.grid.h() * m.grid.h() : m.grid.h();
  double sum = 0.0;
  for_each_vent_face(m, [&](int side, const SideFrame& frame, const BoundaryFace& b) {
    for (std::size_t v = 0; v < m.vent_sides.size(); ++v) {
      if (m.vent_sides[v] != side) continue;
      int knot;
      double fraction;
      sum += vent_weight(m, frame, v, b).w * m.scheduled(m.vent_speed, static_cast<int>(v), t, knot, fraction) * area;
    }
  });
  return sum;
}

// Calls f(face, k) for the k-th face of the open sides with vents.
template <class Model, class F>
void for_each_open_vent_face(const Model& m, const F& f) {
  std::size_t k = 0;
  for_each_vent_face(m, [&](int side, const SideFrame&, const BoundaryFace& b) {
    if (m.grid.side(side) == Side::kOpen) f(side, b, k++);
  });
}

// open_vent_faces for either grid.
template <class Model>
Index count_open_faces(const Model& m) {
  Index n = 0;
  for_each_open_vent_face(m, [&](int, const BoundaryFace&, std::size_t) { ++n; });
  return n;
}

// OpenVentWork::refresh for either grid.
template <class Model>
bool refresh_work(const Model& m, OpenVentWork& work) {
  const bool was_active = work.active();
  face_scale(m, work.scale);
  if (!work.active()) {
    work.record.clear();
    return was_active;
  }
  if (m.settings.pressure.solver != PressureSolver::kConjugateGradient)
    throw std::invalid_argument("boundary vents on open sides need the conjugate-gradient pressure solver");
  // Overlapping vents (W > 1) would make the pressure matrix indefinite: refused by name.
  for_each_open_vent_face(m, [&](int side, const BoundaryFace& b, std::size_t) {
    if (work.scale[static_cast<std::size_t>(face_offset(m.grid, side / 2) + b.face)] < 0.0)
      throw std::invalid_argument("boundary vents overlap on open side " + std::to_string(side) +
                                  ": their footprints sum to more than one at a face");
  });
  work.replay.resize(static_cast<std::size_t>(m.state_size()));
  work.record.resize(static_cast<std::size_t>(2 * count_open_faces(m)));
  return true;
}

// record_open_vent_velocity for either grid.
template <class Model>
void record_velocity(const Model& m, std::span<const double> faces, std::span<double> record) {
  for_each_open_vent_face(m, [&](int side, const BoundaryFace& b, std::size_t k) {
    record[k] = faces[static_cast<std::size_t>(face_offset(m.grid, side / 2) + b.face)];
  });
}

// record_open_vent_pressure for either grid.
template <class Model>
void record_pressure(const Model& m, std::span<const double> pressure, std::span<double> record) {
  const std::size_t half = record.size() / 2;
  for_each_open_vent_face(m, [&](int, const BoundaryFace& b, std::size_t k) {
    record[half + k] = pressure[static_cast<std::size_t>(b.cell)];
  });
}

}  // namespace

bool OpenVentWork::refresh(const SmokeModel& m) { return refresh_work(m, *this); }
bool OpenVentWork::refresh(const SmokeModel3& m) { return refresh_work(m, *this); }
Index open_vent_faces(const SmokeModel& m) { return count_open_faces(m); }
Index open_vent_faces(const SmokeModel3& m) { return count_open_faces(m); }
void record_open_vent_velocity(const SmokeModel& m, std::span<const double> faces, std::span<double> record) {
  record_velocity(m, faces, record);
}
void record_open_vent_velocity(const SmokeModel3& m, std::span<const double> faces, std::span<double> record) {
  record_velocity(m, faces, record);
}
void record_open_vent_pressure(const SmokeModel& m, std::span<const double> pressure, std::span<double> record) {
  record_pressure(m, pressure, record);
}
void record_open_vent_pressure(const SmokeModel3& m, std::span<const double> pressure, std::span<double> record) {
  record_pressure(m, pressure, record);
}

void apply_boundary_vents(const SmokeModel& m, int t, FieldsView f) { vents_forward(m, t, f); }
void apply_boundary_vents(const SmokeModel3& m, int t, const Fields3View& f) { vents_forward(m, t, f); }
void apply_boundary_vents_adjoint(SmokeModel& m, int t, FieldsView a, const OpenVentReplay& replay) {
  vents_adjoint(m, t, a, replay);
}
void apply_boundary_vents_adjoint(SmokeModel3& m, int t, const Fields3View& a, const OpenVentReplay& replay) {
  vents_adjoint(m, t, a, replay);
}
void open_vent_face_scale(const SmokeModel& m, std::vector<double>& scale) { face_scale(m, scale); }
void open_vent_face_scale(const SmokeModel3& m, std::vector<double>& scale) { face_scale(m, scale); }
double net_vent_inflow(const SmokeModel& m, int t) { return net_inflow(m, t); }
double net_vent_inflow(const SmokeModel3& m, int t) { return net_inflow(m, t); }

}  // namespace simgrad::fluid
