// `simgrad list` and `simgrad describe SIMULATOR`: the simulators and their parameters, printed
// from the declarations the scenario loaders bind parameters by (simulators() in scenario.cpp).
#include <cstdio>
#include <iostream>

#include "app/commands.hpp"
#include "app/json_output.hpp"
#include "scenario/scenario.hpp"
#include "scenario/scenario_reader.hpp"
#include "scenario/tuned_parameter.hpp"

namespace simgrad::app {

using scenario::nearest_name;
using scenario::SimulatorInfo;
using scenario::simulators;
using scenario::tunable_json;

namespace {

using nlohmann::json;

json info_json(const SimulatorInfo& s) {
  json parameters = json::array();
  for (const tune::TunableInfo& t : s.tunables) parameters.push_back(tunable_json(t));
  return {{"name", s.name}, {"description", s.description}, {"parameters", parameters}};
}

// A default for people: numbers as numbers, words as words, one per preset as "preset value".
std::string default_text(const json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_number()) {
    char text[32];
    std::snprintf(text, sizeof text, "%.10g", value.get<double>());
    return text;
  }
  std::string out;
  if (value.is_array()) {
    for (const json& v : value) out += (out.empty() ? "[" : ", ") + default_text(v);
    return out + "]";
  }
  for (const auto& [name, v] : value.items()) out += (out.empty() ? "" : ", ") + name + " " + default_text(v);
  return out;
}

// One simulator for people: its description, then a line per parameter.
void print_simulator(const SimulatorInfo& s) {
  std::cout << s.name << ": " << s.description << "\n";
  const json info = info_json(s);
  for (const json& p : info["parameters"]) {
    std::cout << "  " << p["name"].get<std::string>() << " [" << p["unit"].get<std::string>() << "] per "
              << p["per"].get<std::string>() << ": " << p["description"].get<std::string>();
    if (p.contains("default") && !p["default"].is_null()) std::cout << " (default " << default_text(p["default"]) << ")";
    std::cout << "\n";
  }
}

}  // namespace

int run_list(const CommonOptions& common) {
  json sims = json::array();
  for (const SimulatorInfo& s : simulators()) sims.push_back(info_json(s));
  if (common.json) {
    print_json(json{{"simulators", sims}});
    return 0;
  }
  for (const SimulatorInfo& s : simulators()) print_simulator(s);
  return 0;
}

int run_describe(const std::string& simulator, const CommonOptions& common) {
  std::vector<std::string> names;
  for (const SimulatorInfo& s : simulators()) {
    if (s.name != simulator) {
      names.push_back(s.name);
      continue;
    }
    if (common.json) print_json(info_json(s));
    else print_simulator(s);
    return 0;
  }
  std::string message = "describe: no simulator \"" + simulator + "\"";
  if (const auto nearest = nearest_name(simulator, names)) message += " (did you mean \"" + *nearest + "\"?)";
  message += "; `simgrad list` shows them all";
  std::cerr << "simgrad: " << message << "\n";
  if (common.json) print_json(json{{"error", message}, {"exit_code", 2}});
  return 2;
}

}  // namespace simgrad::app
