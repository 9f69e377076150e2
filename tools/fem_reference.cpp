// Writes the reference marker CSV of an FEM example: the scenario's body simulated with other
// material values, plus Gaussian sensor noise. Reproducible: the same arguments give the same
// file, byte for byte.
//   fem_reference SCENARIO.json REFERENCE_JSON > markers.csv
// REFERENCE_JSON replaces the scenario's loss reference and names the markers and frame stride,
// e.g. '{"markers": [3, 7], "stride": 20, "reference": {"generate": {"youngs_modulus": 2e5},
// "noise_relative": 0.01, "seed": 3}}'.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <nlohmann/json.hpp>

#include "scenario/fem_scenario.hpp"
#include "scenario/scenario.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: fem_reference SCENARIO.json REFERENCE_JSON > markers.csv\n";
    return 2;
  }
  try {
    std::ifstream in(argv[1]);
    if (!in) throw std::invalid_argument(std::string(argv[1]) + ": cannot open");
    nlohmann::json scenario = nlohmann::json::parse(in);
    const nlohmann::json loss = nlohmann::json::parse(argv[2]);
    scenario["loss"] = loss;
    scenario["loss"]["type"] = "trajectory_match";
    const auto s = simgrad::scenario::load_scenario_text(scenario.dump(), argv[1]);
    simgrad::fem::write_marker_csv(std::cout, simgrad::scenario::fem_reference(*s));
  } catch (const std::exception& e) {
    std::cerr << "fem_reference: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
