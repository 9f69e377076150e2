#include "report/gltf.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "report/atomic_file.hpp"
#include "report/version.hpp"

namespace simgrad::report {

namespace {

using nlohmann::json;

// glTF's constants (specification, section 5).
constexpr int kFloat = 5126, kUnsignedInt = 5125;
constexpr int kArrayBuffer = 34962, kElementArrayBuffer = 34963;
constexpr int kPoints = 0, kLines = 1, kTriangles = 4;

std::string base64(const std::string& bytes) {
  static constexpr char digits[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (std::size_t i = 0; i < bytes.size(); i += 3) {
    const std::size_t n = std::min<std::size_t>(3, bytes.size() - i);
    std::uint32_t v = 0;
    for (std::size_t k = 0; k < 3; ++k) v = (v << 8) | (k < n ? static_cast<std::uint8_t>(bytes[i + k]) : 0u);
    for (std::size_t k = 0; k < 4; ++k) out.push_back(k <= n ? digits[(v >> (18 - 6 * k)) & 63] : '=');
  }
  return out;
}

// The binary buffer and the views and accessors into it.
class Buffer {
 public:
  explicit Buffer(json& gltf) : gltf_(gltf) {}

  // An accessor over floats, `components` per element ("SCALAR" or "VEC3"), with min and max.
  int floats(const std::vector<float>& values, int components, int target) {
    json lo = json::array(), hi = json::array();
    for (int c = 0; c < components; ++c) {
      float a = std::numeric_limits<float>::infinity(), b = -a;
      for (std::size_t i = static_cast<std::size_t>(c); i < values.size(); i += static_cast<std::size_t>(components)) {
        a = std::min(a, values[i]);
        b = std::max(b, values[i]);
      }
      lo.push_back(a);
      hi.push_back(b);
    }
    json accessor = {{"bufferView", view(values.data(), values.size() * sizeof(float), target)},
                     {"componentType", kFloat},
                     {"count", values.size() / static_cast<std::size_t>(components)},
                     {"type", components == 3 ? "VEC3" : "SCALAR"},
                     {"min", lo},
                     {"max", hi}};
    return add(std::move(accessor));
  }

  // An accessor over point indices.
  int indices(const std::vector<std::uint32_t>& values) {
    return add({{"bufferView", view(values.data(), values.size() * sizeof(std::uint32_t), kElementArrayBuffer)},
                {"componentType", kUnsignedInt},
                {"count", values.size()},
                {"type", "SCALAR"}});
  }

  // The buffer, once every accessor is in.
  void finish() {
    gltf_["buffers"] = json::array(
        {{{"byteLength", bytes_.size()}, {"uri", "data:application/octet-stream;base64," + base64(bytes_)}}});
  }

 private:
  int view(const void* data, std::size_t size, int target) {
    json v = {{"buffer", 0}, {"byteOffset", bytes_.size()}, {"byteLength", size}};
    if (target != 0) v["target"] = target;
    bytes_.append(static_cast<const char*>(data), size);
    gltf_["bufferViews"].push_back(std::move(v));
    return static_cast<int>(gltf_["bufferViews"].size()) - 1;
  }
  int add(json accessor) {
    gltf_["accessors"].push_back(std::move(accessor));
    return static_cast<int>(gltf_["accessors"].size()) - 1;
  }

  json& gltf_;
  std::string bytes_;
};

}  // namespace

std::string gltf_text(const Animation& animation, const std::string& name) {
  const int frames = animation.frames();
  if (frames < 1) throw std::invalid_argument("glTF: the animation has no frames");
  const Index n = animation.point_count;
  json gltf = {{"asset", {{"version", "2.0"}, {"generator", std::string("simgrad ") + kVersion}}},
               {"scene", 0},
               {"scenes", json::array({{{"nodes", {0}}}})},
               {"nodes", json::array({{{"mesh", 0}, {"name", name}}})},
               {"bufferViews", json::array()},
               {"accessors", json::array()}};
  Buffer buffer(gltf);

  // Frame 0's positions, then each later frame's displacement from them.
  auto frame_points = [&](int f, bool displacement) {
    std::vector<float> p;
    p.reserve(static_cast<std::size_t>(3 * n));
    for (Index i = 0; i < n; ++i) {
      const std::array<double, 3> x = animation.point(f, i), x0 = animation.point(0, i);
      for (int k = 0; k < 3; ++k)
        p.push_back(static_cast<float>(displacement ? x[static_cast<std::size_t>(k)] - x0[static_cast<std::size_t>(k)]
                                                    : x[static_cast<std::size_t>(k)]));
    }
    return p;
  };
  const int position = buffer.floats(frame_points(0, false), 3, kArrayBuffer);
  json targets = json::array();
  for (int f = 1; f < frames; ++f) targets.push_back({{"POSITION", buffer.floats(frame_points(f, true), 3, kArrayBuffer)}});

  json primitives = json::array();
  auto primitive = [&](int mode, const std::vector<std::uint32_t>& index) {
    json p = {{"attributes", {{"POSITION", position}}}, {"mode", mode}};
    if (!index.empty()) p["indices"] = buffer.indices(index);
    if (frames > 1) p["targets"] = targets;
    primitives.push_back(std::move(p));
  };
  std::vector<std::uint32_t> triangles, lines;
  for (const auto& t : animation.triangles)
    for (Index i : t) triangles.push_back(static_cast<std::uint32_t>(i));
  for (const auto& l : animation.lines)
    for (Index i : l) lines.push_back(static_cast<std::uint32_t>(i));
  if (!triangles.empty()) primitive(kTriangles, triangles);
  if (!lines.empty()) primitive(kLines, lines);
  if (triangles.empty() && lines.empty()) primitive(kPoints, {});
  json mesh = {{"name", name}, {"primitives", primitives}};
  if (frames > 1) mesh["weights"] = std::vector<float>(static_cast<std::size_t>(frames - 1), 0.0f);
  gltf["meshes"] = json::array({mesh});

  if (frames > 1) {
    std::vector<float> times, weights;
    for (int f = 0; f < frames; ++f) {
      times.push_back(static_cast<float>(animation.times[static_cast<std::size_t>(f)]));
      for (int k = 1; k < frames; ++k) weights.push_back(k == f ? 1.0f : 0.0f);
    }
    const int input = buffer.floats(times, 1, 0), output = buffer.floats(weights, 1, 0);
    gltf["animations"] = json::array(
        {{{"name", name},
          {"samplers", json::array({{{"input", input}, {"output", output}, {"interpolation", "STEP"}}})},
          {"channels", json::array({{{"sampler", 0}, {"target", {{"node", 0}, {"path", "weights"}}}}})}}});
  }
  buffer.finish();
  return gltf.dump(1);
}

void write_gltf(const std::filesystem::path& file, const Animation& animation) {
  write_file_atomically(file, gltf_text(animation, file.stem().string()));
}

}  // namespace simgrad::report
