// Losses of smoke rollouts: match a target density image at the last step, fill a target
// region by a given step, and a smoothness penalty on the sources' schedules (a term at step 0
// that depends on the parameters only). The same losses serve 2D and 3D models (cells in the
// grid's order). 2D sums run per band of rows (core/row_slabs.hpp), so they split with the grid.
#pragma once

#include <optional>
#include <utility>
#include <span>
#include <vector>

#include "core/row_slabs.hpp"
#include "core/system.hpp"
#include "sims/fluid/smoke_model.hpp"

namespace simgrad::fluid {

struct SmokeLossSettings {
  // Mean squared difference between the density and `target` (one value per cell) at the last
  // step, times `image_weight`; no image term when target is empty.
  std::vector<double> target;
  double image_weight = 1.0;
  // Over the cells of `region` (one flag per cell) at `region_step` (-1: the last step): minus
  // the mean density, or with `region_target` set, the squared difference between the mean
  // density and it (a loss that stays positive); no region term when region is empty.
  std::vector<std::uint8_t> region;
  int region_step = -1;
  std::optional<double> region_target;
  // smoothness times the sum over sources and neighbouring knots of squared differences of
  // speed, of angle and of tilt, and over boundary vents of their speed's.
  double smoothness = 0.0;
};

template <class Model>
class SmokeLossOf final : public TrajectoryLoss {
 public:
  // With `slabs` (2D), each process adds its slab's cells and the sums are gathered: the same
  // bits as on the whole grid; term() and image_mismatch() are then collective.
  SmokeLossOf(Model& model, SmokeLossSettings settings, const RowSlabs* slabs = nullptr);

  bool has_term(int t, int steps) const override;
  double term(int t, std::span<const double> state) override;
  void term_adjoint(int t, std::span<const double> state, double seed, std::span<double> state_adjoint) override;

  // The parts of the loss at a final state (for reports): image mismatch and region density.
  double image_mismatch(std::span<const double> state) const;
  double region_density(std::span<const double> state) const;
  const SmokeLossSettings& settings() const { return settings_; }

 private:
  int region_step(int steps) const { return settings_.region_step < 0 ? steps : settings_.region_step; }
  double smoothness_penalty(bool add_adjoint, double seed);
  // The sum of term(c) over the cells (2D: per band of rows, gathered when split; 3D: in order).
  template <class Term>
  double cell_sum(const Term& term) const;
  // The cells this process holds: its slab's, or all.
  std::pair<std::size_t, std::size_t> own_cells() const;

  Model& model_;
  SmokeLossSettings settings_;
  double region_cells_ = 0.0;
  const RowSlabs* slabs_;
  mutable std::vector<double> band_partial_, band_sums_;
};

using SmokeLoss = SmokeLossOf<SmokeModel>;
using SmokeLoss3 = SmokeLossOf<SmokeModel3>;

}  // namespace simgrad::fluid
