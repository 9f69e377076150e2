// An agent population and its contact network: immutable once built, shared by every run.
//
// Contacts are undirected and stored in both directions as CSR rows (a self-loop once), so the
// hazard "sum over my contacts" and its adjoint "sum over the contacts I infect" are both
// gathers over the same rows, in a fixed order, without atomics. A population may instead be
// complete (everyone meets everyone, the well-mixed model) and then stores no edges at all.
//
// A part of a population split over processes (part_of) is a population too: its own agents
// are the whole's [first_agent, first_agent + agents), its rows are theirs, and a contact with
// an agent of another part names a ghost, agents + k for the whole's agent ghosts[k].
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "core/subdomain.hpp"
#include "core/vec.hpp"

namespace simgrad::contagion {

struct Population {
  Index agents = 0;
  int age_groups = 1;
  std::vector<std::uint8_t> age;         // per agent
  int layers = 1;
  std::vector<std::string> layer_names;  // per layer
  bool complete = false;                 // well-mixed: every pair of agents in contact, layer 0
  std::vector<std::int64_t> offsets;     // CSR: agents + 1 entries
  std::vector<std::int32_t> neighbors;   // per directed contact
  std::vector<std::uint8_t> layer;       // per directed contact
  // A part of a split population: the whole's agent count (0: this is the whole), its first
  // agent here, and the ghosts' agents in the whole, in increasing order.
  Index whole_agents = 0;
  Index first_agent = 0;
  std::vector<std::int64_t> ghosts;

  // Agents of the whole population.
  Index total_agents() const { return whole_agents > 0 ? whole_agents : agents; }
  // The whole's number of agent i here (own or ghost): the key of its random draws.
  Index whole_index(Index i) const { return i < agents ? first_agent + i : ghosts[static_cast<std::size_t>(i - agents)]; }

  // Directed contacts stored (twice the undirected ones, less self-loops).
  Index directed_contacts() const { return static_cast<Index>(neighbors.size()); }
  // Bytes the population holds per agent (age, row offset) and per undirected contact.
  static constexpr double bytes_per_agent() { return sizeof(std::uint8_t) + sizeof(std::int64_t); }
  static constexpr double bytes_per_contact() { return 2.0 * (sizeof(std::int32_t) + sizeof(std::uint8_t)); }
};

// Undirected contacts as an edge list, before they become CSR rows.
struct EdgeList {
  std::vector<std::int32_t> from, to;
  std::vector<std::uint8_t> layer;
  void add(std::int32_t a, std::int32_t b, std::uint8_t l) {
    from.push_back(a);
    to.push_back(b);
    layer.push_back(l);
  }
  // Adds the contact when one of its agents is in `part` (the contacts a part's rows hold).
  void add_touching(const ElementRun& part, std::int32_t a, std::int32_t b, std::uint8_t l) {
    if (part.contains(a) || part.contains(b)) add(a, b, l);
  }
};

// Builds the CSR rows of the agents the population holds (all, or a part's: edges with no end
// among them are skipped), and a part's ghosts: each row lists its contacts in edge-list order,
// so a population, and each part of it, is the same bits whatever built it.
void build_contacts(Population& population, const EdgeList& edges);

// The agents [first, last) of `whole`, their rows, and the ghosts those rows name.
Population part_of(const Population& whole, Index first, Index last);

// A well-mixed population of n agents, all in age group 0.
Population make_complete_population(Index agents);

// Called with the fraction done (0 to 1) during long loads.
using ProgressCallback = std::function<void(double fraction)>;

// Reads GradABM's population files: agents.csv (header, then index,age_group[,stage...]) and
// contacts.csv (i,j[,layer] per line, no header). Errors throw std::invalid_argument naming
// the file, line and column.
// With `part_of_whole`, which says from the whole's agent count which agents to keep, only
// those, as part_of would cut them from the whole (the files are read whole, one at a time).
using PartOfWhole = std::function<ElementRun(Index agents)>;
Population load_population_csv(const std::filesystem::path& agents, const std::filesystem::path& contacts,
                               const ProgressCallback& progress = {}, const PartOfWhole& part_of_whole = {});

// A synthetic population with an age structure and household, school, work and random layers.
struct SyntheticOptions {
  Index agents = 10000;
  std::uint64_t seed = 1;
  std::vector<double> age_shares = {0.204, 0.115, 0.111, 0.133, 0.171, 0.155, 0.065, 0.046};  // Franklin
  std::vector<double> household_size_shares = {0.340, 0.318, 0.144, 0.120, 0.047, 0.031};     // sizes 1..6
  int school_size = 200;      // children (age group 0) per school
  double school_contacts = 2.0;  // undirected contacts per child within its school
  int workplace_size = 20;    // working-age adults (groups 1-5) per workplace
  double work_contacts = 1.5;
  double random_contacts = 1.0;  // undirected random contacts per agent (about 3.5 in all)
};
// With `part` (not empty), only the agents part.first .. part.last - 1 of it, as part_of would cut
// them from the whole, built without the whole: every process of a split run builds its own.
Population make_synthetic_population(const SyntheticOptions& options, ElementRun part = {});

}  // namespace simgrad::contagion
