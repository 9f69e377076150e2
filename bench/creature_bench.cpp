// `simgrad bench` for creatures: DiffTaichi's 26-mass robot (robotD) with its neural controller
// walking for 681 steps, alone and as 1,000 copies in one batched rollout (a population
// evaluated at once), forward and gradient, in creature rollouts per second.
#include <string>

#include "bench/bench_support.hpp"
#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/creature/body_plan.hpp"
#include "sims/creature/creature.hpp"
#include "sims/creature/losses.hpp"

namespace simgrad::app {

namespace {

using nlohmann::json;
namespace cr = simgrad::creature;

// Forward and gradient medians of robotD walking, `copies` creatures in one rollout.
json measure_creatures(int copies, int repeats, int threads) {
  set_thread_count(threads);
  const cr::BodyPlan plan = cr::difftaichi_robot(3);
  const cr::BodyOptions settings;
  auto model = cr::assemble(plan, copies, settings);
  control::ControllerLayout layout;
  layout.creatures = copies;
  layout.nodes = static_cast<int>(plan.nodes.size());
  for (std::int32_t e : plan.actuated()) layout.strength.push_back(plan.springs[static_cast<std::size_t>(e)].actuation);
  control::NeuralController controller(layout);
  controller.initialise(0, static_cast<int>(plan.springs.size()), true);
  cr::Creature creature(model, controller);
  cr::TaskLoss loss(creature, cr::Task::kWalkHead, plan.head);
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse(copies > 1 ? "every:26" : "all");
  Rollout rollout(creature, loss, settings.steps, options);
  rollout.loss_and_gradient();  // warm-up
  std::vector<double> forward, gradient, forward_cpu, gradient_cpu;
  const int runs = repeats_for(time_of([&] { rollout.loss(); }), repeats);
  for (int r = 0; r < runs; ++r) {
    forward_cpu.push_back(cpu_time_of([&] { forward.push_back(time_of([&] { rollout.loss(); })); }));
    gradient_cpu.push_back(cpu_time_of([&] { gradient.push_back(time_of([&] { rollout.loss_and_gradient(); })); }));
  }
  return {{"forward_s", median(forward)},
          {"gradient_s", median(gradient)},
          {"forward_cpu_s", median(forward_cpu)},
          {"gradient_cpu_s", median(gradient_cpu)},
          {"masses", model.node_count},
          {"springs", model.spring_count()},
          {"checkpoint", options.checkpoint.to_string()},
          {"stored_mb", static_cast<double>(rollout.stats().stored_bytes) / (1024.0 * 1024.0)}};
}

}  // namespace

void creature_benchmarks(const std::regex& filter, int repeats, int threads,
                         const std::function<void(const json&)>& report) {
  for (int copies : {1, 1000}) {
    const std::string name = "creature/robot:26_masses/creatures:" + std::to_string(copies) + "/steps:681";
    if (!std::regex_search(name, filter)) continue;
    json run = in_child([&] { return measure_creatures(copies, repeats, threads); });
    const double forward = run.value("forward_s", 0.0), gradient = run.value("gradient_s", 0.0);
    const double forward_cpu = run.value("forward_cpu_s", 0.0);
    json b = entry_without_reference(name, run);
    b.update({{"creatures", copies},
              {"masses", run.value("masses", 0)},
              {"springs", run.value("springs", 0)},
              {"creature_rollouts_per_s", forward > 0.0 ? copies / forward : 0.0},
              {"creature_gradients_per_s", gradient > 0.0 ? copies / gradient : 0.0},
              {"forward_cpu_s", run.value("forward_cpu_s", 0.0)},
              {"gradient_cpu_s", run.value("gradient_cpu_s", 0.0)},
              {"creature_rollouts_per_cpu_s", forward_cpu > 0.0 ? copies / forward_cpu : 0.0},
              {"checkpoint", run.value("checkpoint", "")},
              {"stored_mb", run.value("stored_mb", 0.0)}});
    report(b);
  }
}

}  // namespace simgrad::app
