// The Python extension module `simgrad._simgrad`: the scenario library, bound with pybind11.
//
// The Python package (python/simgrad/__init__.py) wraps these classes in result objects; this
// file only crosses the language boundary. Three rules hold for every call:
// - The GIL is released while simgrad computes, and the scenario's own mutex taken after it, so
//   other Python threads run and two threads never step one model at once.
// - Arrays simgrad makes (gradients, trajectories, tuned parameters) are handed to NumPy without
//   a copy: the array owns the vector simgrad filled, so it stays valid after the scenario is
//   freed. Parameter vectors going in are copied once, since the model keeps its own layout.
// - C++ exceptions become Python exceptions: ScenarioError (a ValueError carrying file, line,
//   column and field), NonFiniteError (an ArithmeticError carrying step, element and kernel),
//   std::invalid_argument and std::domain_error as ValueError.
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <pybind11/stl/filesystem.h>

#include "core/diagnostics.hpp"
#include "core/parallel.hpp"
#include "report/report.hpp"
#include "report/version.hpp"
#include "scenario/comparison.hpp"
#include "scenario/run_export.hpp"
#include "scenario/run_outputs.hpp"
#include "scenario/scenario.hpp"
#include "scenario/scenario_report.hpp"
#include "scenario/tuning_run.hpp"
#include "sims/assembly/generator.hpp"
#include "sims/assembly/plan.hpp"

namespace py = pybind11;
using simgrad::scenario::Scenario;
using simgrad::scenario::TuningRun;

namespace {

using Array = py::array_t<double, py::array::c_style | py::array::forcecast>;

// A loaded scenario, its current parameters and its thread count.
struct ScenarioObject {
  std::unique_ptr<Scenario> scenario;
  std::vector<double> x;  // current physical parameters
  int threads = 0;        // 0: all cores
  std::mutex mutex;
};
using ScenarioPtr = std::shared_ptr<ScenarioObject>;

// Runs body() without the GIL, holding the scenario and with its thread count; converts nothing
// to Python (the caller does, once the GIL is back).
template <class Body>
auto compute(ScenarioObject& object, const Body& body) {
  py::gil_scoped_release no_gil;
  std::lock_guard lock(object.mutex);
  const simgrad::ThreadScope threads(object.threads);
  return body();
}

// As compute(), with body(x): x is the parameters given, else the scenario's current ones (read
// under its lock, since another thread may be assigning them).
template <class Body>
auto compute_at(ScenarioObject& object, const std::optional<std::vector<double>>& given, const Body& body) {
  return compute(object, [&] { return body(given ? *given : object.x); });
}

// A vector handed to NumPy: the array owns it.
py::array_t<double> owned_array(std::vector<double>&& values, std::vector<py::ssize_t> shape) {
  auto* owner = new std::vector<double>(std::move(values));
  py::capsule free_owner(owner, [](void* p) { delete static_cast<std::vector<double>*>(p); });
  return py::array_t<double>(std::move(shape), owner->data(), free_owner);
}
py::array_t<double> owned_array(std::vector<double>&& values) {
  const auto n = static_cast<py::ssize_t>(values.size());
  return owned_array(std::move(values), {n});
}

// Parameters given from Python, copied and checked against the space (fixed at load, so read
// without the lock).
std::vector<double> checked_parameters(ScenarioObject& object, const Array& given) {
  if (given.ndim() != 1) throw std::invalid_argument("parameters must be a 1-D array");
  std::vector<double> x(given.data(), given.data() + given.size());
  object.scenario->problem().space().check_physical(x);
  return x;
}
std::optional<std::vector<double>> given_parameters(ScenarioObject& object, const std::optional<Array>& given) {
  if (!given) return std::nullopt;
  return checked_parameters(object, *given);
}

simgrad::tune::RolloutProblem& rollout_problem(Scenario& scenario) {
  auto* problem = dynamic_cast<simgrad::tune::RolloutProblem*>(&scenario.problem());
  if (!problem) throw std::invalid_argument("the " + scenario.simulator() + " scenario is not a rollout");
  return *problem;
}

ScenarioPtr wrap(std::unique_ptr<Scenario> scenario) {
  auto object = std::make_shared<ScenarioObject>();
  object->x = scenario->problem().initial();
  object->scenario = std::move(scenario);
  return object;
}

simgrad::scenario::ScenarioOverrides overrides_of(const std::optional<std::string>& checkpoint) {
  simgrad::scenario::ScenarioOverrides overrides;
  if (checkpoint) overrides.checkpoint = simgrad::CheckpointPolicy::parse(*checkpoint);
  return overrides;
}

// A tuning run and the scenario it tunes (kept alive by the run).
struct TuningObject {
  ScenarioPtr owner;
  std::unique_ptr<TuningRun> run;
};

py::tuple record_tuple(const simgrad::tune::IterationRecord& r) {
  return py::make_tuple(r.iteration, r.rollouts, r.loss, r.best_loss, r.wall_s);
}

// Exception types, made at import.
PyObject* g_scenario_error = nullptr;
PyObject* g_non_finite_error = nullptr;

// Raises `type` with message and attributes.
void raise_with(PyObject* type, const char* message, const py::dict& attributes) {
  py::object error = py::reinterpret_borrow<py::object>(type)(message);
  for (auto item : attributes) py::setattr(error, item.first, item.second);
  PyErr_SetObject(type, error.ptr());
}

}  // namespace

PYBIND11_MODULE(_simgrad, m) {
  m.doc() = "simgrad's compiled core; use the `simgrad` package, which wraps it.";
  m.attr("__version__") = simgrad::report::kVersion;
  m.def(
      "random_assembly_plan",
      [](std::uint64_t seed) { return simgrad::assembly::to_plan(simgrad::assembly::random_assembly(seed)); },
      py::arg("seed"));

  g_scenario_error = PyErr_NewExceptionWithDoc(
      "simgrad._simgrad.ScenarioError",
      "A scenario file or field simgrad cannot use; .file, .line, .column and .field say where.", PyExc_ValueError,
      nullptr);
  g_non_finite_error = PyErr_NewExceptionWithDoc(
      "simgrad._simgrad.NonFiniteError",
      "A simulation went non-finite; .step, .element, .kernel and .in_adjoint say where.", PyExc_ArithmeticError,
      nullptr);
  m.attr("ScenarioError") = py::handle(g_scenario_error);
  m.attr("NonFiniteError") = py::handle(g_non_finite_error);
  py::register_exception_translator([](std::exception_ptr thrown) {
    try {
      if (thrown) std::rethrow_exception(thrown);
    } catch (const simgrad::scenario::ScenarioError& e) {
      py::dict where;
      where["file"] = e.file();
      where["line"] = e.line();
      where["column"] = e.column();
      where["field"] = e.path();
      where["reason"] = e.message();
      raise_with(g_scenario_error, e.what(), where);
    } catch (const simgrad::NonFiniteError& e) {
      py::dict where;
      where["step"] = e.step();
      where["element"] = static_cast<std::int64_t>(e.element());
      where["kernel"] = e.kernel();
      where["in_adjoint"] = e.in_adjoint();
      raise_with(g_non_finite_error, e.what(), where);
    } catch (const std::domain_error& e) {
      PyErr_SetString(PyExc_ValueError, e.what());
    }
  });

  py::class_<ScenarioObject, ScenarioPtr>(m, "Scenario")
      .def_static(
          "load_file",
          [](const std::filesystem::path& path, std::optional<std::string> checkpoint) {
            const auto overrides = overrides_of(checkpoint);
            py::gil_scoped_release no_gil;
            return wrap(simgrad::scenario::load_scenario(path, overrides));
          },
          py::arg("path"), py::arg("checkpoint") = py::none())
      .def_static(
          "load_text",
          [](const std::string& text, const std::string& name, std::optional<std::string> checkpoint) {
            const auto overrides = overrides_of(checkpoint);
            py::gil_scoped_release no_gil;
            return wrap(simgrad::scenario::load_scenario_text(text, name, overrides));
          },
          py::arg("text"), py::arg("name"), py::arg("checkpoint") = py::none())
      .def_property_readonly("simulator", [](ScenarioObject& o) { return o.scenario->simulator(); })
      .def_property_readonly("name", [](ScenarioObject& o) { return o.scenario->name; })
      .def_property_readonly("description", [](ScenarioObject& o) { return o.scenario->description; })
      .def_property_readonly("steps", [](ScenarioObject& o) { return o.scenario->steps; })
      .def_property_readonly("gives_hints", [](ScenarioObject& o) { return o.scenario->gives_hints(); })
      .def_property_readonly("state_size",
                             [](ScenarioObject& o) { return rollout_problem(*o.scenario).state_size(); })
      .def_property(
          "threads", [](ScenarioObject& o) { return o.threads; },
          [](ScenarioObject& o, int threads) {
            if (threads < 0) throw std::invalid_argument("threads must be 0 (all cores) or more");
            py::gil_scoped_release no_gil;
            std::lock_guard lock(o.mutex);
            o.threads = threads;
          })
      .def_property_readonly(
          "tune_options",
          [](ScenarioObject& o) {
            const auto& t = o.scenario->tune;
            py::dict d;
            d["optimizer"] = t.optimizer;
            d["iterations"] = t.iterations;
            d["learning_rate"] = t.learning_rate;
            d["target_loss"] = t.target_loss;
            d["baseline_budget"] = t.baseline_budget;
            d["seed"] = t.seed;
            return d;
          })
      .def("parameters",
           [](ScenarioObject& o) {
             const simgrad::tune::ParameterSpace& space = o.scenario->problem().space();
             py::list out;
             for (std::size_t p = 0; p < space.parameters().size(); ++p) {
               const simgrad::tune::Parameter& q = space.parameters()[p];
               out.append(py::make_tuple(q.name, q.unit, q.lower, q.upper,
                                         std::string(simgrad::tune::transform_name(q.transform)), space.offset(p),
                                         q.initial.size(), owned_array(std::vector<double>(q.initial))));
             }
             return out;
           })
      .def("get_x", [](ScenarioObject& o) { return owned_array(compute(o, [&] { return o.x; })); })
      .def("set_x",
           [](ScenarioObject& o, const Array& x) {
             std::vector<double> values = checked_parameters(o, x);
             compute(o, [&] { o.x = std::move(values); return 0; });
           })
      .def(
          "run",
          [](ScenarioObject& o, std::optional<Array> given) {
            return compute_at(o, given_parameters(o, given),
                              [&](const std::vector<double>& x) { return o.scenario->problem().value(x); });
          },
          py::arg("x") = py::none())
      .def(
          "hard_loss",
          [](ScenarioObject& o, std::optional<Array> given) {
            return compute_at(o, given_parameters(o, given),
                              [&](const std::vector<double>& x) { return o.scenario->hard_loss(x); });
          },
          py::arg("x") = py::none())
      .def(
          "grad",
          [](ScenarioObject& o, std::optional<Array> given) {
            auto [loss, g] = compute_at(o, given_parameters(o, given), [&](const std::vector<double>& x) {
              std::vector<double> gradient(x.size());
              const double value = o.scenario->problem().value_and_gradient(x, gradient);
              return std::make_pair(value, std::move(gradient));
            });
            return py::make_tuple(loss, owned_array(std::move(g)));
          },
          py::arg("x") = py::none())
      .def(
          "adjoint_norms",
          [](ScenarioObject& o) {
            return compute(o, [&] { return rollout_problem(*o.scenario).rollout().adjoint_norms(); });
          })
      .def(
          "gradcheck",
          [](ScenarioObject& o, std::optional<Array> given, double step, double rtol, double atol, int directions) {
            simgrad::GradCheckOptions options;
            if (step > 0) options.step = step;
            if (rtol > 0) options.rtol = rtol;
            if (atol > 0) options.atol = atol;
            options.random_directions = directions;
            const simgrad::GradCheckReport report =
                compute_at(o, given_parameters(o, given), [&](const std::vector<double>& x) {
                  return simgrad::tune::check_problem_gradient(o.scenario->problem(), x, options);
                });
            py::list checks;
            for (const simgrad::GradCheckEntry& c : report.checks)
              checks.append(py::make_tuple(c.label, c.ad, c.fd, c.rel_error, c.ok));
            return py::make_tuple(report.ok, checks);
          },
          py::arg("x") = py::none(), py::arg("step") = 0.0, py::arg("rtol") = 0.0, py::arg("atol") = 0.0,
          py::arg("directions") = 0)
      .def(
          "trajectory",
          [](ScenarioObject& o, std::optional<Array> given, int every) {
            auto [kept, width] = compute_at(o, given_parameters(o, given), [&](const std::vector<double>& x) {
              auto& problem = rollout_problem(*o.scenario);
              return std::make_pair(problem.kept_states(x, every), problem.state_size());
            });
            const auto rows = static_cast<py::ssize_t>(kept.steps.size());
            py::array_t<int> steps(rows);
            std::copy(kept.steps.begin(), kept.steps.end(), steps.mutable_data());
            return py::make_tuple(kept.loss, steps,
                                  owned_array(std::move(kept.states), {rows, static_cast<py::ssize_t>(width)}));
          },
          py::arg("x") = py::none(), py::arg("every") = 1)
      .def("summary", [](ScenarioObject& o) { return compute(o, [&] { return o.scenario->summary().dump(); }); })
      .def(
          "explain",
          [](ScenarioObject& o, std::optional<Array> given, int hints) {
            if (hints < 0) throw std::invalid_argument("hints must be 0 (the scenario's count) or more");
            return compute_at(o, given_parameters(o, given), [&](const std::vector<double>& x) {
              nlohmann::json out = o.scenario->explain(x, simgrad::scenario::ExplainRequest{hints});
              out["simulator"] = o.scenario->simulator();
              return out.dump();
            });
          },
          py::arg("x") = py::none(), py::arg("hints") = 0)
      .def(
          "compare",
          [](ScenarioObject& o, std::optional<double> target, long budget, std::optional<std::filesystem::path> out) {
            if (budget < 0) throw std::invalid_argument("budget must be 0 (the scenario's) or more");
            auto [table, html] = compute(o, [&] {
              simgrad::scenario::Comparison c = simgrad::scenario::compare_methods(*o.scenario, {target, budget});
              if (out) {
                std::filesystem::create_directories(*out);
                simgrad::scenario::write_report_files(*out, c.report);
              }
              return std::make_pair(c.table.dump(), simgrad::report::render_report(c.report));
            });
            return py::make_tuple(table, html);
          },
          py::arg("target") = py::none(), py::arg("budget") = 0, py::arg("out") = py::none())
      .def(
          "export",
          [](ScenarioObject& o, const std::filesystem::path& path, std::optional<Array> given) {
            simgrad::scenario::check_export_file(path);
            return compute_at(o, given_parameters(o, given), [&](const std::vector<double>& x) {
              return simgrad::scenario::export_run(*o.scenario, x, path);
            });
          },
          py::arg("path"), py::arg("x") = py::none())
      .def(
          "time_calls",
          [](ScenarioObject& o, int repeats, bool gradient) {
            // Wall seconds of each of `repeats` calls made from C++: the baseline that the
            // Python overhead benchmark (bench/python_overhead.py) subtracts.
            return compute(o, [&] {
              std::vector<double> seconds, g(o.x.size());
              for (int r = 0; r < repeats; ++r) {
                const auto start = std::chrono::steady_clock::now();
                if (gradient)
                  o.scenario->problem().value_and_gradient(o.x, g);
                else
                  o.scenario->problem().value(o.x);
                seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
              }
              return seconds;
            });
          },
          py::arg("repeats"), py::arg("gradient") = false)
      .def(
          "report_html",
          [](ScenarioObject& o, const Array& x0, const Array& x, double initial_loss) {
            const std::vector<double> from = checked_parameters(o, x0);
            const std::vector<double> to = checked_parameters(o, x);
            return compute(o, [&] {
              simgrad::report::ReportInput report = simgrad::scenario::gather_report(*o.scenario, from, to);
              report.initial_loss = initial_loss;
              return simgrad::report::render_report(report);
            });
          },
          py::arg("x0"), py::arg("x"), py::arg("initial_loss"));

  py::class_<TuningObject, std::shared_ptr<TuningObject>>(m, "TuningRun")
      .def(py::init([](ScenarioPtr owner, std::optional<std::string> optimizer, int iterations,
                       std::optional<double> learning_rate, std::optional<double> target_loss,
                       std::optional<Array> x0) {
             simgrad::scenario::TuneOptions options = owner->scenario->tune;
             if (optimizer) options.optimizer = *optimizer;
             if (iterations < 0) throw std::invalid_argument("iterations must be 0 (the scenario's) or more");
             if (iterations > 0) options.iterations = iterations;
             if (learning_rate) options.learning_rate = *learning_rate;
             if (target_loss) options.target_loss = *target_loss;
             auto t = std::make_shared<TuningObject>();
             compute_at(*owner, given_parameters(*owner, x0), [&](const std::vector<double>& start) {
               t->run = std::make_unique<TuningRun>(*owner->scenario, options, start);
               return 0;
             });
             t->owner = std::move(owner);
             return t;
           }),
           py::arg("scenario"), py::arg("optimizer") = py::none(), py::arg("iterations") = 0,
           py::arg("learning_rate") = py::none(), py::arg("target_loss") = py::none(), py::arg("x0") = py::none())
      .def("initial_loss", [](TuningObject& t) { return compute(*t.owner, [&] { return t.run->initial_loss(); }); })
      .def("iterate", [](TuningObject& t) { return record_tuple(compute(*t.owner, [&] { return t.run->iterate(); })); })
      .def_property_readonly("finished", [](TuningObject& t) { return t.run->finished(); })
      .def("stop", [](TuningObject& t, std::string reason) { t.run->stop(std::move(reason)); })
      .def("result",
           [](TuningObject& t) {
             const simgrad::tune::OptimizeResult r = t.run->result();
             py::list history;
             for (const auto& record : r.history) history.append(record_tuple(record));
             return py::make_tuple(r.loss, r.iterations, r.rollouts, r.gradient_evaluations, r.wall_s,
                                   r.stop_reason, r.reached_target, history);
           })
      .def("best_parameters", [](TuningObject& t) { return owned_array(t.run->best_parameters()); })
      .def("initial_parameters",
           [](TuningObject& t) { return owned_array(std::vector<double>(t.run->initial_parameters())); })
      .def_property_readonly("non_finite_rollouts", [](TuningObject& t) { return t.run->non_finite_rollouts(); })
      .def("save",
           [](TuningObject& t) {
             std::ostringstream out;
             t.run->save(out);
             return py::bytes(out.str());
           })
      .def("load",
           [](TuningObject& t, const std::string& state, double initial_loss) {
             std::istringstream in(state);
             t.run->load(in, initial_loss);
           })
      .def(
          "write",
          [](TuningObject& t, const std::filesystem::path& folder, std::vector<std::filesystem::path> exports) {
            return compute(*t.owner, [&] {
              std::filesystem::create_directories(folder);
              return simgrad::scenario::write_tune_outputs(folder, *t.owner->scenario, *t.run, exports).dump();
            });
          },
          py::arg("folder"), py::arg("exports") = std::vector<std::filesystem::path>{});
}
