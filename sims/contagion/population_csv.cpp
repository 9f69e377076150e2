// Population CSV files, read with core/csv.hpp from each file mapped into memory (the processes
// of a split run on one node share the pages): a million agents and 3.5 million contacts load in
// about a second.
#include <optional>
#include <stdexcept>
#include <string>

#include "core/csv.hpp"
#include "sims/contagion/population.hpp"

namespace simgrad::contagion {

namespace {

// The records of one population file, with errors that name the file, line and column.
class PopulationCsv {
 public:
  PopulationCsv(const std::filesystem::path& file, std::string_view text) : file_(file), csv_(text) {}

  // The next record, the header (a first line that does not start with a digit) skipped.
  bool next() {
    if (!csv_.next()) return false;
    const bool header = first_ && (csv_[0].empty() || csv_[0].front() < '0' || csv_[0].front() > '9');
    first_ = false;
    return header ? csv_.next() : true;
  }
  std::size_t size() const { return csv_.size(); }
  double fraction_read() const { return csv_.fraction_read(); }
  // Field `column` (from 1) named `what`: a non-negative integer up to `hi`.
  std::int64_t integer(std::size_t column, const char* what, std::int64_t hi) const {
    const std::optional<std::int64_t> v = parse_integer(csv_[column - 1]);
    if (!v || *v < 0) fail(column, std::string("expected a non-negative integer ") + what);
    if (*v > hi) fail(column, std::string(what) + " above " + std::to_string(hi));
    return *v;
  }
  [[noreturn]] void fail(std::size_t column, const std::string& message) const {
    throw std::invalid_argument(file_.string() + ":" + std::to_string(csv_.line()) + ": column " + std::to_string(column) +
                                ": " + message);
  }

 private:
  const std::filesystem::path& file_;
  CsvReader csv_;
  bool first_ = true;
};

}  // namespace

Population load_population_csv(const std::filesystem::path& agents_file, const std::filesystem::path& contacts_file,
                               const ProgressCallback& progress, const PartOfWhole& part_of_whole) {
  Population p;
  {
    const MappedText mapped(agents_file);
    PopulationCsv c(agents_file, mapped.text());
    int max_age = 0;
    while (c.next()) {  // index,age_group[,stage...]: the fields after the age group are not read
      const std::int64_t index = c.integer(1, "agent index", INT32_MAX - 1);
      if (index != p.agents) c.fail(1, "expected agent index " + std::to_string(p.agents) + " (agents in order from 0)");
      if (c.size() < 2) c.fail(2, "missing age_group");
      const std::int64_t age = c.integer(2, "age_group", 255);
      p.age.push_back(static_cast<std::uint8_t>(age));
      max_age = std::max(max_age, static_cast<int>(age));
      ++p.agents;
    }
    if (p.agents == 0) throw std::invalid_argument(agents_file.string() + ": no agents");
    p.age_groups = max_age + 1;
  }
  // A part keeps its agents' ages, and the contacts with an end among them.
  ElementRun kept{0, p.agents};
  if (part_of_whole) {
    kept = part_of_whole(p.agents);
    p.whole_agents = p.agents;
    p.first_agent = kept.first;
    p.agents = kept.last - kept.first;
    p.age.erase(p.age.begin() + kept.last, p.age.end());
    p.age.erase(p.age.begin(), p.age.begin() + kept.first);
  }
  const Index agents = p.total_agents();
  if (progress) progress(0.1);
  EdgeList edges;
  {
    const MappedText mapped(contacts_file);
    const std::string_view text = mapped.text();
    PopulationCsv c(contacts_file, text);
    // About 12 bytes per line: reserve once instead of regrowing.
    const std::size_t guess = static_cast<std::size_t>(static_cast<double>(text.size() / 10) *
                                                       static_cast<double>(p.agents) / static_cast<double>(agents)) + 16;
    edges.from.reserve(guess);
    edges.to.reserve(guess);
    edges.layer.reserve(guess);
    int max_layer = 0;
    long lines = 0;
    while (c.next()) {  // i,j[,layer]
      const std::int64_t a = c.integer(1, "agent index", agents - 1);
      if (c.size() < 2) c.fail(2, "missing the second agent of the contact");
      const std::int64_t b = c.integer(2, "agent index", agents - 1);
      const std::int64_t l = c.size() > 2 ? c.integer(3, "layer", 255) : 0;
      if (c.size() > 3) c.fail(4, "unexpected text after the last field");
      edges.add_touching(kept, static_cast<std::int32_t>(a), static_cast<std::int32_t>(b), static_cast<std::uint8_t>(l));
      max_layer = std::max(max_layer, static_cast<int>(l));
      if (progress && (++lines & 0xFFFFF) == 0) progress(0.1 + 0.7 * c.fraction_read());
    }
    p.layers = max_layer + 1;
    for (int l = 0; l < p.layers; ++l) p.layer_names.push_back("layer" + std::to_string(l));
  }
  if (progress) progress(0.8);
  build_contacts(p, edges);
  if (progress) progress(1.0);
  return p;
}

}  // namespace simgrad::contagion
