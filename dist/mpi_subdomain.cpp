#include "dist/mpi_subdomain.hpp"

#ifdef SIMGRAD_MPI
#include <mpi.h>

#include <climits>

#include "core/parallel.hpp"
#include <stdexcept>
#include <string>

namespace simgrad::dist {
namespace {

// Checks that a count fits one MPI message.
int message_count(std::size_t count) {
  if (count > std::size_t(INT_MAX)) throw std::length_error("a split model's exchange is more than one MPI message carries");
  return int(count);
}

class MpiSubdomain final : public Subdomain {
 public:
  MpiSubdomain(Index total, int rank, int size, std::vector<std::int64_t> ghosts)
      : MpiSubdomain(total, partition_run(total, size, rank), size, std::move(ghosts)) {}

  MpiSubdomain(Index total, ElementRun run, int size, std::vector<std::int64_t> ghosts)
      : Subdomain(total, run.first, run.last - run.first, static_cast<Index>(ghosts.size())), size_(size) {
    std::vector<ElementRun> runs;
    for (int r = 0; r < size; ++r) runs.push_back(partition_run(total, size, r));
    // Ghosts are in increasing order, so each owner's are one run of them, owners in rank order.
    std::vector<int> wanted(static_cast<std::size_t>(size), 0), offered(static_cast<std::size_t>(size), 0);
    std::size_t owner = 0;
    for (const std::int64_t g : ghosts) {
      if (g < 0 || g >= total || (g >= first() && g < first() + owned()))
        throw std::invalid_argument("a ghost must be another process's element");
      while (g >= runs[owner].last) ++owner;
      ++wanted[owner];
    }
    MPI_Alltoall(wanted.data(), 1, MPI_INT, offered.data(), 1, MPI_INT, MPI_COMM_WORLD);
    // Each owner learns which of its elements every other process copies, in the order it copies them.
    std::vector<int> wanted_at(static_cast<std::size_t>(size), 0), offered_at(static_cast<std::size_t>(size), 0);
    for (int r = 1; r < size; ++r) {
      wanted_at[std::size_t(r)] = wanted_at[std::size_t(r - 1)] + wanted[std::size_t(r - 1)];
      offered_at[std::size_t(r)] = offered_at[std::size_t(r - 1)] + offered[std::size_t(r - 1)];
    }
    const std::size_t sent = std::size_t(offered_at.back()) + std::size_t(offered.back());
    std::vector<std::int64_t> sent_elements(sent);
    MPI_Alltoallv(ghosts.data(), wanted.data(), wanted_at.data(), MPI_INT64_T, sent_elements.data(), offered.data(),
                  offered_at.data(), MPI_INT64_T, MPI_COMM_WORLD);
    send_index_.reserve(sent);
    for (const std::int64_t e : sent_elements) send_index_.push_back(Index(e) - first());
    send_buffer_.resize(2 * sent);  // room for pairs
    for (int r = 0; r < size; ++r) {
      if (offered[std::size_t(r)] > 0) sends_.push_back({r, offered_at[std::size_t(r)], offered[std::size_t(r)]});
      if (wanted[std::size_t(r)] > 0) receives_.push_back({r, wanted_at[std::size_t(r)], wanted[std::size_t(r)]});
    }
    requests_.resize(sends_.size() + receives_.size());
    send_lengths_.resize(sends_.size());
    receive_lengths_.resize(receives_.size());
    receive_buffer_.resize(2 * ghosts.size());
    // Group counts per process, for gather_groups.
    const Index per_group = group_blocks(total);
    for (const ElementRun& run : runs) {
      const Index blocks = block_count(run.last - run.first);
      groups_.push_back(int((blocks + per_group - 1) / per_group));
    }
    counts_.resize(static_cast<std::size_t>(size));
    displacements_.resize(static_cast<std::size_t>(size));
  }

  // Most agents shed nothing on most days, and most H-bar are zero: a peer is sent its values
  // as (place in its list, value) pairs of the non-zero ones when that is shorter than all of
  // them, and all of them otherwise. The lengths go first, so that every receive is posted
  // before its message arrives (a probed, unexpected message costs a copy and a wait).
  void fill_ghosts(std::span<double> values) const override {
    const std::size_t peers = sends_.size() + receives_.size();
    std::size_t r = 0;
    for (std::size_t k = 0; k < receives_.size(); ++k)
      MPI_Irecv(&receive_lengths_[k], 1, MPI_INT, receives_[k].rank, kTag, MPI_COMM_WORLD, &requests_[r++]);
    std::size_t sent = 0;
    for (std::size_t k = 0; k < sends_.size(); ++k) {
      const Peer& p = sends_[k];
      double* out = send_buffer_.data() + 2 * std::size_t(p.offset);
      auto value = [&](int i) { return values[static_cast<std::size_t>(send_index_[std::size_t(p.offset + i)])]; };
      int non_zero = 0;
      for (int i = 0; i < p.count; ++i) non_zero += value(i) != 0.0;
      send_lengths_[k] = 2 * non_zero < p.count ? 2 * non_zero : p.count;
      if (send_lengths_[k] < p.count) {
        for (int i = 0, at = 0; i < p.count; ++i)
          if (const double v = value(i); v != 0.0) {
            out[at++] = double(i);  // exact: i < 2^31
            out[at++] = v;
          }
      } else {
        for (int i = 0; i < p.count; ++i) out[i] = value(i);
      }
      MPI_Isend(&send_lengths_[k], 1, MPI_INT, p.rank, kTag, MPI_COMM_WORLD, &requests_[r++]);
      sent += std::size_t(send_lengths_[k]);
    }
    MPI_Waitall(int(peers), requests_.data(), MPI_STATUSES_IGNORE);
    double* ghosts = values.data() + owned();
    r = 0;
    for (std::size_t k = 0; k < receives_.size(); ++k) {
      const Peer& p = receives_[k];
      double* in = receive_lengths_[k] == p.count ? ghosts + p.offset : receive_buffer_.data() + 2 * std::size_t(p.offset);
      MPI_Irecv(in, receive_lengths_[k], MPI_DOUBLE, p.rank, kTag, MPI_COMM_WORLD, &requests_[r++]);
    }
    for (std::size_t k = 0; k < sends_.size(); ++k)
      MPI_Isend(send_buffer_.data() + 2 * std::size_t(sends_[k].offset), send_lengths_[k], MPI_DOUBLE, sends_[k].rank, kTag,
                MPI_COMM_WORLD, &requests_[r++]);
    MPI_Waitall(int(peers), requests_.data(), MPI_STATUSES_IGNORE);
    for (std::size_t k = 0; k < receives_.size(); ++k) {
      const Peer& p = receives_[k];
      if (receive_lengths_[k] == p.count) continue;
      double* in = ghosts + p.offset;
      const double* pairs = receive_buffer_.data() + 2 * std::size_t(p.offset);
      std::fill(in, in + p.count, 0.0);
      for (int at = 0; at < receive_lengths_[k]; at += 2) in[static_cast<std::size_t>(pairs[at])] = pairs[at + 1];
    }
    bytes_sent_ += (sent + sends_.size()) * sizeof(double);  // (a length counted as a number)
  }

  void gather_groups(std::span<const double> mine, std::span<double> all, Index width) const override {
    int at = 0;
    for (std::size_t r = 0; r < counts_.size(); ++r) {
      counts_[r] = message_count(std::size_t(groups_[r]) * std::size_t(width));
      displacements_[r] = at;
      at += counts_[r];
    }
    MPI_Allgatherv(mine.data(), message_count(mine.size()), MPI_DOUBLE, all.data(), counts_.data(), displacements_.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
    bytes_sent_ += mine.size() * sizeof(double) * std::size_t(size_ - 1);
  }

  std::size_t bytes_sent() const override { return bytes_sent_; }

 private:
  static constexpr int kTag = 7301;
  struct Peer {
    int rank, offset, count;
  };
  int size_;
  std::vector<Index> send_index_;            // own elements sent, by peer, in the order peers copy them
  std::vector<Peer> sends_, receives_;       // peers with something to send or receive
  std::vector<int> groups_;                  // groups per process
  mutable std::vector<double> send_buffer_;     // (the exchange's scratch: sized once)
  mutable std::vector<double> receive_buffer_;  // pairs received, at twice each peer's offset
  mutable std::vector<int> send_lengths_, receive_lengths_;
  mutable std::vector<MPI_Request> requests_;
  mutable std::vector<int> counts_, displacements_;
  mutable std::size_t bytes_sent_ = 0;
};

}  // namespace

std::unique_ptr<Subdomain> make_mpi_subdomain(Index total, int rank, int size, std::vector<std::int64_t> ghosts) {
  return std::make_unique<MpiSubdomain>(total, rank, size, std::move(ghosts));
}

}  // namespace simgrad::dist
#endif
