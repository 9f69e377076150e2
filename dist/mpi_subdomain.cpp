#include "dist/mpi_subdomain.hpp"

#ifdef SIMGRAD_MPI
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <stdexcept>
#include <string>

#include "core/parallel.hpp"

namespace simgrad::dist {
namespace {

class MpiSubdomain final : public Subdomain {
 public:
  // The run of process `rank`, and who sends it which ghosts (collective).
  MpiSubdomain(Index total, int rank, int size, std::vector<std::int64_t> ghosts)
      : MpiSubdomain(total, partition_run(total, size, rank), size, std::move(ghosts)) {}

  // Tells every owner which of its elements this process copies (MPI_Alltoallv once).
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
    std::size_t wanted_total = 0, sent = 0;
    for (int r = 0; r < size; ++r) {
      wanted_at[std::size_t(r)] = message_count(wanted_total);
      offered_at[std::size_t(r)] = message_count(sent);
      wanted_total += std::size_t(wanted[std::size_t(r)]);
      sent += std::size_t(offered[std::size_t(r)]);
    }
    message_count(2 * sent);  // a message of pairs is twice as long
    message_count(2 * wanted_total);
    std::vector<std::int64_t> sent_elements(sent);
    MPI_Alltoallv(ghosts.data(), wanted.data(), wanted_at.data(), MPI_INT64_T, sent_elements.data(), offered.data(),
                  offered_at.data(), MPI_INT64_T, MPI_COMM_WORLD);
    send_index_.reserve(sent);
    for (const std::int64_t e : sent_elements) send_index_.push_back(Index(e) - first());
    send_buffer_.resize(2 * sent);  // room for pairs
    own_values_.resize(sent);
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

  // Most of a day's values are zeros: a peer gets a packed message (pack_ghost_values). The
  // lengths go first, so that every receive is posted before its message arrives (a probed,
  // unexpected message costs a copy and a wait).
  void fill_ghost_rows(std::span<double> values, Index width) const override {
    const std::size_t w = static_cast<std::size_t>(width);
    if (w > width_room_) {  // once per wider row: the buffers start with room for one value an element
      own_values_.resize(w * send_index_.size());
      send_buffer_.resize(2 * own_values_.size());
      receive_buffer_.resize(2 * w * std::size_t(ghosts()));
      width_room_ = w;
    }
    const std::size_t peers = sends_.size() + receives_.size();
    std::size_t r = 0;
    for (std::size_t k = 0; k < receives_.size(); ++k)
      MPI_Irecv(&receive_lengths_[k], 1, MPI_INT, receives_[k].rank, kTag, MPI_COMM_WORLD, &requests_[r++]);
    std::size_t sent = 0;
    for (std::size_t k = 0; k < sends_.size(); ++k) {
      const Peer& p = sends_[k];
      double* own = own_values_.data() + w * std::size_t(p.offset);
      for (int i = 0; i < p.count; ++i)
        std::copy_n(values.data() + w * std::size_t(send_index_[std::size_t(p.offset + i)]), w, own + w * std::size_t(i));
      send_lengths_[k] = message_count(pack_ghost_values({own, w * std::size_t(p.count)},
                                                         {message_of(send_buffer_, p, w), 2 * w * std::size_t(p.count)}));
      MPI_Isend(&send_lengths_[k], 1, MPI_INT, p.rank, kTag, MPI_COMM_WORLD, &requests_[r++]);
      sent += std::size_t(send_lengths_[k]);
    }
    MPI_Waitall(int(peers), requests_.data(), MPI_STATUSES_IGNORE);
    r = 0;
    for (std::size_t k = 0; k < receives_.size(); ++k)
      MPI_Irecv(message_of(receive_buffer_, receives_[k], w), receive_lengths_[k], MPI_DOUBLE, receives_[k].rank, kTag,
                MPI_COMM_WORLD, &requests_[r++]);
    for (std::size_t k = 0; k < sends_.size(); ++k)
      MPI_Isend(message_of(send_buffer_, sends_[k], w), send_lengths_[k], MPI_DOUBLE, sends_[k].rank, kTag, MPI_COMM_WORLD,
                &requests_[r++]);
    MPI_Waitall(int(peers), requests_.data(), MPI_STATUSES_IGNORE);
    double* ghosts = values.data() + w * std::size_t(owned());
    for (std::size_t k = 0; k < receives_.size(); ++k) {
      const Peer& p = receives_[k];
      unpack_ghost_values({message_of(receive_buffer_, p, w), std::size_t(receive_lengths_[k])},
                          {ghosts + w * std::size_t(p.offset), w * std::size_t(p.count)});
    }
    bytes_sent_ += sent * sizeof(double) + sends_.size() * sizeof(int);
  }

  bool any(bool flag) const override {
    int value = flag ? 1 : 0;
    MPI_Allreduce(MPI_IN_PLACE, &value, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return value != 0;
  }

  // Every process's group sums, in rank order, which is group order.
  void gather_groups(std::span<const double> mine, std::span<double> all, Index width) const override {
    std::size_t at = 0;
    for (std::size_t r = 0; r < counts_.size(); ++r) {
      counts_[r] = message_count(std::size_t(groups_[r]) * std::size_t(width));
      displacements_[r] = message_count(at);
      at += std::size_t(counts_[r]);
    }
    MPI_Allgatherv(mine.data(), message_count(mine.size()), MPI_DOUBLE, all.data(), counts_.data(), displacements_.data(),
                   MPI_DOUBLE, MPI_COMM_WORLD);
    bytes_sent_ += mine.size() * sizeof(double) * std::size_t(size_ - 1);
  }

  void gather_all(std::span<const double> mine, std::vector<double>& all) const override {
    bytes_sent_ += gather_every_process(mine, all, counts_, displacements_);
  }

  std::size_t bytes_sent() const override { return bytes_sent_; }

 private:
  static constexpr int kTag = 7301;
  struct Peer {
    int rank, offset, count;
  };
  // A peer's message in a buffer of twice the values (room for pairs), `width` values an element.
  static double* message_of(std::vector<double>& buffer, const Peer& p, std::size_t width) {
    return buffer.data() + 2 * width * std::size_t(p.offset);
  }
  int size_;
  std::vector<Index> send_index_;            // own elements sent, by peer, in the order peers copy them
  std::vector<Peer> sends_, receives_;       // peers with something to send or receive
  std::vector<int> groups_;                  // groups per process
  mutable std::vector<double> own_values_;      // the values sent, gathered per peer
  mutable std::vector<double> send_buffer_;     // (the exchange's scratch: sized once)
  mutable std::vector<double> receive_buffer_;  // pairs received, at twice each peer's offset
  mutable std::vector<int> send_lengths_, receive_lengths_;
  mutable std::vector<MPI_Request> requests_;
  mutable std::vector<int> counts_, displacements_;
  mutable std::size_t bytes_sent_ = 0;
  mutable std::size_t width_room_ = 1;  // the widest row the buffers hold
};

}  // namespace

int message_count(std::size_t count) {
  if (count > std::size_t(INT_MAX)) throw std::length_error("a split model's exchange is more than one MPI message carries");
  return int(count);
}

std::size_t gather_every_process(std::span<const double> mine, std::vector<double>& all, std::vector<int>& counts,
                                 std::vector<int>& displacements) {
  int size = 0;
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  counts.resize(std::size_t(size));
  displacements.resize(std::size_t(size));
  const int length = message_count(mine.size());
  MPI_Allgather(&length, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD);
  std::size_t at = 0;
  for (std::size_t r = 0; r < counts.size(); ++r) {
    displacements[r] = message_count(at);
    at += std::size_t(counts[r]);
  }
  all.resize(at);
  MPI_Allgatherv(mine.data(), length, MPI_DOUBLE, all.data(), counts.data(), displacements.data(), MPI_DOUBLE,
                 MPI_COMM_WORLD);
  return (mine.size() * sizeof(double) + sizeof(int)) * std::size_t(size - 1);
}

std::unique_ptr<Subdomain> make_mpi_subdomain(Index total, int rank, int size, std::vector<std::int64_t> ghosts) {
  return std::make_unique<MpiSubdomain>(total, rank, size, std::move(ghosts));
}

}  // namespace simgrad::dist
#endif
