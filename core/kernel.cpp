#include "core/kernel.hpp"

namespace simgrad {

void Kernel::split_over(const Subdomain& subdomain, std::span<const FieldRef> shared) {
  if (subdomain.owned() != elements_)
    throw std::logic_error("kernel " + name_ + ": split over a part of " + std::to_string(subdomain.owned()) +
                           " elements, but it has " + std::to_string(elements_));
  Index width = 0;
  for (const FieldRef& f : shared) width += 1 + f.dim;
  split_shared_.assign(shared.begin(), shared.end());
  if (split_ == &subdomain && shared_rows_->width() == width) return;
  split_ = &subdomain;
  sum_rows_ = std::make_shared<BlockRows>(subdomain, 1);
  shared_rows_ = std::make_shared<BlockRows>(subdomain, width);
}

double Kernel::split_sum(const FirstNonFinite& bad) {
  BlockRows& rows = *sum_rows_;
  for (Index b = 0; b < rows.own_blocks(); ++b) rows.own_row(b)[0] = block_sums_[static_cast<std::size_t>(b)];
  rows.gather();
  double total = 0.0;
  for (Index b = 0; b < rows.blocks(); ++b) total += rows.row(b)[0];
  // A block with a non-finite value has a non-finite sum, which every process now holds.
  if (!std::isfinite(total)) {
    bad.raise_if_any(name_, false);
    for (Index b = 0; b < rows.blocks(); ++b)
      if (!std::isfinite(rows.row(b)[0])) throw NonFiniteError(name_, -1, false);
  }
  bad.raise_if_any(name_, false);
  return total;
}

void Kernel::flush_split_shared(Index blocks) {
  BlockRows& rows = *shared_rows_;
  for (Index b = 0; b < blocks; ++b) {
    double* row = rows.own_row(b);
    std::fill(row, row + rows.width(), 0.0);
    const detail::SharedPartials& partials = shared_[static_cast<std::size_t>(b)];
    for (int k = 0; k < partials.count; ++k) {
      const detail::SharedPartials::Entry& entry = partials.entries[static_cast<std::size_t>(k)];
      Index at = 0;
      auto field = split_shared_.begin();
      for (; field != split_shared_.end() && field->adjoint != entry.target; ++field) at += 1 + field->dim;
      if (field == split_shared_.end())
        throw std::logic_error("kernel " + name_ + ": a shared field missing from split_over's list");
      row[at] = 1.0;  // present: a block whose elements added nothing adds nothing, not +0
      std::copy_n(entry.sum, entry.dim, row + at + 1);
    }
  }
  rows.gather();
  for (Index b = 0; b < rows.blocks(); ++b) {
    const double* row = rows.row(b);
    Index at = 0;
    for (const FieldRef& field : split_shared_) {
      if (row[at] != 0.0)
        for (int c = 0; c < field.dim; ++c) field.adjoint[c] += row[at + 1 + c];
      at += 1 + field.dim;
    }
  }
}

}  // namespace simgrad
