// The compact text plan of an assembly, one line per part, connection or actuator, in the order
// a player places them ('#' starts a comment):
//
//   block torso size=0.4,0.2,0.08 mass=3
//   rod thigh length=0.25 radius=0.03 direction=0,0,-1
//   hinge hip torso>thigh at=0.2,0.1,-0.04 axis=0,1,0 range=-1,1
//   motor hip_motor hip strength=10
//   base fixed                 (or free, the default)
//   root torso                 (the first part unless named)
//   start 0,0,0.5              (the root's origin; lifted to stand on the ground unless given)
//
// Parts: TYPE NAME key=value...; connections: TYPE NAME PARENT>CHILD key=value...; actuators:
// TYPE NAME CONNECTION key=value. The keys are the fields of Part, Connection and Actuator
// (assembly.hpp), set through the same setters as a JSON assembly's.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sims/assembly/assembly.hpp"

namespace simgrad::assembly {

// A field's value as written: numbers, or one word.
struct FieldValue {
  std::vector<double> numbers;
  std::string word;
};

// Set one field of a part, connection or actuator; an unknown key or a value of the wrong shape
// throws AssemblyError saying what was expected.
void set_field(Part& part, const std::string& key, const FieldValue& value);
void set_field(Connection& connection, const std::string& key, const FieldValue& value);
void set_field(Actuator& actuator, const std::string& key, const FieldValue& value);

// Reads a plan; an error throws AssemblyError starting "plan line N: ".
Assembly parse_plan(std::string_view text);

// The assembly as a plan that parse_plan reads back to the same assembly (environment aside).
std::string to_plan(const Assembly& assembly);

}  // namespace simgrad::assembly
