// docs/scenario.schema.json against the examples and the loaders: every example is valid under
// the schema, every field a loader asks for while loading an example is in the schema, and
// every field in the schema is asked for by a loader, so the documented schema cannot drift
// from the code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "scenario/scenario.hpp"
#include "scenario/scenario_reader.hpp"

namespace simgrad::scenario {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kSource = SIMGRAD_SOURCE_DIR;

json load_schema() {
  std::ifstream in(kSource / "docs" / "scenario.schema.json");
  return json::parse(in);
}

std::vector<fs::path> example_files() {
  std::vector<fs::path> files;
  for (const auto& entry : fs::recursive_directory_iterator(kSource / "examples"))
    if (entry.is_regular_file() && entry.path().extension() == ".json") files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

// A small JSON Schema (draft 2020-12) validator: the keywords the scenario schema uses. Any
// other keyword is an error, so the schema never says more than this checks.
class Validator {
 public:
  explicit Validator(json schema) : root_(std::move(schema)) {}

  // The errors of `value` against the whole schema, as "path: message".
  std::vector<std::string> errors(const json& value) const {
    std::vector<std::string> out;
    check(value, root_, "", out);
    return out;
  }

  // The schema `ref` points to ("#/$defs/name").
  const json& resolve(const std::string& ref) const {
    return root_.at(json::json_pointer(ref.substr(1)));
  }

 private:
  static bool has_type(const json& v, const std::string& type) {
    if (type == "object") return v.is_object();
    if (type == "array") return v.is_array();
    if (type == "string") return v.is_string();
    if (type == "boolean") return v.is_boolean();
    if (type == "null") return v.is_null();
    if (type == "number") return v.is_number();
    if (type == "integer") return v.is_number_integer() || (v.is_number_float() && std::floor(v.get<double>()) == v.get<double>());
    throw std::invalid_argument("schema: unknown type " + type);
  }

  void check(const json& v, const json& s, const std::string& path, std::vector<std::string>& out) const {
    static const std::set<std::string> annotations = {"$schema", "$id", "$defs", "title", "description", "default", "examples", "$comment"};
    for (const auto& [keyword, argument] : s.items()) {
      if (annotations.contains(keyword)) continue;
      if (keyword == "$ref") {
        check(v, resolve(argument.get<std::string>()), path, out);
      } else if (keyword == "type") {
        const std::vector<std::string> types = argument.is_array() ? argument.get<std::vector<std::string>>()
                                                                   : std::vector<std::string>{argument.get<std::string>()};
        if (std::none_of(types.begin(), types.end(), [&](const std::string& t) { return has_type(v, t); }))
          out.push_back(path + ": expected type " + argument.dump() + ", got " + v.dump().substr(0, 40));
      } else if (keyword == "enum") {
        if (std::find(argument.begin(), argument.end(), v) == argument.end()) out.push_back(path + ": not in " + argument.dump());
      } else if (keyword == "const") {
        if (v != argument) out.push_back(path + ": expected " + argument.dump());
      } else if (keyword == "required") {
        if (v.is_object())
          for (const json& key : argument)
            if (!v.contains(key.get<std::string>())) out.push_back(path + ": missing " + key.get<std::string>());
      } else if (keyword == "properties" || keyword == "additionalProperties") {
        // Both keywords at once, when the first of them comes up.
        if (!v.is_object() || (keyword == "additionalProperties" && s.contains("properties"))) continue;
        const json properties = s.value("properties", json::object());
        for (const auto& [key, member] : v.items()) {
          if (properties.contains(key)) check(member, properties[key], path + "." + key, out);
          else if (!s.contains("additionalProperties")) continue;
          else if (s["additionalProperties"] == false) out.push_back(path + ": unknown field " + key);
          else check(member, s["additionalProperties"], path + "." + key, out);
        }
      } else if (keyword == "items") {
        if (v.is_array())
          for (std::size_t i = 0; i < v.size(); ++i) check(v[i], argument, path + "[" + std::to_string(i) + "]", out);
      } else if (keyword == "minItems" || keyword == "maxItems") {
        if (v.is_array() && (keyword == "minItems" ? v.size() < argument.get<std::size_t>() : v.size() > argument.get<std::size_t>()))
          out.push_back(path + ": " + keyword + " " + argument.dump());
      } else if (keyword == "minimum" || keyword == "exclusiveMinimum" || keyword == "maximum") {
        if (!v.is_number()) continue;
        const double x = v.get<double>(), bound = argument.get<double>();
        const bool ok = keyword == "minimum" ? x >= bound : keyword == "exclusiveMinimum" ? x > bound : x <= bound;
        if (!ok) out.push_back(path + ": " + keyword + " " + argument.dump());
      } else if (keyword == "oneOf" || keyword == "anyOf") {
        int passing = 0;
        std::vector<std::string> first;
        for (const json& alternative : argument) {
          std::vector<std::string> e;
          check(v, alternative, path, e);
          if (e.empty()) ++passing;
          else if (first.empty() || e.size() < first.size()) first = e;
        }
        if (passing == 0 || (keyword == "oneOf" && passing > 1))
          out.push_back(path + ": " + keyword + " matched " + std::to_string(passing) + (first.empty() ? "" : " (closest: " + first.front() + ")"));
      } else {
        throw std::invalid_argument("schema: keyword the test validator does not check: " + keyword);
      }
    }
  }

  json root_;
};

// The path pattern "a.b[]" or "a[\"user name\"].c" as segments: names, and "[]" for elements.
std::vector<std::string> segments_of(const std::string& pattern) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < pattern.size()) {
    if (pattern[i] == '.') ++i;
    if (pattern.compare(i, 2, "[]") == 0) {
      out.push_back("[]");
      i += 2;
    } else if (pattern.compare(i, 2, "[\"") == 0) {
      const std::size_t end = pattern.find("\"]", i + 2);
      out.push_back(json::parse(pattern.substr(i + 1, end - i)).get<std::string>());
      i = end + 2;
    } else {
      const std::size_t end = pattern.find_first_of(".[", i);
      out.push_back(pattern.substr(i, end == std::string::npos ? std::string::npos : end - i));
      i = end == std::string::npos ? pattern.size() : end;
    }
  }
  return out;
}

// The subschemas a segment leads to from `s` (several where alternatives allow several).
void step(const Validator& v, const json& s, const std::string& segment, std::vector<const json*>& out) {
  if (s.contains("$ref")) return step(v, v.resolve(s["$ref"].get<std::string>()), segment, out);
  for (const char* alternatives : {"oneOf", "anyOf"})
    if (s.contains(alternatives))
      for (const json& a : s[alternatives]) step(v, a, segment, out);
  if (segment == "[]") {
    if (s.contains("items")) out.push_back(&s["items"]);
  } else if (s.contains("properties") && s["properties"].contains(segment)) {
    out.push_back(&s["properties"][segment]);
  } else if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) {
    out.push_back(&s["additionalProperties"]);
  }
}

// The schema of one simulator's scenario file: the root alternative whose "simulator" is it.
const json* simulator_schema(const Validator& v, const json& schema, const std::string& simulator) {
  for (const json& alternative : schema.at("oneOf")) {
    const json& s = v.resolve(alternative.at("$ref").get<std::string>());
    if (s.at("properties").at("simulator").at("const") == simulator) return &s;
  }
  return nullptr;
}

TEST(ScenarioSchema, EveryExampleIsValid) {
  const json schema = load_schema();
  EXPECT_EQ(schema.at("$schema"), "https://json-schema.org/draft/2020-12/schema");
  const Validator validator(schema);
  const std::vector<fs::path> files = example_files();
  ASSERT_GE(files.size(), 10u);
  for (const fs::path& file : files) {
    std::ifstream in(file);
    const std::vector<std::string> errors = validator.errors(json::parse(in));
    EXPECT_TRUE(errors.empty()) << file << ": " << errors.front();
  }
}

TEST(ScenarioSchema, CatchesMisspeltFieldsWrongTypesAndValuesOutsideTheEnum) {
  const Validator validator(load_schema());
  std::ifstream in(kSource / "examples" / "mass_spring_simple.json");
  const json good = json::parse(in);
  ASSERT_TRUE(validator.errors(good).empty());
  json misspelt = good;
  misspelt["stifness"] = 1.0;
  EXPECT_FALSE(validator.errors(misspelt).empty());
  json wrong_type = good;
  wrong_type["steps"] = "many";
  EXPECT_FALSE(validator.errors(wrong_type).empty());
  json outside = good;
  outside["tune"]["optimizer"] = "sgd";
  EXPECT_FALSE(validator.errors(outside).empty());
  json missing = good;
  missing.erase("simulator");
  EXPECT_FALSE(validator.errors(missing).empty());
}

// Examples changed to take loader branches no example takes: textual edits of an example.
struct Variant {
  const char* example;
  std::vector<std::pair<std::string, std::string>> edits;  // {text, replacement}
};
const Variant kVariants[] = {
    // The jelly's fields on a small block over a few steps: loading simulates the reference.
    {"jelly_fit.json", {{R"("size": [10, 10, 10])", R"("size": [3, 3, 3])"}, {R"("steps": 600)", R"("steps": 40)"}}},
    {"mass_spring_simple.json", {{R"("sharing": "each")", R"("sharing": "groups", "groups": [0, 0, 1])"}}},
    {"vehicle/bmw_320i_step_steer.json",
     {{R"("preset": "bmw_320i")", R"("preset": "bmw_320i", "low_speed": {"blend_low": 1, "blend_high": 3, "time_constant": 0.05})"}}},
    {"contagion_boarding_school.json",
     {{R"("population": {"complete": 763})", R"("population": {"synthetic": {"agents": 500, "seed": 2, "random_contacts": 1}})"},
      {R"("mean_interactions": [1], )", ""},
      {R"("profile": [0.6, 0.3, 0.1])", R"("profile": {"gamma": {"mean": 1.5, "sd": 0.8}})"}}},
    // A reach task: only it reads a target.
    {"creature_jumper.json", {{R"("type": "jump")", R"("type": "reach", "target": [0.5, 0.3])"}}},
    // The fluid's starting smoke from a picture and from shapes.
    // 3D obstacles beside the box: a sphere and a cylinder along an axis.
    {"smoke_chimney_3d.json",
     {{R"({"box": [0.8, 0.0, 0.2, 1.2, 0.75, 0.8]})",
       R"({"box": [0.8, 0.0, 0.2, 1.2, 0.75, 0.8]}, {"sphere": [1.5, 1.2, 0.6, 0.2]},
          {"cylinder": [0.6, 1.3, 0.15, 0.0, 1.2], "axis": "z"})"}}},
    {"smoke_target.json",
     {{R"("initial_density": {"checker": 16, "value": 0.64})",
       R"("initial_density": {"image": "data/smoke_target.pgm", "invert": false, "scale": 0.5})"}}},
    {"smoke_target.json",
     {{R"("initial_density": {"checker": 16, "value": 0.64})",
       R"("initial_density": {"shapes": [{"circle": [0.5, 0.5, 0.2], "value": 0.8}, {"box": [0.1, 0.1, 0.3, 0.3]}]})"}}},
    // FEM over a few steps (a generated reference simulates them): regions, obstacle boxes, pins,
    // .obj output and grouped sharing; a 2D disk; a TetGen mesh.
    {"fem_bouncing_block.json",
     {{R"("steps": 1200)", R"("steps": 20)"},
      {R"("density": 1000,)",
       R"("density": 1000, "region_boxes": [{"min": [0, 0, 0], "max": [0.05, 0.1, 0.2]}], "pinned": [0],
          "boxes": [{"min": [0.2, 0, 0], "max": [0.3, 0.1, 0.1], "friction": 0.2}], "surface_obj": {"folder": "obj", "every": 5},)"},
      {R"("reference": {"csv": "fem/bouncing_block_markers.csv"})",
       R"("markers": [0, 5, 10], "stride": 5, "reference": {"generate": {"youngs_modulus": 1e5, "poisson_ratio": 0.35,
          "damping": 0.001, "mass_damping": 3.0}, "noise": 0.0001, "noise_relative": 0.01, "seed": 5})"},
      {R"("sharing": "uniform", "lower": 1e3)", R"("sharing": "groups", "groups": [0, 0], "initial": 5e4, "lower": 1e3)"}}},
    {"fem_bouncing_block.json",
     {{R"("dimension": 3)", R"("dimension": 2)"},
      {R"("steps": 1200)", R"("steps": 20)"},
      {R"("mesh": {"type": "box", "cells": [3, 3, 3], "size": [0.1, 0.1, 0.1], "origin": [0, 0, 0.01]})",
       R"("mesh": {"type": "disk", "radius": 0.05, "rings": 2, "centre": [0, 0.06]})"},
      {R"("gravity": [0, 0, -9.81])", R"("gravity": [0, -9.81])"},
      {R"("initial_velocity": [0.5, 0, -1.0])", R"("initial_velocity": [0.5, -1.0])"},
      {R"("normal": [0, 0, 1])", R"("normal": [0, 1])"},
      {R"("reference": {"csv": "fem/bouncing_block_markers.csv"})", R"("stride": 5, "reference": {"generate": {"youngs_modulus": 1e5}})"}}},
    {"fem_bouncing_block.json",
     {{R"("steps": 1200)", R"("steps": 20)"},
      {R"("mesh": {"type": "box", "cells": [3, 3, 3], "size": [0.1, 0.1, 0.1], "origin": [0, 0, 0.01]})",
       R"("mesh": {"type": "tetgen", "node_file": "fem/two_tets.node"})"},
      {R"("reference": {"csv": "fem/bouncing_block_markers.csv"})", R"("stride": 5, "reference": {"generate": {"youngs_modulus": 1e5}})"}}},
    // An assembly's graph with every optional field; a servo; a network controller; a warm start.
    {"assembly/rover.json",
     {{R"({"name": "chassis", "type": "block", "size": [0.5, 0.3, 0.08], "mass": 3.0})",
       R"({"name": "chassis", "type": "block", "size": [0.5, 0.3, 0.08], "child_at": [0, 0, 0.01], "friction": 0.8})"},
      {R"("axis": [0, 1, 0]},)", R"("axis": [0, 1, 0], "range": [-3, 3], "stiffness": 0.1, "damping": 0.2, "armature": 0.02},)"},
      {R"({"name": "drive_fl", "type": "motor", "connection": "axle_fl", "strength": 1.0})",
       R"({"name": "drive_fl", "type": "servo", "connection": "axle_fl", "strength": 1.0, "gain": 5.0})"},
      {R"("actuators": [)", R"("root": "chassis", "base": "free", "start": [0, 0, 0.2], "actuators": [)"},
      {R"({"name": "mast", "type": "rod", "length": 0.2, "radius": 0.015, "direction": [0, 0, 1], "mass": 0.2})",
       R"({"name": "mast", "type": "soft_cell", "size": [0.05, 0.05, 0.05], "stiffness": 500, "damping": 0.3})"}}},
    // A spring connection from the chassis to the mast's tip.
    {"assembly/rover.json",
     {{R"({"name": "mast_mount", "type": "fixed", "parent": "chassis", "child": "mast", "at": [0.0, 0.0, 0.04]})",
       R"({"name": "mast_mount", "type": "hinge", "parent": "chassis", "child": "mast", "at": [0.0, 0.0, 0.04]},
        {"name": "stay", "type": "spring", "parent": "chassis", "child": "mast", "at": [0.2, 0.0, 0.04], "to": "end", "stiffness": 100})"}}},
    {"assembly/walker.json",
     {{R"("type": "sine_bank", "omega": 12.0)", R"("type": "network", "hidden": 8, "seed": 3, "velocity_scale": 0.2, "omega": 12.0)"}}},
    {"assembly/walker.json",
     {{R"("type": "sine_bank", "omega": 12.0)",
       R"("type": "sine_bank", "warm_start": "../../tests/data/assembly_walker_result.json", "omega": 12.0)"}}},
};

// What the loaders asked for, per simulator: path pattern -> fields, over every example and the
// variants. The jelly examples are read as the small variant above (the noisy twin adds only
// "markers" and its noise, fields the noiseless loader asks for too).
std::map<std::string, std::map<std::string, std::set<std::string>>> fields_the_loaders_read() {
  std::map<std::string, std::map<std::string, std::set<std::string>>> out;
  auto gather = [&](const ScenarioFile& scenario, const std::string& name) {
    load_scenario_file(scenario, name);
    const std::string simulator = scenario.json().at("simulator").get<std::string>();
    for (const auto& [pattern, keys] : scenario.root().asked_fields()) out[simulator][pattern].insert(keys.begin(), keys.end());
  };
  for (const fs::path& file : example_files())
    if (!file.stem().string().starts_with("jelly_fit")) gather(ScenarioFile::load(file), file.filename().string());
  for (const Variant& v : kVariants) {
    std::ifstream in(kSource / "examples" / v.example);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (const auto& [from, to] : v.edits) {
      const std::size_t at = text.find(from);
      if (at == std::string::npos) throw std::logic_error(std::string(v.example) + " no longer has " + from);
      text.replace(at, from.size(), to);
    }
    const std::string name = (kSource / "examples" / v.example).string();
    gather(ScenarioFile::parse(text, name), name);
  }
  return out;
}

// The same, gathered once for the tests that use it (loading the examples takes a while).
const std::map<std::string, std::map<std::string, std::set<std::string>>>& read_fields() {
  static const auto fields = fields_the_loaders_read();
  return fields;
}

TEST(ScenarioSchema, EveryFieldTheLoadersAskForIsInTheSchema) {
  const json schema = load_schema();
  const Validator validator(schema);
  for (const auto& [simulator, patterns] : read_fields()) {
    const json* top = simulator_schema(validator, schema, simulator);
    // A new simulator: its loader's fields, to write its alternative of the schema from.
    ASSERT_NE(top, nullptr) << "docs/scenario.schema.json has no alternative for \"" << simulator
                            << "\"; its loader reads (path: fields) " << json(patterns).dump();
    for (const auto& [pattern, keys] : patterns) {
      std::vector<const json*> at = {top};
      for (const std::string& segment : segments_of(pattern)) {
        std::vector<const json*> next;
        for (const json* s : at) step(validator, *s, segment, next);
        at = next;
      }
      ASSERT_FALSE(at.empty()) << simulator << ": no schema for " << pattern;
      for (const std::string& key : keys) {
        std::vector<const json*> found;
        for (const json* s : at) step(validator, *s, key, found);
        EXPECT_FALSE(found.empty()) << simulator << ": the loader reads " << (pattern.empty() ? "" : pattern + ".") << key
                                    << ", which the schema lacks";
      }
    }
  }
}

// The other way round: every field the schema names, some loader reads.
void expect_read(const Validator& v, const json& s, const std::string& pattern,
                 const std::map<std::string, std::set<std::string>>& read, const std::string& simulator) {
  if (s.contains("$ref")) return expect_read(v, v.resolve(s["$ref"].get<std::string>()), pattern, read, simulator);
  for (const char* alternatives : {"oneOf", "anyOf"})
    if (s.contains(alternatives))
      for (const json& a : s[alternatives]) expect_read(v, a, pattern, read, simulator);
  if (s.contains("items")) expect_read(v, s["items"], pattern + "[]", read, simulator);
  if (s.contains("properties")) {
    const auto here = read.find(pattern);
    for (const auto& [key, member] : s["properties"].items()) {
      EXPECT_TRUE(here != read.end() && here->second.contains(key))
          << simulator << ": the schema names " << (pattern.empty() ? "" : pattern + ".") << key << ", which no loader reads";
      expect_read(v, member, pattern.empty() ? key : pattern + "." + key, read, simulator);
    }
  }
  // Members under the user's names: checked at the first name the examples use.
  if (s.contains("additionalProperties") && s["additionalProperties"].is_object())
    for (const auto& [p, keys] : read)
      if (p.starts_with(pattern + ".") && p.find_first_of(".[", pattern.size() + 1) == std::string::npos) {
        expect_read(v, s["additionalProperties"], p, read, simulator);
        break;
      }
}

TEST(ScenarioSchema, EveryFieldInTheSchemaIsReadByALoader) {
  const json schema = load_schema();
  const Validator validator(schema);
  for (const auto& [simulator, patterns] : read_fields()) {
    const json* top = simulator_schema(validator, schema, simulator);
    EXPECT_NE(top, nullptr) << "docs/scenario.schema.json has no alternative for \"" << simulator << "\"";
    if (top != nullptr) expect_read(validator, *top, "", patterns, simulator);
  }
}

// The tuned parameters' part of the schema is made from the simulators' tunables tables: the
// file holds exactly what tools/scenario_schema writes (run it after changing a table).
TEST(ScenarioSchema, TunedParametersAreTheOnesTheTunablesTablesMake) {
  std::ifstream in(kSource / "docs" / "scenario.schema.json");
  const nlohmann::ordered_json file = nlohmann::ordered_json::parse(in);
  EXPECT_EQ(file, with_tuned_parameter_schemas(file))
      << "docs/scenario.schema.json is out of step with the tunables tables: run build/scenario_schema docs/scenario.schema.json";
  for (const SimulatorInfo& s : simulators())
    if (s.table_parameters) {
      const auto& names = file["$defs"][s.name]["properties"]["tune"]["properties"]["parameters"]["items"]["properties"]["name"]["enum"];
      EXPECT_EQ(names.size(), s.tunables.size()) << s.name;
    }
}

}  // namespace
}  // namespace simgrad::scenario
