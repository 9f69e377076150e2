#include "dist/mpi_subdomain.hpp"

#ifdef SIMGRAD_MPI
#include <mpi.h>

#include <utility>

namespace simgrad::dist {
namespace {

class MpiRowSlabs final : public RowSlabs {
 public:
  MpiRowSlabs(int rows, int band_rows, int rank, int size) : RowSlabs(rows, band_rows, rank, size) {}

  // Each halo piece is one message straight into the field's rows; a process sends the pieces of
  // its own rows that the others' halos hold, which it works out itself (halo_pieces). Messages
  // between two processes go in row order on both sides, so one tag matches them.
  void fill_halo(std::span<double> field, int columns, int below, int above, bool wrap) const override {
    const std::size_t width = static_cast<std::size_t>(columns);
    const Plan& plan = plan_for({below, above, static_cast<int>(field.size() / width), wrap});
    auto message_of = [&](const HaloPiece& piece) {
      return std::pair(field.data() + width * static_cast<std::size_t>(piece.first),
                       message_count(width * static_cast<std::size_t>(piece.last - piece.first)));
    };
    std::size_t r = 0;
    for (const HaloPiece& piece : plan.receives) {
      const auto [at, count] = message_of(piece);
      MPI_Irecv(at, count, MPI_DOUBLE, piece.owner, kTag, MPI_COMM_WORLD, &requests_[r++]);
    }
    for (const auto& [to, piece] : plan.sends) {
      const auto [at, count] = message_of(piece);
      MPI_Isend(at, count, MPI_DOUBLE, to, kTag, MPI_COMM_WORLD, &requests_[r++]);
      bytes_sent_ += std::size_t(count) * sizeof(double);
    }
    MPI_Waitall(int(r), requests_.data(), MPI_STATUSES_IGNORE);
  }

  // Every receive posted, then every send; one tag, since MPI keeps two processes' messages in
  // the order they were sent.
  void exchange(std::span<const Transfer> sends, std::span<const Transfer> receives) const override {
    if (requests_.size() < sends.size() + receives.size()) requests_.resize(sends.size() + receives.size());
    std::size_t r = 0;
    for (const Transfer& t : receives)
      MPI_Irecv(t.data, message_count(t.count), MPI_DOUBLE, t.peer, kExchangeTag, MPI_COMM_WORLD, &requests_[r++]);
    for (const Transfer& t : sends) {
      MPI_Isend(t.data, message_count(t.count), MPI_DOUBLE, t.peer, kExchangeTag, MPI_COMM_WORLD, &requests_[r++]);
      bytes_sent_ += t.count * sizeof(double);
    }
    MPI_Waitall(int(r), requests_.data(), MPI_STATUSES_IGNORE);
  }

  // An integer reduction: a maximum is the same in any order.
  int largest(int value) const override {
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return value;
  }

  bool any(bool flag) const override { return largest(flag ? 1 : 0) != 0; }

  void gather_all(std::span<const double> mine, std::vector<double>& all) const override {
    bytes_sent_ += gather_every_process(mine, all, counts_, displacements_);
  }

  std::size_t bytes_sent() const override { return bytes_sent_; }

 private:
  static constexpr int kTag = 7302, kExchangeTag = 7303;
  // A halo's shape: its depths, the field's rows and whether they wrap.
  struct Shape {
    int below, above, field_rows;
    bool wrap;
    bool operator==(const Shape&) const = default;
  };
  // Who sends which rows to whom for one halo shape; worked out at the first fill of that shape.
  struct Plan {
    Shape shape;
    std::vector<HaloPiece> receives;
    std::vector<std::pair<int, HaloPiece>> sends;  // (to, piece of own rows)
  };
  // The plan for a halo of that shape, made at its first use.
  const Plan& plan_for(const Shape& shape) const {
    for (const Plan& plan : plans_)
      if (plan.shape == shape) return plan;
    auto pieces_of = [&](int p) { return halo_pieces(slabs(), p, shape.below, shape.above, shape.field_rows, shape.wrap); };
    Plan plan{shape, pieces_of(process()), {}};
    for (int p = 0; p < processes(); ++p)
      if (p != process())
        for (const HaloPiece& piece : pieces_of(p))
          if (piece.owner == process()) plan.sends.emplace_back(p, piece);
    if (requests_.size() < plan.receives.size() + plan.sends.size())
      requests_.resize(plan.receives.size() + plan.sends.size());
    return plans_.emplace_back(std::move(plan));
  }
  mutable std::vector<Plan> plans_;
  mutable std::vector<MPI_Request> requests_;
  mutable std::vector<int> counts_, displacements_;
  mutable std::size_t bytes_sent_ = 0;
};

}  // namespace

std::unique_ptr<RowSlabs> make_mpi_row_slabs(int rows, int band_rows, int rank, int size) {
  return std::make_unique<MpiRowSlabs>(rows, band_rows, rank, size);
}

}  // namespace simgrad::dist
#endif
