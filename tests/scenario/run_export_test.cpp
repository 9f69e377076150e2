// Exports read back by readers that are not simgrad's: tinygltf for glTF 2.0, and pugixml with
// the VTK XML format's rules written here for the VTK series. Each file must hold the run: its
// first frame the body at rest, its last the rollout's final state.
#include "scenario/run_export.hpp"

#include <gtest/gtest.h>
#include <tiny_gltf.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <filesystem>
#include <pugixml.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tune/problem.hpp"

namespace simgrad::scenario {
namespace {

std::filesystem::path fresh_folder(const std::string& name) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("simgrad_export_" + name + "_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

std::string example(const std::string& file) { return std::string(SIMGRAD_SOURCE_DIR) + "/examples/" + file; }

// The final state of a run at the scenario's initial parameters.
std::vector<double> final_state(Scenario& scenario) {
  auto& problem = dynamic_cast<tune::RolloutProblem&>(scenario.problem());
  problem.value(problem.initial());
  const auto s = problem.rollout().final_state();
  return {s.begin(), s.end()};
}

// An accessor's floats, through its buffer view (tightly packed, as glTF allows).
std::vector<float> floats(const tinygltf::Model& model, int accessor_index) {
  const tinygltf::Accessor& a = model.accessors.at(static_cast<std::size_t>(accessor_index));
  EXPECT_EQ(a.componentType, TINYGLTF_COMPONENT_TYPE_FLOAT);
  const tinygltf::BufferView& view = model.bufferViews.at(static_cast<std::size_t>(a.bufferView));
  const int components = a.type == TINYGLTF_TYPE_VEC3 ? 3 : 1;
  std::vector<float> out(a.count * static_cast<std::size_t>(components));
  std::memcpy(out.data(), model.buffers.at(static_cast<std::size_t>(view.buffer)).data.data() + view.byteOffset + a.byteOffset,
              out.size() * sizeof(float));
  return out;
}

std::vector<std::uint32_t> indices(const tinygltf::Model& model, int accessor_index) {
  const tinygltf::Accessor& a = model.accessors.at(static_cast<std::size_t>(accessor_index));
  EXPECT_EQ(a.componentType, TINYGLTF_COMPONENT_TYPE_UNSIGNED_INT);
  const tinygltf::BufferView& view = model.bufferViews.at(static_cast<std::size_t>(a.bufferView));
  std::vector<std::uint32_t> out(a.count);
  std::memcpy(out.data(), model.buffers.at(static_cast<std::size_t>(view.buffer)).data.data() + view.byteOffset + a.byteOffset,
              out.size() * sizeof(std::uint32_t));
  return out;
}

std::vector<double> numbers(const char* text) {
  std::vector<double> out;
  std::istringstream in(text);
  std::string word;
  while (in >> word) out.push_back(std::strtod(word.c_str(), nullptr));
  return out;
}

tinygltf::Model read_gltf(const std::filesystem::path& file) {
  tinygltf::TinyGLTF loader;
  tinygltf::Model model;
  std::string error, warning;
  EXPECT_TRUE(loader.LoadASCIIFromFile(&model, &error, &warning, file.string())) << error;
  EXPECT_EQ(error, "");
  return model;
}

TEST(RunExport, GltfOfTheTriangleHoldsEveryFrameAsAMorphTarget) {
  auto scenario = load_scenario({});  // DiffTaichi's triangle: 3 nodes, 3 springs, 1024 steps of 1 ms
  const std::vector<double> last = final_state(*scenario);
  const std::filesystem::path file = fresh_folder("gltf") / "triangle.gltf";
  const int frames = export_run(*scenario, scenario->problem().initial(), file);
  EXPECT_EQ(frames, 104);  // every 10th step of 1024, and the last

  const tinygltf::Model model = read_gltf(file);
  ASSERT_EQ(model.meshes.size(), 1u);
  ASSERT_EQ(model.meshes[0].primitives.size(), 1u);
  const tinygltf::Primitive& springs = model.meshes[0].primitives[0];
  EXPECT_EQ(springs.mode, TINYGLTF_MODE_LINE);
  EXPECT_EQ(indices(model, springs.indices), (std::vector<std::uint32_t>{0, 1, 1, 2, 2, 0}));
  const std::vector<float> rest = floats(model, springs.attributes.at("POSITION"));
  EXPECT_EQ(rest, (std::vector<float>{0.3f, 0.5f, 0.0f, 0.3f, 0.4f, 0.0f, 0.4f, 0.4f, 0.0f}));
  ASSERT_EQ(springs.targets.size(), static_cast<std::size_t>(frames - 1));
  const std::vector<float> moved = floats(model, springs.targets.back().at("POSITION"));
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 2; ++k)
      EXPECT_NEAR(rest[static_cast<std::size_t>(3 * i + k)] + moved[static_cast<std::size_t>(3 * i + k)],
                  last[static_cast<std::size_t>(2 * i + k)], 1e-6);

  ASSERT_EQ(model.animations.size(), 1u);
  const tinygltf::AnimationSampler& sampler = model.animations[0].samplers.at(0);
  EXPECT_EQ(sampler.interpolation, "STEP");
  EXPECT_EQ(model.animations[0].channels.at(0).target_path, "weights");
  const std::vector<float> times = floats(model, sampler.input);
  ASSERT_EQ(times.size(), static_cast<std::size_t>(frames));
  EXPECT_EQ(times.front(), 0.0f);
  EXPECT_FLOAT_EQ(times.back(), 1.024f);
  for (std::size_t f = 1; f < times.size(); ++f) EXPECT_LT(times[f - 1], times[f]);
  // At the last key only the last target is on.
  const std::vector<float> weights = floats(model, sampler.output);
  ASSERT_EQ(weights.size(), static_cast<std::size_t>(frames * (frames - 1)));
  for (int k = 0; k < frames - 1; ++k)
    EXPECT_EQ(weights[static_cast<std::size_t>((frames - 1) * (frames - 1) + k)], k == frames - 2 ? 1.0f : 0.0f);
}

// The triangles t over points p (xyz) close every surface they make, wound consistently and
// outward: each directed edge appears once and its reverse once, and each connected surface
// encloses a positive volume (the divergence theorem over its triangles).
void expect_closed_outward(const std::vector<std::uint32_t>& t, const std::vector<float>& p) {
  ASSERT_GT(t.size(), 0u);
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> directed;
  for (std::size_t k = 0; k < t.size(); k += 3)
    for (std::size_t e = 0; e < 3; ++e) ++directed[{t[k + e], t[k + (e + 1) % 3]}];
  for (const auto& [edge, count] : directed) {
    EXPECT_EQ(count, 1);
    EXPECT_EQ((directed.count({edge.second, edge.first})), 1u);
  }
  // Surfaces: points joined by triangles (union-find), then each one's signed volume.
  std::vector<std::uint32_t> parent(p.size() / 3);
  for (std::uint32_t i = 0; i < parent.size(); ++i) parent[i] = i;
  auto root = [&](std::uint32_t i) {
    while (parent[i] != i) i = parent[i] = parent[parent[i]];
    return i;
  };
  for (std::size_t k = 0; k < t.size(); k += 3) {
    parent[root(t[k + 1])] = root(t[k]);
    parent[root(t[k + 2])] = root(t[k]);
  }
  std::map<std::uint32_t, double> volume;
  for (std::size_t k = 0; k < t.size(); k += 3) {
    const float* a = &p[3 * t[k]];
    const float* b = &p[3 * t[k + 1]];
    const float* c = &p[3 * t[k + 2]];
    volume[root(t[k])] += (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0])) / 6.0;
  }
  for (const auto& [surface, v] : volume) EXPECT_GT(v, 0.0) << "surface of point " << surface;
}

TEST(RunExport, GltfOfATetrahedralBodyIsItsClosedSurface) {
  auto scenario = load_scenario(example("fem_cantilever.json"));
  const std::filesystem::path file = fresh_folder("fem_gltf") / "cantilever.gltf";
  export_run(*scenario, scenario->problem().initial(), file);
  const tinygltf::Model model = read_gltf(file);
  const tinygltf::Primitive& surface = model.meshes.at(0).primitives.at(0);
  EXPECT_EQ(surface.mode, TINYGLTF_MODE_TRIANGLES);
  expect_closed_outward(indices(model, surface.indices), floats(model, surface.attributes.at("POSITION")));
}

// Rigid machines export their geoms (boxes, spheres, capsules ...) as closed surfaces posed per
// frame.
TEST(RunExport, GltfOfRigidBodiesIsTheirGeomsAsClosedSurfaces) {
  for (const char* name : {"rigid_billiards.json", "rigid_ant_walk.json"}) {
    SCOPED_TRACE(name);
    auto scenario = load_scenario(example(name));
    const std::filesystem::path file = fresh_folder("rigid_gltf") / "machine.gltf";
    const int frames = export_run(*scenario, scenario->problem().initial(), file);
    EXPECT_GT(frames, 50);
    const tinygltf::Model model = read_gltf(file);
    const tinygltf::Primitive& surface = model.meshes.at(0).primitives.at(0);
    EXPECT_EQ(surface.mode, TINYGLTF_MODE_TRIANGLES);
    EXPECT_EQ(surface.targets.size(), static_cast<std::size_t>(frames - 1));
    expect_closed_outward(indices(model, surface.indices), floats(model, surface.attributes.at("POSITION")));
  }
}

TEST(RunExport, VtkSeriesOfATetrahedralBodyGivesBackTheFinalStateExactly) {
  auto scenario = load_scenario(example("fem_cantilever.json"));
  const std::vector<double> last = final_state(*scenario);
  const std::filesystem::path dir = fresh_folder("vtu");
  const int frames = export_run(*scenario, scenario->problem().initial(), dir / "cantilever.pvd");

  pugi::xml_document collection;
  ASSERT_TRUE(collection.load_file((dir / "cantilever.pvd").c_str()));
  const pugi::xml_node root = collection.child("VTKFile");
  EXPECT_STREQ(root.attribute("type").value(), "Collection");
  std::vector<std::string> files;
  double previous = -1.0;
  for (const pugi::xml_node d : root.child("Collection").children("DataSet")) {
    EXPECT_GT(d.attribute("timestep").as_double(), previous);
    previous = d.attribute("timestep").as_double();
    files.push_back(d.attribute("file").value());
  }
  ASSERT_EQ(files.size(), static_cast<std::size_t>(frames));

  pugi::xml_document grid;
  ASSERT_TRUE(grid.load_file((dir / files.back()).c_str()));
  const pugi::xml_node piece = grid.child("VTKFile").child("UnstructuredGrid").child("Piece");
  const long points = piece.attribute("NumberOfPoints").as_llong(), cells = piece.attribute("NumberOfCells").as_llong();
  const std::vector<double> xyz = numbers(piece.child("Points").child("DataArray").child_value());
  ASSERT_EQ(xyz.size(), static_cast<std::size_t>(3 * points));
  for (std::size_t i = 0; i < xyz.size(); ++i) EXPECT_EQ(xyz[i], last[i]) << "coordinate " << i;  // 17 digits: exact

  std::vector<double> connectivity, offsets, types;
  for (const pugi::xml_node a : piece.child("Cells").children("DataArray")) {
    const std::string name = a.attribute("Name").value();
    (name == "connectivity" ? connectivity : name == "offsets" ? offsets : types) = numbers(a.child_value());
  }
  ASSERT_EQ(types.size(), static_cast<std::size_t>(cells));
  ASSERT_EQ(offsets.size(), static_cast<std::size_t>(cells));
  // Cell sizes by VTK type: tetrahedra (10) four points, triangles (5) three.
  std::size_t expected = 0, tetrahedra = 0;
  for (std::size_t c = 0; c < types.size(); ++c) {
    ASSERT_TRUE(types[c] == 10 || types[c] == 5);
    expected += types[c] == 10 ? 4 : 3;
    tetrahedra += types[c] == 10;
    EXPECT_EQ(offsets[c], static_cast<double>(expected));
  }
  EXPECT_EQ(connectivity.size(), expected);
  EXPECT_GT(tetrahedra, 0u);
  for (double p : connectivity) EXPECT_TRUE(p >= 0 && p < points);
}

TEST(RunExport, VtkImageDataOfSmokeHoldsItsFields) {
  auto scenario = load_scenario(example("smoke_target.json"));
  const std::vector<double> last = final_state(*scenario);
  const std::filesystem::path dir = fresh_folder("vti");
  const int frames = export_run(*scenario, scenario->problem().initial(), dir / "smoke.pvd");
  char name[32];
  std::snprintf(name, sizeof name, "smoke/smoke_%04d.vti", frames - 1);
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_file((dir / name).c_str()));
  const pugi::xml_node image = doc.child("VTKFile").child("ImageData");
  const std::vector<double> extent = numbers(image.attribute("WholeExtent").value());
  ASSERT_EQ(extent.size(), 6u);
  const std::size_t cells = static_cast<std::size_t>(extent[1] * extent[3] * std::max(1.0, extent[5]));
  const pugi::xml_node density = image.child("Piece").child("CellData").find_child_by_attribute("DataArray", "Name", "density");
  const std::vector<double> values = numbers(density.child_value());
  ASSERT_EQ(values.size(), cells);
  // The last frame's density is the final state's, cell for cell (the state ends with the
  // density and the temperature per cell, smoke_model.hpp; cells x fastest, as VTK orders them).
  ASSERT_GT(last.size(), 2 * cells);
  const std::size_t density_start = last.size() - 2 * cells;
  for (std::size_t c = 0; c < cells; ++c) ASSERT_EQ(values[c], last[density_start + c]) << "cell " << c;
  double total = 0.0;
  for (double v : values) total += v;
  EXPECT_GT(total, 0.0);
}

TEST(RunExport, UnknownFormatsAndRunsWithNothingToExportAreErrors) {
  auto scenario = load_scenario({});
  const std::filesystem::path dir = fresh_folder("errors");
  const std::vector<double> x = scenario->problem().initial();
  try {
    export_run(*scenario, x, dir / "triangle.obj");
    FAIL() << "an .obj export was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown export format \".obj\""), std::string::npos) << e.what();
  }
  auto smoke = load_scenario(example("smoke_target.json"));
  EXPECT_THROW(export_run(*smoke, smoke->problem().initial(), dir / "smoke.gltf"), std::invalid_argument);
  auto epidemic = load_scenario(example("contagion_boarding_school.json"));
  EXPECT_THROW(export_run(*epidemic, epidemic->problem().initial(), dir / "school.pvd"), std::invalid_argument);
  EXPECT_FALSE(std::filesystem::exists(dir / "school.pvd"));
}

}  // namespace
}  // namespace simgrad::scenario
