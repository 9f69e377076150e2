#include "scenario/scenario_reader.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <unistd.h>

namespace simgrad::scenario {
namespace {

// The error a call throws, failing the test if it throws none.
ScenarioError error_of(const std::function<void()>& call) {
  try {
    call();
  } catch (const ScenarioError& error) {
    return error;
  }
  ADD_FAILURE() << "expected a ScenarioError";
  return ScenarioError("", 0, 0, "", "");
}

std::string what_of(const std::function<void()>& call) { return error_of(call).what(); }

ScenarioFile parse(const std::string& text) {
  return ScenarioFile::parse(text, "examples/car.json");
}

const char* const car = R"({
  "name": "hatchback",
  "vehicle": {
    "mass": 1200,
    "tire": {
      "B": -1,
      "C": 1.9
    },
    "wheels": [
      {"radius": 0.3},
      {
        "radius": "big"
      }
    ],
    "note": "first line\nsecond \"quoted\" line\\",
    "gear_ratios": [3.5, 2.1,
                    1.4, "x"],
    "steps": 2.5
  }
})";

TEST(ScenarioReader, ErrorMessageNamesFileLinePathAndExpectation) {
  const auto vehicle = parse(car).root().child("vehicle");
  EXPECT_EQ(what_of([&] { vehicle.child("tire").positive("B"); }),
            "examples/car.json:6: vehicle.tire.B: expected a number > 0, got -1");
}

TEST(ScenarioReader, LinesOfNestedObjectsAndArrays) {
  const auto root = parse(car).root();
  const auto vehicle = root.child("vehicle");
  EXPECT_EQ(root.line(), 1);
  EXPECT_EQ(vehicle.line(), 3);
  EXPECT_EQ(vehicle.member("mass").line(), 4);
  EXPECT_EQ(vehicle.child("tire").member("C").line(), 7);
  const auto wheels = vehicle.array("wheels");
  ASSERT_EQ(wheels.size(), 2u);
  EXPECT_EQ(wheels[0].line(), 10);
  EXPECT_EQ(wheels[1].line(), 11);
  EXPECT_EQ(wheels[1].path(), "vehicle.wheels[1]");
  const auto error = error_of([&] { wheels[1].positive("radius"); });
  EXPECT_EQ(error.line(), 12);
  EXPECT_EQ(error.path(), "vehicle.wheels[1].radius");
  EXPECT_EQ(error.message(), "expected a number > 0, got \"big\"");
}

TEST(ScenarioReader, EscapedLineBreaksAndQuotesDoNotCountAsLines) {
  const auto vehicle = parse(car).root().child("vehicle");
  EXPECT_EQ(vehicle.string("note"), "first line\nsecond \"quoted\" line\\");
  EXPECT_EQ(vehicle.member("note").line(), 15);
  EXPECT_EQ(vehicle.member("steps").line(), 18);
}

TEST(ScenarioReader, ArrayElementsSpanningLines) {
  const auto vehicle = parse(car).root().child("vehicle");
  EXPECT_EQ(what_of([&] { vehicle.numbers("gear_ratios"); }),
            "examples/car.json:17: vehicle.gear_ratios[3]: expected a number, got \"x\"");
  EXPECT_EQ(what_of([&] { vehicle.numbers("gear_ratios", 3); }),
            "examples/car.json:16: vehicle.gear_ratios: expected an array of 3 numbers, got an "
            "array of 4 elements");
}

TEST(ScenarioReader, ArraysOfIntegers) {
  const auto root = parse(R"({"size": [4, 2.5], "ends": [0, 7], "one": [1, 2]})").root();
  EXPECT_EQ(root.integers("ends", 0, 7, 2), (std::vector<std::int64_t>{0, 7}));
  EXPECT_EQ(what_of([&] { root.integers("size", 1, 1000); }),
            "examples/car.json:1: size[1]: expected an integer in [1, 1000], got 2.5");
  EXPECT_EQ(error_of([&] { root.integers("one", 0, 9, 1); }).message(),
            "expected an array of 1 integer, got an array of 2 elements");
}

TEST(ScenarioReader, ValuesMatchNlohmannsOwnParser) {
  const std::string text =
      R"({"a": [1, -2, 3.5, 1e300, -0.0, 18446744073709551615, 18446744073709551616, 1e-400],
          "s": "\u00e9\ud83d\ude00\t\/", "t": true, "f": false, "n": null, "o": {}, "e": []})";
  const auto file = ScenarioFile::parse(text, "x.json");
  EXPECT_EQ(file.json(), nlohmann::json::parse(text));
  EXPECT_EQ(file.json()["a"][1].type(), nlohmann::json::parse(text)["a"][1].type());
  EXPECT_EQ(file.json()["s"], "\u00e9\U0001F600\t/");
}

TEST(ScenarioReader, ValidationMessages) {
  const auto root = parse(R"({
    "count": 2.5, "big": 200000, "whole": 3.0, "ratio": 1.5, "policy": "foo",
    "flag": "yes", "text": 4, "neg": -0.5, "obj": 3, "list": {"a": 1}, "none": null
  })")
                        .root();
  const auto message = [&](const std::function<void()>& call) {
    return error_of(call).message();
  };
  EXPECT_EQ(message([&] { root.integer("count", 1, 100000); }),
            "expected an integer in [1, 100000], got 2.5");
  EXPECT_EQ(message([&] { root.integer("big", 1, 100000); }),
            "expected an integer in [1, 100000], got 200000");
  EXPECT_EQ(root.integer("whole", 1, 10), 3);
  EXPECT_EQ(message([&] { root.in_range("ratio", 0, 1); }),
            "expected a number in [0, 1], got 1.5");
  EXPECT_EQ(message([&] { root.in_range("ratio", 1e-9, 0.25); }),
            "expected a number in [1e-09, 0.25], got 1.5");
  EXPECT_EQ(message([&] { root.choice("policy", {"all", "every:K", "binomial:S"}); }),
            "expected one of \"all\", \"every:K\", \"binomial:S\", got \"foo\"");
  EXPECT_EQ(message([&] { root.choice("policy", {"food", "drink"}); }),
            "expected one of \"food\", \"drink\", got \"foo\" (did you mean \"food\"?)");
  EXPECT_EQ(message([&] { root.boolean("flag"); }), "expected true or false, got \"yes\"");
  EXPECT_EQ(message([&] { root.string("text"); }), "expected a string, got 4");
  EXPECT_EQ(message([&] { root.non_negative("neg"); }), "expected a number >= 0, got -0.5");
  EXPECT_EQ(message([&] { root.positive("none"); }), "expected a number > 0, got null");
  EXPECT_EQ(message([&] { root.number("list"); }), "expected a number, got an object");
  EXPECT_EQ(message([&] { root.child("obj"); }), "expected an object, got 3");
  EXPECT_EQ(message([&] { root.array("list"); }), "expected an array, got an object");
  EXPECT_EQ(message([&] { root.member("list").fail_expected("a list of springs"); }),
            "expected a list of springs, got an object");
  EXPECT_EQ(message([&] { root.child("list").number("b"); }), "missing required field");
}

TEST(ScenarioReader, MissingFieldPointsAtItsObject) {
  const auto root = parse("{\n\"vehicle\":\n  {\n    \"mass\": 1\n  }\n}").root();
  EXPECT_EQ(what_of([&] { root.child("vehicle").positive("wheelbase"); }),
            "examples/car.json:3: vehicle.wheelbase: missing required field");
}

TEST(ScenarioReader, DefaultsApplyOnlyWhenAbsent) {
  const auto root = parse(R"({"dt": 0.01, "steps": 10, "bad": -1})").root();
  EXPECT_EQ(root.positive("dt", 1.0), 0.01);
  EXPECT_EQ(root.positive("gravity", 9.81), 9.81);
  EXPECT_EQ(root.integer("steps", 1, 100, 5), 10);
  EXPECT_EQ(root.string("mode", "soft"), "soft");
  EXPECT_EQ(root.choice("policy", {"all", "none"}, "all"), "all");
  EXPECT_FALSE(root.boolean("verbose", false));
  EXPECT_FALSE(root.optional_child("extra").has_value());
  EXPECT_THROW(root.positive("bad", 1.0), ScenarioError);
}

TEST(ScenarioReader, UnknownFieldSuggestsNearestKnownName) {
  const auto file = parse(R"({
  "softbody": {
    "stiffness": 10,
    "damping": 0.1,

    "stifness": 12
  }
})");
  const auto softbody = file.root().child("softbody");
  softbody.positive("stiffness");
  softbody.positive("damping");
  EXPECT_EQ(what_of([&] { softbody.finish(); }),
            "examples/car.json:6: softbody.stifness: unknown field (did you mean \"stiffness\"?)");
}

TEST(ScenarioReader, UnknownFieldWithNoNearNameListsKnownOnes) {
  const auto root = parse(R"({"dt": 0.1, "zzzzzz": 1})").root();
  root.number("dt");
  root.has("steps");
  EXPECT_EQ(error_of([&] { root.finish(); }).message(),
            "unknown field (known fields: \"dt\", \"steps\")");
}

TEST(ScenarioReader, FinishChecksOpenedDescendantsAndReportsTheFirstInTheFile) {
  const auto root = parse(R"({
  "a": {"x": 1},
  "springs": [
    {"k": 1},
    {"k": 2, "kk": 3}
  ],
  "raw": {"anything": 1},
  "late": 1
})")
                        .root();
  root.child("a").number("x");
  for (const auto& spring : root.array("springs")) spring.number("k");
  root.member("raw");  // read as raw json: its contents are not checked
  root.number("late");
  const auto error = error_of([&] { root.finish(); });
  EXPECT_EQ(error.line(), 5);
  EXPECT_EQ(error.path(), "springs[1].kk");
  EXPECT_EQ(error.message(), "unknown field (did you mean \"k\"?)");
}

TEST(ScenarioReader, FinishPassesWhenEveryFieldWasAskedFor) {
  const auto root = parse(R"({"loads": {"wind gust": {"force": 2}, "snow": {"force": 1}}})").root();
  for (const auto& [name, load] : root.child("loads").members()) load.number("force");
  EXPECT_NO_THROW(root.finish());
  EXPECT_EQ(root.child("loads").member("wind gust").path(), "loads[\"wind gust\"]");
}

TEST(ScenarioReader, SyntaxErrorsGiveLineAndColumn) {
  const auto syntax = [](const std::string& text) {
    return what_of([&] { ScenarioFile::parse(text, "s.json"); });
  };
  EXPECT_EQ(syntax("{\n  \"a\": 1,\n  \"b\" 2\n}"),
            "s.json:3:7: expected ':' after the field name, got a number");
  EXPECT_EQ(syntax("{\n  \"a\": 1\n  \"b\": 2\n}"), "s.json:3:3: missing ',' between fields");
  EXPECT_EQ(syntax("{\"a\": [1, 2,]}"), "s.json:1:13: trailing comma before ']'");
  EXPECT_EQ(syntax("{\"a\": 1,}"), "s.json:1:9: trailing comma before '}'");
  EXPECT_EQ(syntax("{\"a\": [1 2]}"), "s.json:1:10: missing ',' between array elements");
  EXPECT_EQ(syntax("{\"a\": \"line\nbreak\"}"),
            "s.json:1:12: line break inside a string (write \\n instead)");
  EXPECT_EQ(syntax("{\n\"a\": \"never closed}"), "s.json:2:6: unterminated string");
  EXPECT_EQ(syntax("{\"a\": \"bad \\q\"}"), "s.json:1:13: invalid escape in string: \\'q'");
  EXPECT_EQ(syntax("{\"a\": \"\\ud800x\"}"),
            "s.json:1:14: invalid \\u escape: unpaired high surrogate");
  EXPECT_EQ(syntax("{\"a\": \"\xC3\x28\"}"), "s.json:1:8: invalid UTF-8 inside a string");
  EXPECT_EQ(syntax("{'a': 1}"),
            "s.json:1:2: expected a field name in double quotes, got a single quote (JSON strings "
            "take double quotes)");
  EXPECT_EQ(syntax("{\"a\": 01}"), "s.json:1:7: invalid number '01'");
  EXPECT_EQ(syntax("{\"a\": 1.}"), "s.json:1:7: invalid number '1.'");
  EXPECT_EQ(syntax("{\"a\": 1e999}"), "s.json:1:7: number out of range: 1e999");
  EXPECT_EQ(syntax("{\"a\": NaN}"), "s.json:1:7: expected a value, got 'NaN'");
  EXPECT_EQ(syntax("{\"a\": tru}"), "s.json:1:7: expected a value, got 'tru'");
  EXPECT_EQ(syntax("{\n  // note\n}"),
            "s.json:2:3: expected a field name in double quotes, got '/'");
  EXPECT_EQ(syntax("[// note\n]"), "s.json:1:2: comments are not allowed in JSON");
  EXPECT_EQ(syntax("{} {}"), "s.json:1:4: unexpected '{' after the end of the JSON value");
  EXPECT_EQ(syntax(""), "s.json:1:1: expected a value, got end of file");
  EXPECT_EQ(syntax("{\"a\": {\"b\": [1, {\"c\": 2"),
            "s.json:1:24: expected ',' or '}' after a field, got end of file");
  EXPECT_EQ(syntax(std::string(1000, '[')), "s.json:1:258: nested deeper than 256 levels");
}

TEST(ScenarioReader, ColumnsCountCharactersNotBytes) {
  EXPECT_EQ(what_of([] { ScenarioFile::parse("{\"é\": 1 x}", "u.json"); }),
            "u.json:1:9: expected ',' or '}' after a field, got 'x'");
}

TEST(ScenarioReader, DuplicateFieldIsAnError) {
  EXPECT_EQ(what_of([] { ScenarioFile::parse("{\"v\": {\n \"m\": 1,\n \"m\": 2}}", "d.json"); }),
            "d.json:3:2: v.m: duplicate field (first at line 2)");
}

TEST(ScenarioReader, TopLevelMustBeAnObject) {
  EXPECT_EQ(what_of([] { ScenarioFile::parse("[1, 2]", "t.json").root(); }),
            "t.json:1: expected an object, got an array of 2 elements");
}

TEST(ScenarioReader, NearestName) {
  const std::vector<std::string> names = {"stiffness", "damping", "rest_length"};
  EXPECT_EQ(nearest_name("stifness", names), "stiffness");
  EXPECT_EQ(nearest_name("dampnig", names), "damping");  // a swap counts once
  EXPECT_EQ(nearest_name("Damping", names), "damping");
  EXPECT_EQ(nearest_name("mass", names), std::nullopt);
}

// A scratch folder removed at the end of the test.
class ScratchFolder {
public:
  ScratchFolder()
      : path_(std::filesystem::temp_directory_path() /
              ("simgrad_scenario_" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path_);
  }
  ~ScratchFolder() { std::filesystem::remove_all(path_); }
  const std::filesystem::path& path() const { return path_; }

private:
  std::filesystem::path path_;
};

TEST(ScenarioReader, LoadsFilesAndResolvesFileFieldsBesideThem) {
  const ScratchFolder folder;
  std::ofstream(folder.path() / "laps.csv") << "t,x\n";
  std::ofstream(folder.path() / "s.json") << R"({"telemetry": "laps.csv", "missing": "no.csv"})";
  const auto file = ScenarioFile::load(folder.path() / "s.json");
  EXPECT_EQ(file.name(), (folder.path() / "s.json").string());
  EXPECT_EQ(file.root().existing_file("telemetry"), folder.path() / "laps.csv");
  const auto error = error_of([&] { file.root().existing_file("missing"); });
  EXPECT_EQ(error.path(), "missing");
  EXPECT_NE(error.message().find("expected an existing file, got \"no.csv\""), std::string::npos);
}

TEST(ScenarioReader, LoadReportsUnreadableFiles) {
  const ScratchFolder folder;
  EXPECT_EQ(what_of([&] { ScenarioFile::load(folder.path() / "none.json"); }),
            (folder.path() / "none.json").string() + ": no such file");
  EXPECT_EQ(what_of([&] { ScenarioFile::load(folder.path()); }),
            folder.path().string() + ": is a folder, not a scenario file");
}

TEST(ScenarioReader, NodesOutliveTheirFile) {
  std::optional<ScenarioNode> node;
  {
    const auto file = parse(R"({"a": {"b": 2}})");
    node = file.root().child("a");
  }
  EXPECT_EQ(node->number("b"), 2);
  EXPECT_EQ(node->file(), "examples/car.json");
}

}  // namespace
}  // namespace simgrad::scenario

namespace simgrad::scenario {
namespace {

// Elements of an array of objects, one per line and spread over several lines, with errors in
// the second and third: each names the line of its own element, not its neighbour's.
const char* const springs = R"({
  "springs": [
    {"a": 0, "k": 1},
    {"a": 1, "k": "stiff"},
    {"a": 2, "kk": 3},
    {
      "a": 3,
      "k": -4
    },
    {
      "a": 4
    }
  ]
})";

TEST(ScenarioReader, ErrorsInLaterArrayElementsNameTheirOwnLine) {
  const auto root = parse(springs).root();
  const std::vector<ScenarioNode> elements = root.array("springs");
  ASSERT_EQ(elements.size(), 5u);
  EXPECT_EQ(what_of([&] { elements[1].number("k"); }), "examples/car.json:4: springs[1].k: expected a number, got \"stiff\"");
  EXPECT_EQ(what_of([&] { elements[2].number("k"); }), "examples/car.json:5: springs[2].k: missing required field");
  EXPECT_EQ(what_of([&] { elements[3].positive("k"); }), "examples/car.json:8: springs[3].k: expected a number > 0, got -4");
  EXPECT_EQ(what_of([&] { elements[4].number("k"); }), "examples/car.json:10: springs[4].k: missing required field");
  EXPECT_EQ(error_of([&] { elements[4].fail("a", "bad"); }).line(), 11);
  // An unknown field in the third element: its own line.
  for (const ScenarioNode& e : elements) {
    e.has("a");
    e.has("k");
  }
  const ScenarioError unknown = error_of([&] { root.finish(); });
  EXPECT_EQ(unknown.line(), 5);
  EXPECT_EQ(unknown.path(), "springs[2].kk");
}

}  // namespace
}  // namespace simgrad::scenario

namespace simgrad::scenario {
namespace {

TEST(ScenarioReader, AskedFieldsAreGatheredPerPathWithArrayIndicesFolded) {
  const auto root = parse(springs).root();
  for (const ScenarioNode& e : root.array("springs")) e.has("a");
  root.array("springs")[1].has("k");
  const auto asked = root.asked_fields();
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_EQ(asked.at(""), (std::set<std::string>{"springs"}));
  EXPECT_EQ(asked.at("springs[]"), (std::set<std::string>{"a", "k"}));  // every element's, together
  // From an element down: its own path, folded the same way.
  EXPECT_EQ(root.array("springs")[2].asked_fields().begin()->first, "springs[]");
}

}  // namespace
}  // namespace simgrad::scenario
