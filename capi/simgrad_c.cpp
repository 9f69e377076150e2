// The C API (capi/simgrad/simgrad.h) over the scenario library.
//
// Every entry point runs its body inside `guarded`, which turns each C++ exception into a status
// and this thread's last error, so nothing thrown ever crosses into C. Handles are ids into one
// registry per kind; an id is issued once per process, so a freed or foreign handle is found
// missing rather than dereferenced. Objects are shared: a tuning run keeps its scenario alive
// after the scenario's handle is freed.
#include "simgrad/simgrad.h"

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/diagnostics.hpp"
#include "core/parallel.hpp"
#include "report/version.hpp"
#include "scenario/run_export.hpp"
#include "scenario/run_outputs.hpp"
#include "scenario/scenario.hpp"
#include "scenario/tuning_run.hpp"

namespace {

using simgrad::scenario::Scenario;
using simgrad::scenario::ScenarioError;
using simgrad::scenario::TuningRun;

// A failure with the status it reports; thrown inside the API only.
struct Failure {
  simgrad_status status;
  std::string message;
};

std::string& last_error() {
  thread_local std::string message;
  return message;
}

// Runs an entry point's body: its status, or the status of what it threw, with the message kept
// for simgrad_last_error.
template <class Body>
simgrad_status guarded(const char* function, Body&& body) noexcept {
  auto fail = [&](simgrad_status status, const char* message) {
    try {
      last_error() = std::string(function) + ": " + message;
    } catch (...) {
      last_error().clear();  // no memory even for the message: the status still says it
    }
    return status;
  };
  try {
    last_error().clear();
    return body();
  } catch (const Failure& f) {
    return fail(f.status, f.message.c_str());
  } catch (const ScenarioError& e) {
    return fail(SIMGRAD_SCENARIO_ERROR, e.what());
  } catch (const simgrad::NonFiniteError& e) {
    return fail(SIMGRAD_NON_FINITE, e.what());
  } catch (const std::invalid_argument& e) {
    return fail(SIMGRAD_INVALID_ARGUMENT, e.what());
  } catch (const std::domain_error& e) {
    return fail(SIMGRAD_INVALID_ARGUMENT, e.what());
  } catch (const std::out_of_range& e) {
    return fail(SIMGRAD_INVALID_ARGUMENT, e.what());
  } catch (const std::bad_alloc&) {
    return fail(SIMGRAD_INTERNAL_ERROR, "out of memory");
  } catch (const std::exception& e) {
    return fail(SIMGRAD_INTERNAL_ERROR, e.what());
  } catch (...) {
    return fail(SIMGRAD_INTERNAL_ERROR, "unknown error");
  }
}

// A loaded scenario and its current parameters.
struct ScenarioObject {
  std::recursive_mutex mutex;  // recursive: a progress callback may call back into its scenario
  std::unique_ptr<Scenario> scenario;
  std::vector<double> x;       // current physical parameters
  int threads = 0;
  std::optional<simgrad::JobSystem> jobs;  // the host's, or OpenMP
};

// The states one forward run kept; immutable once made.
struct RolloutObject {
  double loss = 0.0;
  int steps = 0;
  int every = 1;
  std::size_t state_size = 0;
  std::vector<int> kept_steps;
  std::vector<double> states;  // kept_steps.size() x state_size
};

struct TuningObject {
  std::shared_ptr<ScenarioObject> owner;
  std::unique_ptr<TuningRun> run;
  // The last saved state and the iteration it was taken at: the state holds the run's wall time,
  // so a size query and the save after it must see the same text.
  std::string saved;
  int saved_at = -1;
};

std::uint64_t next_id() {
  static std::atomic<std::uint64_t> counter{0};
  return ++counter;
}

// The live objects of one kind, by id.
template <class Object>
class Registry {
 public:
  std::uint64_t add(std::shared_ptr<Object> object) {
    const std::uint64_t id = next_id();
    std::lock_guard lock(mutex_);
    live_.emplace(id, std::move(object));
    return id;
  }
  std::shared_ptr<Object> find(std::uint64_t id, const char* kind) {
    std::lock_guard lock(mutex_);
    return live(id, kind)->second;
  }
  // Frees the handle's object (once no call holds it any more).
  simgrad_status remove(std::uint64_t id, const char* kind) {
    std::shared_ptr<Object> released;  // destroyed after the lock is let go
    std::lock_guard lock(mutex_);
    auto it = live(id, kind);
    released = std::move(it->second);
    live_.erase(it);
    return SIMGRAD_OK;
  }

 private:
  auto live(std::uint64_t id, const char* kind) {
    auto it = live_.find(id);
    if (it == live_.end())
      throw Failure{SIMGRAD_INVALID_HANDLE, std::string(kind) + " handle " + std::to_string(id) +
                                                " is not live (zero, freed, or of another kind)"};
    return it;
  }

  std::mutex mutex_;
  std::unordered_map<std::uint64_t, std::shared_ptr<Object>> live_;
};

Registry<ScenarioObject>& scenarios() {
  static Registry<ScenarioObject> registry;
  return registry;
}
Registry<RolloutObject>& rollouts() {
  static Registry<RolloutObject> registry;
  return registry;
}
Registry<TuningObject>& tunings() {
  static Registry<TuningObject> registry;
  return registry;
}

// The loop settings of a scenario's calls: its thread count, or the host's job system.
simgrad::ThreadScope loops_of(const ScenarioObject& object) {
  return simgrad::ThreadScope(object.threads, object.jobs ? &*object.jobs : nullptr);
}

// Runs body(object) on the live scenario `handle`, locked, with its loops run as the scenario
// asks (loops_of).
template <class Body>
simgrad_status with_scenario(simgrad_scenario handle, const Body& body) {
  auto object = scenarios().find(handle.id, "scenario");
  std::lock_guard lock(object->mutex);
  const simgrad::ThreadScope threads = loops_of(*object);
  return body(*object);
}

void require(const void* pointer, const char* what) {
  if (pointer == nullptr) throw Failure{SIMGRAD_INVALID_ARGUMENT, std::string(what) + " is NULL"};
}

// Copies text and its NUL into the caller's buffer, or reports the length it needs.
simgrad_status write_text(const std::string& text, char* buffer, std::size_t capacity, std::size_t* length) {
  if (length) *length = text.size();
  if (capacity < text.size() + 1)
    throw Failure{SIMGRAD_BUFFER_TOO_SMALL, "the text needs " + std::to_string(text.size() + 1) +
                                                " bytes with its NUL, the buffer holds " + std::to_string(capacity)};
  require(buffer, "buffer");
  std::memcpy(buffer, text.data(), text.size());
  buffer[text.size()] = '\0';
  return SIMGRAD_OK;
}

// Copies values into the caller's buffer, or reports the count it needs.
simgrad_status write_values(std::span<const double> values, double* buffer, std::size_t capacity, std::size_t* size) {
  if (size) *size = values.size();
  if (capacity < values.size())
    throw Failure{SIMGRAD_BUFFER_TOO_SMALL, std::to_string(values.size()) + " values needed, the buffer holds " +
                                                std::to_string(capacity)};
  if (!values.empty()) require(buffer, "buffer");
  std::copy(values.begin(), values.end(), buffer);
  return SIMGRAD_OK;
}

// Checks a full parameter vector against the bounds before it replaces the current one.
void set_parameters(ScenarioObject& object, std::vector<double> x) {
  object.scenario->problem().space().check_physical(x);
  object.x = std::move(x);
}

simgrad_status load(std::unique_ptr<Scenario> scenario, simgrad_scenario* out) {
  auto object = std::make_shared<ScenarioObject>();
  object->x = scenario->problem().initial();
  object->scenario = std::move(scenario);
  out->id = scenarios().add(std::move(object));
  return SIMGRAD_OK;
}

// Loads through `make`, reporting anything the loader refuses as a scenario error.
template <class Make>
simgrad_status load_guarded(simgrad_scenario* out, const Make& make) {
  require(out, "out");
  out->id = 0;
  try {
    return load(make(), out);
  } catch (const std::invalid_argument& e) {
    throw Failure{SIMGRAD_SCENARIO_ERROR, e.what()};
  }
}

void fill_progress(const simgrad::tune::IterationRecord& record, simgrad_tune_progress* progress) {
  if (!progress) return;
  progress->iteration = record.iteration;
  progress->rollouts = record.rollouts;
  progress->loss = record.loss;
  progress->best_loss = record.best_loss;
  progress->wall_s = record.wall_s;
}

}  // namespace

extern "C" {

const char* simgrad_version(void) { return simgrad::report::kVersion; }

const char* simgrad_last_error(void) { return last_error().c_str(); }

const char* simgrad_status_name(simgrad_status status) {
  switch (status) {
    case SIMGRAD_OK: return "SIMGRAD_OK";
    case SIMGRAD_INVALID_HANDLE: return "SIMGRAD_INVALID_HANDLE";
    case SIMGRAD_INVALID_ARGUMENT: return "SIMGRAD_INVALID_ARGUMENT";
    case SIMGRAD_BUFFER_TOO_SMALL: return "SIMGRAD_BUFFER_TOO_SMALL";
    case SIMGRAD_SCENARIO_ERROR: return "SIMGRAD_SCENARIO_ERROR";
    case SIMGRAD_NON_FINITE: return "SIMGRAD_NON_FINITE";
    case SIMGRAD_CANCELLED: return "SIMGRAD_CANCELLED";
    case SIMGRAD_UNSUPPORTED: return "SIMGRAD_UNSUPPORTED";
    case SIMGRAD_INTERNAL_ERROR: return "SIMGRAD_INTERNAL_ERROR";
  }
  return "SIMGRAD_UNKNOWN_STATUS";
}

simgrad_status simgrad_scenario_load_file(const char* path, simgrad_scenario* out) {
  return guarded(__func__, [&] {
    return load_guarded(out, [&] { return simgrad::scenario::load_scenario(path ? path : ""); });
  });
}

simgrad_status simgrad_scenario_load_json(const char* json, size_t length, const char* name, simgrad_scenario* out) {
  return guarded(__func__, [&] {
    require(json, "json");
    return load_guarded(out, [&] {
      return simgrad::scenario::load_scenario_text(std::string_view(json, length), name ? name : "<json>");
    });
  });
}

simgrad_status simgrad_scenario_free(simgrad_scenario scenario) {
  return guarded(__func__, [&] { return scenarios().remove(scenario.id, "scenario"); });
}

simgrad_status simgrad_scenario_simulator(simgrad_scenario scenario, char* buffer, size_t capacity, size_t* length) {
  return guarded(__func__, [&] {
    return with_scenario(scenario, [&](ScenarioObject& object) {
      return write_text(object.scenario->simulator(), buffer, capacity, length);
    });
  });
}

simgrad_status simgrad_scenario_steps(simgrad_scenario scenario, int* steps) {
  return guarded(__func__, [&] {
    require(steps, "steps");
    return with_scenario(scenario, [&](ScenarioObject& object) {
      *steps = object.scenario->steps;
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_scenario_set_threads(simgrad_scenario scenario, int threads) {
  return guarded(__func__, [&] {
    if (threads < 0) throw Failure{SIMGRAD_INVALID_ARGUMENT, "threads must be 0 (all cores) or more"};
    return with_scenario(scenario, [&](ScenarioObject& object) {
      object.threads = threads;
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_scenario_set_job_system(simgrad_scenario scenario, const simgrad_job_system* jobs) {
  return guarded(__func__, [&] {
    if (jobs && (jobs->parallel_for == nullptr || jobs->threads < 1))
      throw Failure{SIMGRAD_INVALID_ARGUMENT, "jobs: parallel_for must be set and threads be 1 or more"};
    return with_scenario(scenario, [&](ScenarioObject& object) {
      if (jobs)
        object.jobs = simgrad::JobSystem{jobs->parallel_for, jobs->context, jobs->threads};
      else
        object.jobs.reset();
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_parameter_count(simgrad_scenario scenario, size_t* count, size_t* components) {
  return guarded(__func__, [&] {
    return with_scenario(scenario, [&](ScenarioObject& object) {
      const simgrad::tune::ParameterSpace& space = object.scenario->problem().space();
      if (count) *count = space.parameters().size();
      if (components) *components = space.size();
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_parameter_name(simgrad_scenario scenario, size_t index, char* buffer, size_t capacity,
                                      size_t* length) {
  return guarded(__func__, [&] {
    return with_scenario(scenario, [&](ScenarioObject& object) {
      const auto& parameters = object.scenario->problem().space().parameters();
      if (index >= parameters.size())
        throw Failure{SIMGRAD_INVALID_ARGUMENT, "index " + std::to_string(index) + " is past the " +
                                                    std::to_string(parameters.size()) + " parameters"};
      return write_text(parameters[index].name, buffer, capacity, length);
    });
  });
}

namespace {

// The parameter named `name`, or INVALID_ARGUMENT listing the names there are.
std::size_t parameter_index(const simgrad::tune::ParameterSpace& space, const char* name) {
  require(name, "name");
  for (std::size_t p = 0; p < space.parameters().size(); ++p)
    if (space.parameters()[p].name == name) return p;
  std::string known;
  for (const auto& p : space.parameters()) known += (known.empty() ? "" : ", ") + p.name;
  throw Failure{SIMGRAD_INVALID_ARGUMENT, "no parameter \"" + std::string(name) + "\" (the scenario tunes: " + known + ")"};
}

}  // namespace

simgrad_status simgrad_parameter_info(simgrad_scenario scenario, const char* name, size_t* size, double* lower,
                                      double* upper) {
  return guarded(__func__, [&] {
    return with_scenario(scenario, [&](ScenarioObject& object) {
      const simgrad::tune::ParameterSpace& space = object.scenario->problem().space();
      const simgrad::tune::Parameter& p = space.parameters()[parameter_index(space, name)];
      if (size) *size = p.initial.size();
      if (lower) *lower = p.lower;
      if (upper) *upper = p.upper;
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_parameter_get(simgrad_scenario scenario, const char* name, double* values, size_t capacity,
                                     size_t* size) {
  return guarded(__func__, [&] {
    return with_scenario(scenario, [&](ScenarioObject& object) {
      const simgrad::tune::ParameterSpace& space = object.scenario->problem().space();
      const std::size_t p = parameter_index(space, name);
      const std::span<const double> x(object.x);
      return write_values(x.subspan(space.offset(p), space.parameters()[p].initial.size()), values, capacity, size);
    });
  });
}

simgrad_status simgrad_parameter_set(simgrad_scenario scenario, const char* name, const double* values, size_t count) {
  return guarded(__func__, [&] {
    return with_scenario(scenario, [&](ScenarioObject& object) {
      const simgrad::tune::ParameterSpace& space = object.scenario->problem().space();
      const std::size_t p = parameter_index(space, name);
      const std::size_t n = space.parameters()[p].initial.size();
      if (count != n)
        throw Failure{SIMGRAD_INVALID_ARGUMENT, std::string(name) + " has " + std::to_string(n) + " components, " +
                                                    std::to_string(count) + " given"};
      require(values, "values");
      std::vector<double> x = object.x;
      std::copy(values, values + n, x.begin() + static_cast<std::ptrdiff_t>(space.offset(p)));
      set_parameters(object, std::move(x));
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_parameters_get(simgrad_scenario scenario, double* values, size_t capacity, size_t* size) {
  return guarded(__func__, [&] {
    return with_scenario(scenario, [&](ScenarioObject& object) {
      return write_values(object.x, values, capacity, size);
    });
  });
}

simgrad_status simgrad_parameters_set(simgrad_scenario scenario, const double* values, size_t count) {
  return guarded(__func__, [&] {
    return with_scenario(scenario, [&](ScenarioObject& object) {
      if (count != object.x.size())
        throw Failure{SIMGRAD_INVALID_ARGUMENT, "the scenario has " + std::to_string(object.x.size()) +
                                                    " parameter components, " + std::to_string(count) + " given"};
      require(values, "values");
      set_parameters(object, std::vector<double>(values, values + count));
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_run(simgrad_scenario scenario, double* loss) {
  return guarded(__func__, [&] {
    require(loss, "loss");
    return with_scenario(scenario, [&](ScenarioObject& object) {
      *loss = object.scenario->problem().value(object.x);
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_hard_loss(simgrad_scenario scenario, double* loss) {
  return guarded(__func__, [&] {
    require(loss, "loss");
    return with_scenario(scenario, [&](ScenarioObject& object) {
      *loss = object.scenario->hard_loss(object.x);
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_gradient(simgrad_scenario scenario, double* loss, double* gradient, size_t capacity,
                                size_t* size) {
  return guarded(__func__, [&] {
    return with_scenario(scenario, [&](ScenarioObject& object) {
      const std::size_t n = object.x.size();
      if (size) *size = n;
      if (capacity < n)  // checked before the rollout, which may take long
        throw Failure{SIMGRAD_BUFFER_TOO_SMALL, std::to_string(n) + " values needed, the buffer holds " + std::to_string(capacity)};
      std::vector<double> g(n);
      const double value = object.scenario->problem().value_and_gradient(object.x, g);
      if (loss) *loss = value;
      return write_values(g, gradient, capacity, size);
    });
  });
}

simgrad_status simgrad_gradcheck(simgrad_scenario scenario, const simgrad_gradcheck_options* options,
                                 simgrad_gradcheck_result* result) {
  return guarded(__func__, [&] {
    require(result, "result");
    return with_scenario(scenario, [&](ScenarioObject& object) {
      simgrad::GradCheckOptions check;
      if (options) {
        if (options->step < 0 || options->rtol < 0 || options->atol < 0 || options->directions < 0)
          throw Failure{SIMGRAD_INVALID_ARGUMENT, "options: step, rtol, atol and directions must not be negative"};
        if (options->step > 0) check.step = options->step;
        if (options->rtol > 0) check.rtol = options->rtol;
        if (options->atol > 0) check.atol = options->atol;
        check.random_directions = options->directions;
      }
      const simgrad::GradCheckReport report =
          simgrad::tune::check_problem_gradient(object.scenario->problem(), object.x, check);
      *result = {};
      result->passed = report.ok ? 1 : 0;
      result->checks = static_cast<int>(report.checks.size());
      for (const simgrad::GradCheckEntry& c : report.checks) {
        if (!c.ok) ++result->failures;
        result->max_rel_error = std::max(result->max_rel_error, c.rel_error);
      }
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_explain(simgrad_scenario scenario, int hints, char* json, size_t capacity, size_t* length) {
  return guarded(__func__, [&] {
    if (hints < 0) throw Failure{SIMGRAD_INVALID_ARGUMENT, "hints must be 0 (the scenario's count) or more"};
    return with_scenario(scenario, [&](ScenarioObject& object) {
      Scenario& s = *object.scenario;
      if (!s.gives_hints()) throw Failure{SIMGRAD_UNSUPPORTED, "the " + s.simulator() + " simulator gives no hints"};
      simgrad::scenario::ExplainRequest request;
      request.hints = hints;
      nlohmann::json out = s.explain(object.x, request);
      out["simulator"] = s.simulator();
      return write_text(out.dump(), json, capacity, length);
    });
  });
}

simgrad_status simgrad_export(simgrad_scenario scenario, const char* path, int* frames) {
  return guarded(__func__, [&] {
    require(path, "path");
    simgrad::scenario::check_export_file(path);
    return with_scenario(scenario, [&](ScenarioObject& object) {
      int written = 0;
      try {
        written = simgrad::scenario::export_run(*object.scenario, object.x, path);
      } catch (const std::invalid_argument& e) {  // the format is known: the simulator has no such view
        throw Failure{SIMGRAD_UNSUPPORTED, e.what()};
      }
      if (frames) *frames = written;
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_summary(simgrad_scenario scenario, char* json, size_t capacity, size_t* length) {
  return guarded(__func__, [&] {
    return with_scenario(scenario, [&](ScenarioObject& object) {
      return write_text(object.scenario->summary().dump(), json, capacity, length);
    });
  });
}

simgrad_status simgrad_rollout_create(simgrad_scenario scenario, int every, simgrad_rollout* out) {
  return guarded(__func__, [&] {
    require(out, "out");
    out->id = 0;
    if (every < 1) throw Failure{SIMGRAD_INVALID_ARGUMENT, "every must be 1 or more"};
    return with_scenario(scenario, [&](ScenarioObject& object) {
      auto* problem = dynamic_cast<simgrad::tune::RolloutProblem*>(&object.scenario->problem());
      if (!problem)
        throw Failure{SIMGRAD_UNSUPPORTED, "the " + object.scenario->simulator() + " scenario is not a rollout"};
      auto rollout = std::make_shared<RolloutObject>();
      rollout->steps = problem->steps();
      rollout->every = every;
      rollout->state_size = static_cast<std::size_t>(problem->state_size());
      auto kept = problem->kept_states(object.x, every);
      rollout->loss = kept.loss;
      rollout->kept_steps = std::move(kept.steps);
      rollout->states = std::move(kept.states);
      out->id = rollouts().add(std::move(rollout));
      return SIMGRAD_OK;
    });
  });
}

simgrad_status simgrad_rollout_free(simgrad_rollout rollout) {
  return guarded(__func__, [&] { return rollouts().remove(rollout.id, "rollout"); });
}

simgrad_status simgrad_rollout_info_get(simgrad_rollout rollout, simgrad_rollout_info* info) {
  return guarded(__func__, [&] {
    require(info, "info");
    auto r = rollouts().find(rollout.id, "rollout");
    info->loss = r->loss;
    info->steps = r->steps;
    info->every = r->every;
    info->kept = static_cast<int>(r->kept_steps.size());
    info->state_size = r->state_size;
    return SIMGRAD_OK;
  });
}

simgrad_status simgrad_rollout_state(simgrad_rollout rollout, int step, double* state, size_t capacity, size_t* size) {
  return guarded(__func__, [&] {
    auto r = rollouts().find(rollout.id, "rollout");
    const auto it = std::lower_bound(r->kept_steps.begin(), r->kept_steps.end(), step);
    if (it == r->kept_steps.end() || *it != step)
      throw Failure{SIMGRAD_INVALID_ARGUMENT, "step " + std::to_string(step) + " is not kept (steps 0.." +
                                                  std::to_string(r->steps) + ", every " + std::to_string(r->every) +
                                                  ", and the last)"};
    const std::size_t k = static_cast<std::size_t>(it - r->kept_steps.begin());
    return write_values(std::span<const double>(r->states).subspan(k * r->state_size, r->state_size), state, capacity,
                        size);
  });
}

simgrad_status simgrad_tune_create(simgrad_scenario scenario, const simgrad_tune_options* options, simgrad_tuning* out) {
  return guarded(__func__, [&] {
    require(out, "out");
    out->id = 0;
    auto object = scenarios().find(scenario.id, "scenario");
    std::lock_guard lock(object->mutex);
    simgrad::scenario::TuneOptions tuning = object->scenario->tune;
    if (options) {
      if (options->optimizer) tuning.optimizer = options->optimizer;
      if (options->iterations < 0) throw Failure{SIMGRAD_INVALID_ARGUMENT, "iterations must be 0 (the scenario's) or more"};
      if (options->iterations > 0) tuning.iterations = options->iterations;
    }
    auto t = std::make_shared<TuningObject>();
    t->owner = object;
    t->run = std::make_unique<TuningRun>(*object->scenario, tuning, object->x);
    const simgrad::ThreadScope threads = loops_of(*object);
    (void)t->run->initial_loss();
    out->id = tunings().add(std::move(t));
    return SIMGRAD_OK;
  });
}

simgrad_status simgrad_tune_free(simgrad_tuning tuning) {
  return guarded(__func__, [&] { return tunings().remove(tuning.id, "tuning"); });
}

simgrad_status simgrad_tune_step(simgrad_tuning tuning, simgrad_tune_progress* progress) {
  return guarded(__func__, [&] {
    auto t = tunings().find(tuning.id, "tuning");
    std::lock_guard lock(t->owner->mutex);
    if (t->run->finished())
      throw Failure{SIMGRAD_INVALID_ARGUMENT, "the run is finished (" + t->run->result().stop_reason + ")"};
    const simgrad::ThreadScope threads = loops_of(*t->owner);
    fill_progress(t->run->iterate(), progress);
    return SIMGRAD_OK;
  });
}

simgrad_status simgrad_tune_run(simgrad_tuning tuning, simgrad_progress_callback callback, void* user_data) {
  return guarded(__func__, [&] {
    auto t = tunings().find(tuning.id, "tuning");
    std::lock_guard lock(t->owner->mutex);
    const simgrad::ThreadScope threads = loops_of(*t->owner);
    while (!t->run->finished()) {
      simgrad_tune_progress progress{};
      fill_progress(t->run->iterate(), &progress);
      if (callback && callback(&progress, user_data) != 0) {
        t->run->stop("cancelled");
      }
    }
    if (t->run->result().stop_reason == "cancelled") throw Failure{SIMGRAD_CANCELLED, "the progress callback stopped the run"};
    return SIMGRAD_OK;
  });
}

simgrad_status simgrad_tune_result_get(simgrad_tuning tuning, simgrad_tune_result* result) {
  return guarded(__func__, [&] {
    require(result, "result");
    auto t = tunings().find(tuning.id, "tuning");
    std::lock_guard lock(t->owner->mutex);
    const simgrad::tune::OptimizeResult r = t->run->result();
    *result = {};
    result->initial_loss = t->run->initial_loss();
    result->best_loss = r.loss;
    result->iterations = r.iterations;
    result->rollouts = r.rollouts + 1;  // the initial loss's rollout, as the command line counts
    result->gradient_evaluations = r.gradient_evaluations;
    result->non_finite_rollouts = t->run->non_finite_rollouts();
    result->finished = t->run->finished() ? 1 : 0;
    result->wall_s = r.wall_s;
    return SIMGRAD_OK;
  });
}

simgrad_status simgrad_tune_stop_reason(simgrad_tuning tuning, char* buffer, size_t capacity, size_t* length) {
  return guarded(__func__, [&] {
    auto t = tunings().find(tuning.id, "tuning");
    std::lock_guard lock(t->owner->mutex);
    return write_text(t->run->result().stop_reason, buffer, capacity, length);
  });
}

simgrad_status simgrad_tune_best_parameters(simgrad_tuning tuning, double* values, size_t capacity, size_t* size) {
  return guarded(__func__, [&] {
    auto t = tunings().find(tuning.id, "tuning");
    std::lock_guard lock(t->owner->mutex);
    return write_values(t->run->best_parameters(), values, capacity, size);
  });
}

simgrad_status simgrad_tune_write(simgrad_tuning tuning, const char* folder) {
  return guarded(__func__, [&] {
    require(folder, "folder");
    auto t = tunings().find(tuning.id, "tuning");
    std::lock_guard lock(t->owner->mutex);
    const simgrad::ThreadScope threads = loops_of(*t->owner);
    std::filesystem::create_directories(folder);
    (void)simgrad::scenario::write_tune_outputs(folder, *t->owner->scenario, *t->run);
    return SIMGRAD_OK;
  });
}

// A saved run: "initial_loss <hexfloat>", a newline, then the optimizer's own saved state.
simgrad_status simgrad_tune_save(simgrad_tuning tuning, char* buffer, size_t capacity, size_t* length) {
  return guarded(__func__, [&] {
    auto t = tunings().find(tuning.id, "tuning");
    std::lock_guard lock(t->owner->mutex);
    const int iteration = t->run->result().iterations;
    if (t->saved_at != iteration) {
      std::ostringstream out;
      out << "initial_loss " << std::hexfloat << t->run->initial_loss() << "\n";
      t->run->save(out);
      t->saved = out.str();
      t->saved_at = iteration;
    }
    return write_text(t->saved, buffer, capacity, length);
  });
}

simgrad_status simgrad_tune_load(simgrad_tuning tuning, const char* state, size_t length) {
  return guarded(__func__, [&] {
    require(state, "state");
    auto t = tunings().find(tuning.id, "tuning");
    std::lock_guard lock(t->owner->mutex);
    std::istringstream in(std::string(state, length));
    std::string label, value;
    in >> label >> value;
    if (label != "initial_loss") throw Failure{SIMGRAD_INVALID_ARGUMENT, "state: expected \"initial_loss\" first"};
    const double initial_loss = std::strtod(value.c_str(), nullptr);
    // Into a fresh run first, so that a state that does not read leaves this one as it was.
    auto fresh = std::make_unique<TuningRun>(*t->owner->scenario, t->run->options(), t->run->initial_parameters());
    try {
      fresh->load(in, initial_loss);
    } catch (const std::exception& e) {
      throw Failure{SIMGRAD_INVALID_ARGUMENT, std::string("state: ") + e.what()};
    }
    t->run = std::move(fresh);
    t->saved_at = -1;
    return SIMGRAD_OK;
  });
}

simgrad_status simgrad_tune_apply(simgrad_tuning tuning) {
  return guarded(__func__, [&] {
    auto t = tunings().find(tuning.id, "tuning");
    std::lock_guard lock(t->owner->mutex);
    set_parameters(*t->owner, t->run->best_parameters());
    return SIMGRAD_OK;
  });
}

}  // extern "C"
