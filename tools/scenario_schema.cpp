// Rewrites docs/scenario.schema.json with every simulator's "tune.parameters" made from its
// tunables table (scenario/tuned_parameter.hpp); the rest of the file is written by hand.
// tests/scenario/scenario_schema_test.cpp fails until the file is rewritten after a table changes.
//   scenario_schema docs/scenario.schema.json
#include <fstream>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "report/atomic_file.hpp"
#include "scenario/scenario.hpp"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: scenario_schema docs/scenario.schema.json\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1]);
    if (!in) throw std::invalid_argument(std::string(argv[1]) + ": cannot open");
    const nlohmann::ordered_json schema = simgrad::scenario::with_tuned_parameter_schemas(nlohmann::ordered_json::parse(in));
    simgrad::report::write_file_atomically(argv[1], schema.dump(2) + "\n");
  } catch (const std::exception& e) {
    std::cerr << "scenario_schema: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
