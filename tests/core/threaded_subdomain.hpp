// Processes simulated by threads of one test: each thread runs its part of a split model with a
// ThreadedSubdomain, and the exchanges go through a shared board between two barriers, so a
// split model's tests run (under the sanitizers too) in a build without MPI.
#pragma once

#include <algorithm>
#include <barrier>
#include <functional>
#include <stdexcept>
#include <span>
#include <thread>
#include <vector>

#include "core/parallel.hpp"
#include "core/subdomain.hpp"

namespace simgrad::testing {

struct PartitionBoard {
  explicit PartitionBoard(int processes, Index total)
      : processes(processes), total(total), sync(processes), values(static_cast<std::size_t>(processes)),
        groups(static_cast<std::size_t>(processes)) {
    for (int p = 0; p < processes; ++p) runs.push_back(partition_run(total, processes, p));
  }
  int processes;
  Index total;
  std::vector<ElementRun> runs;
  std::barrier<> sync;
  std::vector<std::span<double>> values;        // each process's array, while fill_ghosts runs
  std::vector<std::span<const double>> groups;  // each process's group sums, while gather_groups runs
  std::vector<char> flags = std::vector<char>(static_cast<std::size_t>(processes), 0);  // while any runs
};

class ThreadedSubdomain final : public Subdomain {
 public:
  // `ghosts`: the whole model's elements this process copies, in increasing order.
  ThreadedSubdomain(PartitionBoard& board, int process, std::vector<std::int64_t> ghosts)
      : Subdomain(board.total, board.runs[static_cast<std::size_t>(process)].first,
                  board.runs[static_cast<std::size_t>(process)].last - board.runs[static_cast<std::size_t>(process)].first,
                  static_cast<Index>(ghosts.size())),
        board_(board), process_(process), ghosts_(std::move(ghosts)) {}

  // Publishes this process's values, then copies its ghosts' from their owners' arrays.
  void fill_ghost_rows(std::span<double> values, Index width) const override {
    const std::size_t w = static_cast<std::size_t>(width);
    board_.values[static_cast<std::size_t>(process_)] = values;
    board_.sync.arrive_and_wait();
    for (std::size_t k = 0; k < ghosts_.size(); ++k) {
      std::size_t owner = 0;
      while (ghosts_[k] >= board_.runs[owner].last) ++owner;
      const std::size_t at = w * static_cast<std::size_t>(ghosts_[k] - board_.runs[owner].first);
      std::copy_n(board_.values[owner].begin() + static_cast<std::ptrdiff_t>(at), w,
                  values.begin() + static_cast<std::ptrdiff_t>(w * (static_cast<std::size_t>(owned()) + k)));
    }
    board_.sync.arrive_and_wait();
    bytes_sent_ += w * ghosts_.size() * sizeof(double);  // (received, here: the totals agree)
  }

  // Publishes this process's group sums, then copies every process's in rank order.
  void gather_groups(std::span<const double> mine, std::span<double> all, Index) const override {
    board_.groups[static_cast<std::size_t>(process_)] = mine;
    board_.sync.arrive_and_wait();
    std::size_t at = 0;
    for (const std::span<const double> g : board_.groups) {
      std::copy(g.begin(), g.end(), all.begin() + static_cast<std::ptrdiff_t>(at));
      at += g.size();
    }
    board_.sync.arrive_and_wait();
    bytes_sent_ += mine.size() * sizeof(double) * static_cast<std::size_t>(board_.processes - 1);
  }

  // Publishes this process's values, then copies every process's in rank order.
  void gather_all(std::span<const double> mine, std::vector<double>& all) const override {
    board_.groups[static_cast<std::size_t>(process_)] = mine;
    board_.sync.arrive_and_wait();
    all.clear();
    for (const std::span<const double> g : board_.groups) all.insert(all.end(), g.begin(), g.end());
    board_.sync.arrive_and_wait();
    bytes_sent_ += mine.size() * sizeof(double) * static_cast<std::size_t>(board_.processes - 1);
  }

  // True on every process when any process's flag is.
  bool any(bool flag) const override {
    board_.flags[static_cast<std::size_t>(process_)] = flag;
    board_.sync.arrive_and_wait();
    const bool result = std::find(board_.flags.begin(), board_.flags.end(), 1) != board_.flags.end();
    board_.sync.arrive_and_wait();
    return result;
  }

  std::size_t bytes_sent() const override { return bytes_sent_; }

 private:
  PartitionBoard& board_;
  int process_;
  std::vector<std::int64_t> ghosts_;
  mutable std::size_t bytes_sent_ = 0;
};

// What the processes of a threaded RowSlabs share.
struct RowBoard {
  explicit RowBoard(int processes)
      : sync(processes), fields(static_cast<std::size_t>(processes)), values(static_cast<std::size_t>(processes)),
        numbers(static_cast<std::size_t>(processes), 0) {}
  std::barrier<> sync;
  std::vector<std::span<double>> fields;        // each process's field, while fill_halo runs
  std::vector<std::span<const double>> values;  // each process's values, while gather_all runs
  std::vector<int> numbers;                     // each process's number, while largest runs
  std::vector<std::span<const RowSlabs::Transfer>> sends =
      std::vector<std::span<const RowSlabs::Transfer>>(fields.size());  // while exchange runs
};

class ThreadedRowSlabs final : public RowSlabs {
 public:
  ThreadedRowSlabs(RowBoard& board, int rows, int band_rows, int process)
      : RowSlabs(rows, band_rows, process, static_cast<int>(board.fields.size())), board_(board) {}

  // Publishes this process's field, then copies its halo's rows from their owners' fields.
  void fill_halo(std::span<double> field, int columns, int below, int above, bool wrap) const override {
    const std::size_t w = static_cast<std::size_t>(columns);
    board_.fields[static_cast<std::size_t>(process())] = field;
    board_.sync.arrive_and_wait();
    for (const HaloPiece& piece : halo_pieces(slabs(), process(), below, above, static_cast<int>(field.size() / w), wrap)) {
      const std::size_t at = w * static_cast<std::size_t>(piece.first), count = w * static_cast<std::size_t>(piece.last - piece.first);
      std::copy_n(board_.fields[static_cast<std::size_t>(piece.owner)].begin() + static_cast<std::ptrdiff_t>(at), count,
                  field.begin() + static_cast<std::ptrdiff_t>(at));
      bytes_sent_ += count * sizeof(double);  // (received, here: the totals agree)
    }
    board_.sync.arrive_and_wait();
  }

  // Publishes this process's sends, then takes its receives from the senders' lists in order.
  void exchange(std::span<const Transfer> sends, std::span<const Transfer> receives) const override {
    board_.sends[static_cast<std::size_t>(process())] = sends;
    board_.sync.arrive_and_wait();
    std::vector<std::size_t> next(board_.sends.size(), 0);  // the next send from each peer to look at
    for (const Transfer& r : receives) {
      const std::span<const Transfer> theirs = board_.sends[static_cast<std::size_t>(r.peer)];
      std::size_t& k = next[static_cast<std::size_t>(r.peer)];
      while (k < theirs.size() && theirs[k].peer != process()) ++k;
      if (k == theirs.size() || theirs[k].count != r.count) throw std::logic_error("ThreadedRowSlabs: unmatched transfer");
      std::copy_n(theirs[k].data, r.count, r.data);
      ++k;
    }
    board_.sync.arrive_and_wait();
    for (const Transfer& t : sends) bytes_sent_ += t.count * sizeof(double);
  }

  // Publishes this process's value, then takes the largest of every process's.
  int largest(int value) const override {
    board_.numbers[static_cast<std::size_t>(process())] = value;
    board_.sync.arrive_and_wait();
    const int result = *std::max_element(board_.numbers.begin(), board_.numbers.end());
    board_.sync.arrive_and_wait();
    return result;
  }

  bool any(bool flag) const override { return largest(flag ? 1 : 0) != 0; }

  // Publishes this process's values, then copies every process's in process order.
  void gather_all(std::span<const double> mine, std::vector<double>& all) const override {
    board_.values[static_cast<std::size_t>(process())] = mine;
    board_.sync.arrive_and_wait();
    all.clear();
    for (const std::span<const double> v : board_.values) all.insert(all.end(), v.begin(), v.end());
    board_.sync.arrive_and_wait();
    bytes_sent_ += mine.size() * sizeof(double) * static_cast<std::size_t>(processes() - 1);
  }

  std::size_t bytes_sent() const override { return bytes_sent_; }

 private:
  RowBoard& board_;
  mutable std::size_t bytes_sent_ = 0;
};

// Runs body(process) on `processes` threads at once, each with `threads` threads of its own for
// its parallel loops, and waits for them.
inline void run_processes(int processes, int threads, const std::function<void(int process)>& body) {
  std::vector<std::thread> team;
  for (int p = 0; p < processes; ++p)
    team.emplace_back([&, p] {
      ThreadScope scope(threads);
      body(p);
    });
  for (std::thread& t : team) t.join();
}

}  // namespace simgrad::testing
