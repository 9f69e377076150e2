// Small MJCF models the rigid-body tests share, and random states for them.
#pragma once

#include <cmath>
#include <filesystem>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "sims/rigid/model.hpp"
#include "sims/rigid/rigid_worlds.hpp"

namespace simgrad::rigid::testing {

// The folder of the standard MJCF models.
inline std::filesystem::path mjcf_dir() { return SIMGRAD_MJCF_DIR; }

// A box tumbling freely in zero gravity about all three axes (the middle one is unstable).
inline const char* kFreeBoxXml = R"(<mujoco model="free_box">
  <option timestep="0.001" gravity="0 0 0"/>
  <worldbody>
    <body name="box" pos="0.1 -0.2 0.3" euler="10 20 30">
      <freejoint/>
      <geom type="box" size="0.3 0.2 0.1" density="500" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
</mujoco>)";

// A 10-link chain of capsules on hinges with alternating axes, damping, armature and springs.
inline std::string chain_xml(const std::string& integrator = "Euler") {
  std::string xml = "<mujoco model=\"chain\">\n  <option timestep=\"0.002\" integrator=\"" + integrator + "\"/>\n"
                    "  <default><joint damping=\"0.05\" armature=\"0.01\" stiffness=\"0.2\"/>"
                    "<geom type=\"capsule\" size=\"0.03\" contype=\"0\" conaffinity=\"0\"/></default>\n  <worldbody>\n";
  std::string close;
  for (int i = 0; i < 10; ++i) {
    const char* axis = i % 3 == 0 ? "0 1 0" : i % 3 == 1 ? "1 0 0" : "0.6 0.8 0";
    xml += "<body name=\"link" + std::to_string(i) + "\" pos=\"0 0 " + (i == 0 ? "2" : "-0.2") + "\">"
           "<joint name=\"link" + std::to_string(i) + "_j\" type=\"hinge\" axis=\"" + axis + "\"/>"
           "<geom fromto=\"0 0 0 0.02 0 -0.2\"/>\n";
    close += "</body>";
  }
  return xml + close + "\n  </worldbody>\n  <actuator><motor joint=\"" + "link0_j\"/></actuator>\n</mujoco>";
}

// A spherical pendulum on a ball joint off the body origin, with a slide joint above it.
inline const char* kBallPendulumXml = R"(<mujoco model="ball_pendulum">
  <option timestep="0.002"/>
  <worldbody>
    <body name="carriage" pos="0 0 1">
      <joint name="rail" type="slide" axis="1 0 0" damping="0.3"/>
      <geom type="sphere" size="0.05" contype="0" conaffinity="0"/>
      <body name="bob" pos="0 0 -0.1">
        <joint name="ball" type="ball" pos="0 0 0.1" damping="0.02"/>
        <geom type="capsule" fromto="0 0 0.1 0.1 0.05 -0.4" size="0.04" contype="0" conaffinity="0"/>
      </body>
    </body>
  </worldbody>
  <actuator><position joint="rail" kp="20"/><velocity joint="rail" kv="3"/></actuator>
</mujoco>)";

// A random state of the model near its reference pose: hinge and slide coordinates in the middle
// half of their ranges (or within 1 of qpos0), random orientations, velocities in [-v, v].
inline std::vector<double> random_state(const RigidModel& m, std::mt19937& rng, double v = 1.0) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::vector<double> s(m.qpos0);
  for (const Joint& j : m.joints) {
    double* q = s.data() + j.qpos_address;
    switch (j.type) {
      case JointType::kFree:
        for (int k = 0; k < 3; ++k) q[k] += 0.3 * u(rng);
        q += 3;
        [[fallthrough]];
      case JointType::kBall: {
        double n = 0.0;
        for (int k = 0; k < 4; ++k) {
          q[k] = u(rng);
          n += q[k] * q[k];
        }
        for (int k = 0; k < 4; ++k) q[k] /= std::sqrt(n);
        break;
      }
      default:
        if (j.limited)
          q[0] = 0.5 * (j.range[0] + j.range[1]) + 0.25 * (j.range[1] - j.range[0]) * u(rng);
        else
          q[0] += u(rng);
    }
  }
  for (int d = 0; d < m.nv; ++d) s.push_back(v * u(rng));
  return s;
}

// Model m's state after `steps` steps from its start; after_step, if given, sees each new state.
inline std::vector<double> run_steps(RigidModel& m, int steps,
                                     const std::function<void(const std::vector<double>&)>& after_step = {}) {
  RigidWorlds worlds(m);
  std::vector<double> s(static_cast<std::size_t>(worlds.state_size())), next(s.size());
  worlds.initial_state(s);
  for (int t = 0; t < steps; ++t) {
    worlds.step(t, s, next, {});
    s.swap(next);
    if (after_step) after_step(s);
  }
  return s;
}

}  // namespace simgrad::rigid::testing
