// A check shared by the element kernels' tests: a body run through slot entries
// (core/slot_entries.hpp, the device's scatter), its elements backwards, gives a Kernel's bits.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <span>
#include <vector>

#include "core/kernel.hpp"
#include "core/slot_entries.hpp"

namespace simgrad::testing {

// Whether a and b hold the same doubles, bit for bit.
inline bool same_bits(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](double x, double y) {
           return std::bit_cast<std::uint64_t>(x) == std::bit_cast<std::uint64_t>(y);
         });
}

// The node fields `refs` (values, or adjoints when `adjoints`) routed through entries.
struct EntryFields {
  std::vector<Buffer> storage;
  EntryTable table;

  template <std::size_t N>
  EntryFields(const std::array<FieldRef, N>& refs, const Incidence& incidence, bool adjoints) {
    storage.reserve(N);
    for (const FieldRef& r : refs) {
      const double* field = adjoints ? r.adjoint : r.value;
      if (field == nullptr) continue;
      storage.emplace_back(static_cast<std::size_t>(incidence.elements() * incidence.arity() * r.dim));
      table.fields[table.count++] = {field, storage.back().data(), r.dim};
    }
  }
  // Adds every node's entries to it, for every field.
  void gather(const SlotIncidence& incidence, bool accumulate) const {
    for (int f = 0; f < table.count; ++f)
      for (Index n = 0; n < incidence.node_count; ++n)
        gather_node(incidence, table.fields[f], const_cast<double*>(table.fields[f].node_field), n, accumulate);
  }
};

// Runs `body` forward, through its adjoint and through its derived adjoint, once with a Kernel
// and once through slot entries with the elements taken last to first, and expects the scattered
// fields and every adjoint in `input_adjoints` to agree bit for bit. The scattered fields'
// adjoints are the seeds and stay as given.
template <class Body>
void expect_entries_match_kernel(const Body& body, const Incidence& incidence,
                                 const std::vector<std::span<double>>& input_adjoints) {
  const auto scattered = body.scattered();
  const auto gathered = body.gathered();
  auto copy_inputs = [&] {
    std::vector<double> all;
    for (std::span<double> s : input_adjoints) all.insert(all.end(), s.begin(), s.end());
    return all;
  };
  auto clear_inputs = [&] {
    for (std::span<double> s : input_adjoints) std::fill(s.begin(), s.end(), 0.0);
  };
  auto copy_scattered = [&] {
    std::vector<double> all;
    for (const FieldRef& r : scattered) all.insert(all.end(), r.value, r.value + r.size * r.dim);
    return all;
  };

  Kernel kernel("entries_check", &incidence);
  kernel.forward(body);
  const std::vector<double> forward = copy_scattered();
  clear_inputs();
  kernel.adjoint(body);
  const std::vector<double> adjoint = copy_inputs();
  clear_inputs();
  kernel.derived_adjoint(body);
  const std::vector<double> derived = copy_inputs();

  const SlotIncidence arrays = incidence.arrays();
  EntryFields values(scattered, incidence, false);
  for (const FieldRef& r : scattered) std::fill(r.value, r.value + r.size * r.dim, 0.0);
  for (Index e = incidence.elements(); e-- > 0;) ASSERT_TRUE(forward_element(body, arrays, values.table, e)) << e;
  values.gather(arrays, false);
  EXPECT_TRUE(same_bits(copy_scattered(), forward)) << "forward";

  EntryFields adjoints(gathered, incidence, true);
  clear_inputs();
  for (Index e = incidence.elements(); e-- > 0;) ASSERT_TRUE(adjoint_element(body, arrays, adjoints.table, e)) << e;
  adjoints.gather(arrays, true);
  EXPECT_TRUE(same_bits(copy_inputs(), adjoint)) << "adjoint";

  clear_inputs();
  for (Index e = incidence.elements(); e-- > 0;)
    ASSERT_TRUE(derived_adjoint_element(body, arrays, adjoints.table, e)) << e;
  adjoints.gather(arrays, true);
  EXPECT_TRUE(same_bits(copy_inputs(), derived)) << "derived adjoint";
}

}  // namespace simgrad::testing
