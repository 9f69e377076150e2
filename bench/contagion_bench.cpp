// `simgrad bench` for the contagion simulator: forward and gradient of GradABM's model on a
// synthetic population with about 3.5 contacts per agent, loaded from the same CSV files that
// the plain-PyTorch peer (bench/peers/contagion_torch.py) reads, side by side at the same thread
// count. Both draw the same Philox noise, so their daily infections must be identical and their
// gradients equal up to rounding; the benchmark reports both checks.
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>

#include "bench/bench_support.hpp"
#include "core/parallel.hpp"
#include "core/rollout.hpp"
#include "sims/contagion/epidemic.hpp"
#include "sims/contagion/losses.hpp"
#include "sims/contagion/population.hpp"

namespace simgrad::app {

namespace {

using nlohmann::json;
namespace cg = simgrad::contagion;

// Writes a population as agents.csv and contacts.csv (i,j,layer, each contact once).
void write_population_csv(const cg::Population& p, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir);
  std::FILE* a = std::fopen((dir / "agents.csv").c_str(), "w");
  std::fprintf(a, ",age_group,stage\n");
  for (Index i = 0; i < p.agents; ++i) std::fprintf(a, "%ld,%d,0\n", static_cast<long>(i), p.age[static_cast<std::size_t>(i)]);
  std::fclose(a);
  std::FILE* c = std::fopen((dir / "contacts.csv").c_str(), "w");
  for (Index i = 0; i < p.agents; ++i)
    for (std::int64_t e = p.offsets[static_cast<std::size_t>(i)]; e < p.offsets[static_cast<std::size_t>(i) + 1]; ++e)
      if (p.neighbors[static_cast<std::size_t>(e)] >= i)
        std::fprintf(c, "%ld,%d,%d\n", static_cast<long>(i), p.neighbors[static_cast<std::size_t>(e)], p.layer[static_cast<std::size_t>(e)]);
  std::fclose(c);
}

// The benchmark's model: GradABM's constants, R 2.5, 0.1% seeded, expected daily deaths.
cg::DiseaseModel bench_model(const cg::Population& p, int days) {
  cg::DiseaseModel m;
  m.settings.days = days;
  m.settings.sampled_deaths = false;
  m.settings.count_window = 1;
  m.reset(p.age_groups, p.layers);
  m.parameters.reproduction.fill(2.5);
  m.parameters.initial_infected.values()[0] = 0.001;
  return m;
}

// Daily deaths with made-up counts (0.1% of the agents a week).
std::vector<cg::Observation> bench_observations(const cg::Population& p, int days) {
  std::vector<cg::Observation> o;
  for (int d = 1; d <= days; ++d) o.push_back({d, 1, 1e-3 / 7 * static_cast<double>(p.agents)});
  return o;
}

// simgrad's side: load the CSV, then forward and gradient medians, daily infections, gradient.
json measure_simgrad(const std::filesystem::path& dir, int days, int repeats, int threads) {
  set_thread_count(threads);
  cg::Population p;
  const double load_s = time_of([&] { p = cg::load_population_csv(dir / "agents.csv", dir / "contacts.csv"); });
  cg::DiseaseModel m = bench_model(p, days);
  cg::Epidemic system(p, m);
  cg::CountLoss loss(system, {{cg::Count::kDeaths, bench_observations(p, days), 1.0}}, cg::Scale::kSqrt);
  RolloutOptions options;
  // `all` keeps day records, not states (Epidemic::records_steps): it fits at any size here.
  options.checkpoint = CheckpointPolicy::parse("all");
  std::vector<long> infections;
  RolloutOptions observed = options;
  observed.observer = [&](int t, std::span<const double> s) {
    if (t == 0) return;
    long k = 0;
    for (Index i = 0; i < p.agents; ++i) k += s[static_cast<std::size_t>(p.agents + i)] == t;
    infections.push_back(k);
  };
  Rollout(system, loss, days, observed).loss();
  Rollout rollout(system, loss, days, options);
  rollout.loss_and_gradient();  // warm-up: the checkpoint memory is touched once, as in tuning
  std::vector<double> forward, gradient, forward_cpu, gradient_cpu;
  double value = 0.0;
  for (int r = 0; r < repeats; ++r) {
    forward_cpu.push_back(cpu_time_of([&] { forward.push_back(time_of([&] { rollout.loss(); })); }));
    gradient_cpu.push_back(cpu_time_of([&] { gradient.push_back(time_of([&] { value = rollout.loss_and_gradient(); })); }));
  }
  const cg::DiseaseParameters& q = m.parameters;
  return {{"forward_s", median(forward)},
          {"gradient_s", median(gradient)},
          {"forward_cpu_s", median(forward_cpu)},
          {"gradient_cpu_s", median(gradient_cpu)},
          {"load_s", load_s},
          {"agents", p.agents},
          {"directed_contacts", p.directed_contacts()},
          {"checkpoint", options.checkpoint.to_string()},
          {"stored_mb", static_cast<double>(rollout.stats().stored_bytes) / (1024.0 * 1024.0)},
          {"loss", value},
          {"daily_infections", infections},
          {"gradient", {{"reproduction", q.reproduction.adjoints()}, {"mortality", q.mortality.adjoints()},
                        {"initial_infected", q.initial_infected.adjoints()}, {"susceptibility", q.susceptibility.adjoints()},
                        {"infectiousness", q.infectiousness.adjoints()}, {"profile", q.profile.adjoints()}}}};
}

// The PyTorch peer's side, run in this (child) process's own child.
json measure_peer(const std::string& python, const std::filesystem::path& dir, const cg::Population& p, int days,
                  int repeats, int threads) {
  cg::DiseaseModel m = bench_model(p, days);
  json obs = json::array();
  for (const cg::Observation& o : bench_observations(p, days)) obs.push_back({o.day, o.window, o.value});
  const cg::DiseaseParameters& q = m.parameters;
  const json settings = {{"agents_csv", (dir / "agents.csv").string()},
                         {"contacts_csv", (dir / "contacts.csv").string()},
                         {"days", days},
                         {"threads", threads},
                         {"repeats", repeats},
                         {"seed", m.settings.seed},
                         {"exposed_days", m.settings.exposed_days},
                         {"infectious_days", m.settings.infectious_days},
                         {"history_days", m.settings.history_days()},
                         {"temperature", m.settings.temperature},
                         {"layer_weight", m.settings.layer_weight},
                         {"mean_interactions", m.settings.mean_interactions},
                         {"observations", obs},
                         {"parameters", {{"reproduction", q.reproduction.values()}, {"mortality", q.mortality.values()[0]},
                                         {"initial_infected", q.initial_infected.values()[0]},
                                         {"susceptibility", q.susceptibility.values()}, {"infectiousness", q.infectiousness.values()},
                                         {"profile", q.profile.values()}}}};
  return run_peer(python, "contagion_torch.py", settings, dir / "peer_settings.json");
}

// A figure of this process's memory from /proc/self/status ("VmRSS:", "VmHWM:"), in MB.
double status_mb(const std::string& key) {
  std::FILE* f = std::fopen("/proc/self/status", "r");
  if (!f) return 0.0;
  char line[256];
  double kb = 0.0;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, key.c_str(), key.size()) == 0) kb = std::atof(line + key.size());
  std::fclose(f);
  return kb / 1024.0;
}

// Memory of a large synthetic population and of one rollout on it: the population's resident
// size once built, then the peak resident size of a forward pass or a gradient under `policy`,
// counted from the built population (the peak is reset first, so the generator's temporary edge
// lists do not count).
json measure_memory(long agents, int days, const std::string& policy, bool gradient, int threads) {
  set_thread_count(threads);
  cg::SyntheticOptions settings;
  settings.agents = agents;
  const cg::Population p = cg::make_synthetic_population(settings);
  const double population_mb = status_mb("VmRSS:");
  if (std::FILE* f = std::fopen("/proc/self/clear_refs", "w")) {  // resets VmHWM to VmRSS
    std::fputs("5", f);
    std::fclose(f);
  }
  cg::DiseaseModel m = bench_model(p, days);
  cg::Epidemic system(p, m);
  cg::CountLoss loss(system, {{cg::Count::kDeaths, bench_observations(p, days), 1.0}}, cg::Scale::kSqrt);
  RolloutOptions options;
  options.checkpoint = CheckpointPolicy::parse(policy);
  Rollout rollout(system, loss, days, options);
  const double seconds = time_of([&] { gradient ? rollout.loss_and_gradient() : rollout.loss(); });
  return {{"population_mb", population_mb},
          {"run_peak_mb", status_mb("VmHWM:")},
          {"seconds", seconds},
          {"directed_contacts", p.directed_contacts()},
          {"state_bytes", system.state_size() * static_cast<Index>(sizeof(double))},
          {"stored_mb", static_cast<double>(rollout.stats().stored_bytes) / (1024.0 * 1024.0)}};
}

}  // namespace

void contagion_benchmarks(const std::regex& filter, int repeats, int threads,
                          const std::function<void(const json&)>& report) {
  struct Config {
    long agents;
    int days;
    bool peer;
  };
  // The peer keeps every day's graph for autograd (about 0.7 GB per day at a million agents),
  // so it runs the million-agent model over 20 days (15 GB), or 10 where other work shares the
  // machine's memory; simgrad alone also runs the 200 days.
  const std::vector<Config> configs = {
      {100000, 100, true}, {1000000, 10, true}, {1000000, 20, true}, {1000000, 200, false}};
  const std::string python = peer_python();
  const int used_threads = threads > 0 ? threads : static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  for (const Config& c : configs) {
    const std::string name = "contagion/agents:" + std::to_string(c.agents) + "/days:" + std::to_string(c.days);
    if (!std::regex_search(name, filter)) continue;
    const std::filesystem::path dir = std::filesystem::temp_directory_path() /
                                      ("simgrad_contagion_bench_" + std::to_string(getpid()) + "_" + std::to_string(c.agents));
    cg::SyntheticOptions settings;
    settings.agents = c.agents;
    const cg::Population p = cg::make_synthetic_population(settings);
    write_population_csv(p, dir);
    json ours = in_child([&] { return measure_simgrad(dir, c.days, repeats, threads); });
    json b = {{"name", name},
              {"agents", c.agents},
              {"directed_contacts", ours.value("directed_contacts", 0L)},
              {"forward_s", ours.value("forward_s", 0.0)},
              {"gradient_s", ours.value("gradient_s", 0.0)},
              {"gradient_over_forward", ours.value("gradient_s", 0.0) / ours.value("forward_s", 1.0)},
              {"forward_cpu_s", ours.value("forward_cpu_s", 0.0)},
              {"gradient_cpu_s", ours.value("gradient_cpu_s", 0.0)},
              {"gradient_over_forward_cpu", ours.value("gradient_cpu_s", 0.0) / ours.value("forward_cpu_s", 1.0)},
              {"population_load_s", ours.value("load_s", 0.0)},
              {"checkpoint", ours.value("checkpoint", "")},
              {"stored_mb", ours.value("stored_mb", 0.0)},
              {"peak_rss_mb", ours["peak_rss_mb"]},
              {"threads", used_threads}};
    if (ours.contains("error")) b["error"] = ours["error"];
    if (!c.peer) {
      b["reference"] = "none: the PyTorch peer's autograd graph of 200 days at this size does not fit in memory";
    } else if (python.empty()) {
      b["reference"] = "none: python3 with torch not found (install Debian's python3-torch)";
    } else {
      json peer = in_child([&] { return measure_peer(python, dir, p, c.days, repeats, used_threads); });
      b["reference"] = "plain PyTorch (bench/peers/contagion_torch.py), same population file, same noise, " +
                       std::to_string(used_threads) + " threads";
      if (peer.contains("error")) {
        b["reference_error"] = peer["error"];
      } else {
        b["reference_s"] = peer.value("gradient_s", 0.0);
        b["reference_forward_s"] = peer.value("forward_s", 0.0);
        b["reference_noise_s"] = peer.value("noise_s", 0.0);
        b["reference_cpu_s"] = peer.value("gradient_cpu_s", 0.0);
        b["reference_forward_cpu_s"] = peer.value("forward_cpu_s", 0.0);
        b["ours_over_reference_cpu"] = b["gradient_cpu_s"].get<double>() / peer.value("gradient_cpu_s", 1.0);
        b["reference_peak_rss_mb"] = peer["peak_rss_mb"];
        b["ours_over_reference"] = b["gradient_s"].get<double>() / peer.value("gradient_s", 1.0);
        b["forward_ours_over_reference"] = b["forward_s"].get<double>() / peer.value("forward_s", 1.0);
        b["identical_daily_infections"] = peer["daily_infections"] == ours["daily_infections"];
        b["loss_difference"] = std::abs(peer.value("loss", 0.0) - ours.value("loss", 0.0));
        b["gradient_max_rel_difference"] = gradient_difference(ours["gradient"], peer["gradient"]);
      }
    }
    std::filesystem::remove_all(dir);
    report(b);
  }

  // Ten million agents: memory, not speed (minutes and about 8 GB). Runs only when asked for by
  // a filter that matches none of the benchmarks above (e.g. --filter contagion_memory).
  const std::string memory_name = "contagion_memory/agents:10000000/days:21";
  bool asked = std::regex_search(memory_name, filter);
  for (const Config& c : configs)
    asked = asked && !std::regex_search("contagion/agents:" + std::to_string(c.agents) + "/days:" + std::to_string(c.days), filter);
  if (!asked) return;
  const long agents = 10000000;
  const int days = 21;
  const std::string policy = "binomial:4";
  json forward = in_child([&] { return measure_memory(agents, days, policy, false, threads); });
  json grad = in_child([&] { return measure_memory(agents, days, policy, true, threads); });
  const double mb = 1024.0 * 1024.0;
  const double n = static_cast<double>(agents);
  const double undirected = 0.5 * forward.value("directed_contacts", 0.0);
  const double population_bytes = forward.value("population_mb", 0.0) * mb;
  json b = {{"name", memory_name},
            {"agents", agents},
            {"directed_contacts", forward.value("directed_contacts", 0L)},
            {"threads", used_threads},
            {"checkpoint", policy},
            {"forward_s", forward.value("seconds", 0.0)},
            {"gradient_s", grad.value("seconds", 0.0)},
            {"gradient_over_forward", grad.value("seconds", 0.0) / forward.value("seconds", 1.0)},
            {"population_mb", forward.value("population_mb", 0.0)},
            {"forward_peak_mb", forward.value("run_peak_mb", 0.0)},
            {"gradient_peak_mb", grad.value("run_peak_mb", 0.0)},
            {"gradient_stored_mb", grad.value("stored_mb", 0.0)},
            {"state_mb", forward.value("state_bytes", 0.0) / mb},
            // The population by its arrays: bytes per agent (age, row offset) and per undirected
            // contact (both directions); measured: all its resident bytes per agent.
            {"population_bytes_per_agent", cg::Population::bytes_per_agent()},
            {"population_bytes_per_contact", cg::Population::bytes_per_contact()},
            {"population_measured_bytes_per_agent", population_bytes / n},
            {"population_formula_bytes_per_agent", cg::Population::bytes_per_agent() + undirected / n * cg::Population::bytes_per_contact()},
            {"forward_peak_bytes_per_agent", forward.value("run_peak_mb", 0.0) * mb / n},
            {"gradient_peak_bytes_per_agent", grad.value("run_peak_mb", 0.0) * mb / n},
            {"peak_rss_mb", grad["peak_rss_mb"]},
            {"reference", "none: a memory figure"}};
  if (forward.contains("error")) b["error"] = forward["error"];
  if (grad.contains("error")) b["error"] = grad["error"];
  report(b);
}

}  // namespace simgrad::app
