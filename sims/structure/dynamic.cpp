#include "sims/structure/dynamic.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/local_ad.hpp"
#include "core/relax.hpp"
#include "core/rollout.hpp"
#include "sims/structure/stiffness.hpp"
#include "sims/structure/vehicle.hpp"

namespace simgrad::structure {

namespace {

// A member's end force on its first joint (the second gets its negative) and its next health.
template <class S>
void member_response(int dim, const S* xa, const S* xb, const S* va, const S* vb, const S& health, const S& stiffness,
                     double rest_length, double damping, const DynamicSettings& s, S* force, S& next_health) {
  using std::sqrt;
  S axis[3];
  S l2 = S(0.0);
  for (int k = 0; k < dim; ++k) {
    axis[k] = xb[k] - xa[k];
    l2 = l2 + axis[k] * axis[k];
  }
  const S length = sqrt(l2);
  S speed = S(0.0);
  for (int k = 0; k < dim; ++k) {
    axis[k] = axis[k] / length;
    speed = speed + axis[k] * (vb[k] - va[k]);
  }
  const S strain = (length - rest_length) / rest_length;
  // Tension positive: pulls the first joint towards the second.
  const S tension = health * stiffness * ((length - rest_length) + damping * speed);
  for (int k = 0; k < dim; ++k) force[k] = tension * axis[k];
  // The strain's size, smoothed at zero over the break width so that its gradient exists.
  if (s.break_width <= 0.0) {
    next_health = value_of(strain) * value_of(strain) < s.break_strain * s.break_strain ? health : S(0.0);
    return;
  }
  const S size = sqrt(strain * strain + s.break_width * s.break_width);
  next_health = health * relax::sigmoid((s.break_strain - size) / s.break_width);
}

}  // namespace

std::string dynamic_unsupported(const TrussModel& model) {
  if (model.kind == StructureKind::frame2d) return "the dynamic mode takes trusses (\"kind\": \"truss2d\" or \"truss3d\")";
  for (const Member& mem : model.members)
    if (mem.catalogue >= 0) return "the dynamic mode takes sized members, not catalogue choices";
  return "";
}

DynamicTruss::DynamicTruss(const TrussModel& model, const Design& design, DynamicSettings settings)
    : model_(&model),
      settings_(std::move(settings)),
      dim_(model.dimension()),
      joints_(model.joint_count),
      members_(static_cast<int>(model.members.size())),
      rest_(design.positions),
      area_(design.areas),
      area_adjoint_(design.areas.size(), 0.0) {
  if (model.kind == StructureKind::frame2d) throw std::invalid_argument("the dynamic mode takes trusses, not frames");
  for (const Member& m : model.members) {
    double l2 = 0.0;
    for (int k = 0; k < dim_; ++k) {
      const double d = rest_[static_cast<std::size_t>(m.joints[1] * dim_ + k)] - rest_[static_cast<std::size_t>(m.joints[0] * dim_ + k)];
      l2 += d * d;
    }
    rest_length_.push_back(std::sqrt(l2));
    if (m.catalogue >= 0) throw std::invalid_argument("the dynamic mode takes sized members, not catalogue choices");
  }
  // Held as in the static analysis: a roller holds one axis only.
  const DofMap dofs = number_dofs(model);
  for (int i : dofs.free_index) held_.push_back(i < 0);
  deck_along_ = distances_along(model, design, settings_.deck);
  force_.resize(static_cast<std::size_t>(joints_ * dim_));
  vehicle_.resize(static_cast<std::size_t>(joints_ * dim_));
  member_force_.resize(static_cast<std::size_t>(members_ * dim_));
  member_health_.resize(static_cast<std::size_t>(members_));
  update_masses();
}

void DynamicTruss::set_areas(std::span<const double> areas) {
  area_.assign(areas.begin(), areas.end());
  update_masses();
}

void DynamicTruss::update_masses() {
  mass_.assign(static_cast<std::size_t>(joints_), settings_.joint_mass);
  for (int e = 0; e < members_; ++e) {
    const Member& m = model_->members[static_cast<std::size_t>(e)];
    const double half = 0.5 * model_->materials[static_cast<std::size_t>(m.material)].density *
                        area_[static_cast<std::size_t>(e)] * rest_length_[static_cast<std::size_t>(e)];
    mass_[static_cast<std::size_t>(m.joints[0])] += half;
    mass_[static_cast<std::size_t>(m.joints[1])] += half;
  }
}

void DynamicTruss::vehicle_forces(int t, std::vector<double>& force) const {
  std::fill(force.begin(), force.end(), 0.0);
  if (settings_.deck.size() < 2 || settings_.vehicle_load == 0.0) return;
  const double s = settings_.vehicle_speed * settings_.dt * t;
  if (s < 0.0 || s > deck_along_.back()) return;
  const auto [i, f] = place_on_path(deck_along_, s);
  const std::size_t down = static_cast<std::size_t>(dim_ - 1);
  force[static_cast<std::size_t>(settings_.deck[i - 1] * dim_) + down] -= settings_.vehicle_load * (1.0 - f);
  force[static_cast<std::size_t>(settings_.deck[i] * dim_) + down] -= settings_.vehicle_load * f;
}

void DynamicTruss::initial_state(std::span<double> state) {
  std::fill(state.begin(), state.end(), 0.0);
  std::copy(rest_.begin(), rest_.end(), state.begin());
  std::fill(state.begin() + 2 * dim_ * joints_, state.end(), 1.0);
}

void DynamicTruss::initial_state_adjoint(std::span<const double>) {}

void DynamicTruss::clear_adjoints() { std::fill(area_adjoint_.begin(), area_adjoint_.end(), 0.0); }

void DynamicTruss::step(int t, std::span<const double> state, std::span<double> next, std::span<double>) {
  const std::size_t nd = static_cast<std::size_t>(joints_ * dim_);
  const double* x = state.data();
  const double* v = x + nd;
  const double* h = v + nd;
  vehicle_forces(t, force_);
  for (std::size_t j = 0; j < static_cast<std::size_t>(joints_); ++j)
    for (int k = 0; k < dim_; ++k) force_[j * static_cast<std::size_t>(dim_) + static_cast<std::size_t>(k)] += mass_[j] * settings_.gravity[static_cast<std::size_t>(k)];
  // Member forces summed into joints in member order: the same bits on every run.
  for (int e = 0; e < members_; ++e) {
    const Member& m = model_->members[static_cast<std::size_t>(e)];
    const std::size_t a = static_cast<std::size_t>(m.joints[0] * dim_), b = static_cast<std::size_t>(m.joints[1] * dim_);
    const double stiffness = model_->materials[static_cast<std::size_t>(m.material)].young * area_[static_cast<std::size_t>(e)] /
                             rest_length_[static_cast<std::size_t>(e)];
    double f[3], next_health;
    member_response(dim_, x + a, x + b, v + a, v + b, h[e], stiffness, rest_length_[static_cast<std::size_t>(e)],
                    settings_.damping, settings_, f, next_health);
    for (int k = 0; k < dim_; ++k) {
      force_[a + static_cast<std::size_t>(k)] += f[k];
      force_[b + static_cast<std::size_t>(k)] -= f[k];
    }
    next[2 * nd + static_cast<std::size_t>(e)] = next_health;
  }
  for (std::size_t j = 0; j < static_cast<std::size_t>(joints_); ++j)
    for (int k = 0; k < dim_; ++k) {
      const std::size_t i = j * static_cast<std::size_t>(dim_) + static_cast<std::size_t>(k);
      const double velocity = held_[i] ? 0.0 : v[i] + settings_.dt * force_[i] / mass_[j];
      next[nd + i] = velocity;
      next[i] = x[i] + settings_.dt * velocity;
    }
}

void DynamicTruss::step_adjoint(int t, std::span<const double> state, std::span<const double>,
                                std::span<const double> next_adjoint, std::span<double> state_adjoint) {
  const std::size_t nd = static_cast<std::size_t>(joints_ * dim_);
  const std::size_t ud = static_cast<std::size_t>(dim_);
  const double* x = state.data();
  const double* v = x + nd;
  const double* h = v + nd;
  const double dt = settings_.dt;
  // Integration: x' = x + dt v', v' = v + dt (F_members + F_vehicle) / m + dt g; held joints
  // keep x' = x and v' = 0. force_ becomes d loss / d F per joint.
  std::vector<double> velocity_adjoint(nd, 0.0);
  for (std::size_t j = 0; j < static_cast<std::size_t>(joints_); ++j)
    for (std::size_t k = 0; k < ud; ++k) {
      const std::size_t i = j * ud + k;
      state_adjoint[i] += next_adjoint[i];
      if (held_[i]) {
        force_[i] = 0.0;
        continue;
      }
      velocity_adjoint[i] = next_adjoint[nd + i] + dt * next_adjoint[i];
      state_adjoint[nd + i] += velocity_adjoint[i];
      force_[i] = velocity_adjoint[i] * dt / mass_[j];
    }
  // Members: forces and health re-run on the local tape; the forces are also summed again for
  // the masses' adjoint below.
  vehicle_forces(t, vehicle_);
  ad::LocalTape& tape = ad::thread_tape();
  for (int e = 0; e < members_; ++e) {
    const Member& m = model_->members[static_cast<std::size_t>(e)];
    const std::size_t a = static_cast<std::size_t>(m.joints[0] * dim_), b = static_cast<std::size_t>(m.joints[1] * dim_);
    const double young = model_->materials[static_cast<std::size_t>(m.material)].young;
    tape.reset();
    ad::Var xa[3], xb[3], va[3], vb[3];
    for (std::size_t k = 0; k < ud; ++k) {
      xa[k] = ad::Var::input(x[a + k]);
      xb[k] = ad::Var::input(x[b + k]);
      va[k] = ad::Var::input(v[a + k]);
      vb[k] = ad::Var::input(v[b + k]);
    }
    const ad::Var health = ad::Var::input(h[e]);
    const ad::Var area = ad::Var::input(area_[static_cast<std::size_t>(e)]);
    const ad::Var stiffness = young * area / rest_length_[static_cast<std::size_t>(e)];
    ad::Var f[3], next_health;
    member_response(dim_, xa, xb, va, vb, health, stiffness, rest_length_[static_cast<std::size_t>(e)], settings_.damping,
                    settings_, f, next_health);
    tape.clear_adjoints();
    for (std::size_t k = 0; k < ud; ++k) {
      tape.adjoint(f[k].i) += force_[a + k] - force_[b + k];
      vehicle_[a + k] += f[k].v;
      vehicle_[b + k] -= f[k].v;
    }
    tape.adjoint(next_health.i) += next_adjoint[2 * nd + static_cast<std::size_t>(e)];
    tape.sweep();
    for (std::size_t k = 0; k < ud; ++k) {
      state_adjoint[a + k] += tape.adjoint(xa[k].i);
      state_adjoint[b + k] += tape.adjoint(xb[k].i);
      state_adjoint[nd + a + k] += tape.adjoint(va[k].i);
      state_adjoint[nd + b + k] += tape.adjoint(vb[k].i);
    }
    state_adjoint[2 * nd + static_cast<std::size_t>(e)] += tape.adjoint(health.i);
    area_adjoint_[static_cast<std::size_t>(e)] += tape.adjoint(area.i);
  }
  // Masses: d v' / d m = -dt (F_members + F_vehicle) / m^2 (vehicle_ now holds that sum), and a
  // member's area adds half its mass to each end joint.
  for (int e = 0; e < members_; ++e) {
    const Member& m = model_->members[static_cast<std::size_t>(e)];
    const double half = 0.5 * model_->materials[static_cast<std::size_t>(m.material)].density * rest_length_[static_cast<std::size_t>(e)];
    for (int end = 0; end < 2; ++end) {
      const std::size_t j = static_cast<std::size_t>(m.joints[static_cast<std::size_t>(end)]);
      double mass_adjoint = 0.0;
      for (std::size_t k = 0; k < ud; ++k)
        mass_adjoint -= velocity_adjoint[j * ud + k] * dt * vehicle_[j * ud + k] / (mass_[j] * mass_[j]);
      area_adjoint_[static_cast<std::size_t>(e)] += half * mass_adjoint;
    }
  }
}

DynamicScore::DynamicScore(const DynamicTruss& truss, double broken_weight, double deflection_weight, double deflection_limit)
    : truss_(&truss), broken_weight_(broken_weight), deflection_weight_(deflection_weight), limit_(deflection_limit) {}

bool DynamicScore::has_term(int t, int steps) const { return t > 0 && t <= steps; }

double DynamicScore::term(int t, std::span<const double> state) {
  const int d = truss_->dimension();
  const std::size_t nd = static_cast<std::size_t>(truss_->joint_count() * d);
  double sum = 0.0;
  for (int j : truss_->deck()) {
    const std::size_t i = static_cast<std::size_t>(j * d + d - 1);
    const double w = (state[i] - truss_->rest_positions()[i]) / limit_;
    sum += w * w;
  }
  const int steps = truss_->settings().steps;
  double value = deflection_weight_ * sum / steps;
  if (t == steps)
    for (int e = 0; e < truss_->member_count(); ++e) value += broken_weight_ * (1.0 - state[2 * nd + static_cast<std::size_t>(e)]);
  return value;
}

void DynamicScore::term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) {
  const int d = truss_->dimension();
  const std::size_t nd = static_cast<std::size_t>(truss_->joint_count() * d);
  const int steps = truss_->settings().steps;
  for (int j : truss_->deck()) {
    const std::size_t i = static_cast<std::size_t>(j * d + d - 1);
    state_adjoint[i] += seed * deflection_weight_ * 2.0 * (state[i] - truss_->rest_positions()[i]) / (limit_ * limit_) / steps;
  }
  if (t == steps)
    for (int e = 0; e < truss_->member_count(); ++e) state_adjoint[2 * nd + static_cast<std::size_t>(e)] -= seed * broken_weight_;
}

int DynamicScore::broken(std::span<const double> state) const {
  int n = 0;
  const std::size_t nd = static_cast<std::size_t>(truss_->joint_count() * truss_->dimension());
  for (int e = 0; e < truss_->member_count(); ++e) n += state[2 * nd + static_cast<std::size_t>(e)] < 0.5 ? 1 : 0;
  return n;
}

DynamicRunScores score_dynamic_run(const TrussModel& model, const Design& design, const DynamicSettings& settings,
                                   double deflection_limit) {
  DynamicRunScores scores;
  DynamicTruss truss(model, design, settings);
  DynamicScore score(truss, 1.0, 1.0, deflection_limit);
  scores.relaxed = Rollout(truss, score, settings.steps).loss();
  DynamicTruss hard(model, design, settings.hard_twin());
  DynamicScore hard_score(hard, 1.0, 1.0, deflection_limit);
  Rollout rollout(hard, hard_score, settings.steps);
  scores.hard = rollout.loss();
  scores.broken_members = hard_score.broken(rollout.final_state());
  return scores;
}

}  // namespace simgrad::structure
