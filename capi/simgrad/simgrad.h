/* simgrad's C API: scenarios, their gradients, rollouts and tuning runs from any language.
 *
 * Plain C11, for game engines and tools that cannot take C++ across their boundary: Unity
 * (P/Invoke), Godot (GDExtension), Unreal (a module built without exceptions), Python (ctypes).
 * docs/c_api.md has each one's binding.
 *
 * The contract:
 * - Every function returns a simgrad_status; SIMGRAD_OK is 0. After a failure,
 *   simgrad_last_error() on the same thread returns the message (a scenario error names the
 *   file, line and field; a non-finite rollout names the step and element). No C++ exception
 *   crosses this boundary and nothing aborts the host process.
 * - Handles are small structs holding an id. A zero, freed or foreign id is
 *   SIMGRAD_INVALID_HANDLE, never a crash; ids are not reused within a process.
 * - Outputs go into the caller's buffers. A call given `capacity` elements (or bytes, for text)
 *   writes the size it needs to `*size` (or `*length`, not counting the terminating NUL) and
 *   returns SIMGRAD_BUFFER_TOO_SMALL when they do not fit, writing nothing else; so a NULL
 *   buffer with capacity 0 asks for the size.
 * - A handle may be used from any thread, one call at a time per scenario (calls on one
 *   scenario, and on the rollouts and tuning runs made from it, are serialised inside).
 * - Results are the same bits as the command line's for the same scenario, on any thread count.
 */
#ifndef SIMGRAD_SIMGRAD_H
#define SIMGRAD_SIMGRAD_H

#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#if defined(SIMGRAD_C_BUILDING)
#define SIMGRAD_API __declspec(dllexport)
#else
#define SIMGRAD_API __declspec(dllimport)
#endif
#else
#define SIMGRAD_API __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The version of this interface; a change that breaks a caller raises it. */
#define SIMGRAD_C_API_VERSION 1

typedef enum simgrad_status {
  SIMGRAD_OK = 0,
  SIMGRAD_INVALID_HANDLE = 1,    /* a zero, freed or unknown handle */
  SIMGRAD_INVALID_ARGUMENT = 2,  /* a NULL pointer, an unknown parameter name, a value out of bounds */
  SIMGRAD_BUFFER_TOO_SMALL = 3,  /* the size needed is in *size or *length */
  SIMGRAD_SCENARIO_ERROR = 4,    /* the scenario does not load: file, line and field in the message */
  SIMGRAD_NON_FINITE = 5,        /* the simulation went non-finite: step and element in the message */
  SIMGRAD_CANCELLED = 6,         /* a progress callback asked to stop */
  SIMGRAD_UNSUPPORTED = 7,       /* this simulator does not offer the call (explain, a trajectory) */
  SIMGRAD_INTERNAL_ERROR = 8     /* anything else, out of memory included */
} simgrad_status;

typedef struct simgrad_scenario { uint64_t id; } simgrad_scenario;
typedef struct simgrad_rollout { uint64_t id; } simgrad_rollout;
typedef struct simgrad_tuning { uint64_t id; } simgrad_tuning;

/* ---- The library -------------------------------------------------------------------------- */

/* simgrad's version, "major.minor.patch"; a static string. */
SIMGRAD_API const char* simgrad_version(void);
/* The message of this thread's last failed call ("" after a success); valid until this thread's
 * next call. */
SIMGRAD_API const char* simgrad_last_error(void);
/* The status's name, "SIMGRAD_OK" ...; a static string. */
SIMGRAD_API const char* simgrad_status_name(simgrad_status status);

/* ---- Scenarios ---------------------------------------------------------------------------- */

/* Loads a scenario file (the command line's format); a NULL or empty path loads the built-in
 * default scenario. */
SIMGRAD_API simgrad_status simgrad_scenario_load_file(const char* path, simgrad_scenario* out);
/* Loads a scenario from JSON text of `length` bytes; `name` stands for the file in messages (NULL:
 * "<json>"). Relative paths inside it resolve against the working directory. */
SIMGRAD_API simgrad_status simgrad_scenario_load_json(const char* json, size_t length, const char* name,
                                                      simgrad_scenario* out);
/* Frees the handle; rollouts and tuning runs made from it stay usable until they are freed. */
SIMGRAD_API simgrad_status simgrad_scenario_free(simgrad_scenario scenario);
/* The simulator's name ("mass_spring", "fluid", ...). */
SIMGRAD_API simgrad_status simgrad_scenario_simulator(simgrad_scenario scenario, char* buffer, size_t capacity,
                                                      size_t* length);
/* The number of steps of one rollout. */
SIMGRAD_API simgrad_status simgrad_scenario_steps(simgrad_scenario scenario, int* steps);
/* The threads this scenario's calls use (0: all cores, the default). Set for the duration of
 * each call and put back after it: the host's own OpenMP setting is left as it was. Results are
 * the same bits for every count. */
SIMGRAD_API simgrad_status simgrad_scenario_set_threads(simgrad_scenario scenario, int threads);

/* A host's job system (a game engine's worker threads): parallel_for(context, count, task,
 * task_data) must call task(task_data, i) once for every i in [0, count), on any of its
 * threads, and return once all have finished; `threads` is how many it runs at once. */
typedef void (*simgrad_task)(void* task_data, int index);
typedef struct simgrad_job_system {
  void (*parallel_for)(void* context, int count, simgrad_task task, void* task_data);
  void* context;
  int threads;
} simgrad_job_system;

/* Runs this scenario's parallel loops on the host's job system instead of OpenMP (NULL: OpenMP
 * again); the struct is copied. Results are the same bits either way. Loops inside a task run
 * serially, so the host's threads are never oversubscribed. */
SIMGRAD_API simgrad_status simgrad_scenario_set_job_system(simgrad_scenario scenario, const simgrad_job_system* jobs);

/* ---- Parameters --------------------------------------------------------------------------- */
/* A scenario holds current values of its tuned parameters, initially the file's; run, gradient,
 * gradcheck, explain, rollouts and tuning start from them. Values are physical (the file's
 * units). A parameter has one or more components; the flat vector concatenates them in order. */

/* How many named parameters, and the flat vector's length. */
SIMGRAD_API simgrad_status simgrad_parameter_count(simgrad_scenario scenario, size_t* count, size_t* components);
/* The name of parameter `index` (0 <= index < count). */
SIMGRAD_API simgrad_status simgrad_parameter_name(simgrad_scenario scenario, size_t index, char* buffer,
                                                  size_t capacity, size_t* length);
/* A parameter's number of components and its bounds (the same for every component; infinite
 * where it has none). Any output may be NULL. */
SIMGRAD_API simgrad_status simgrad_parameter_info(simgrad_scenario scenario, const char* name, size_t* size,
                                                  double* lower, double* upper);
/* Reads or sets one parameter by name; a value outside its bounds is SIMGRAD_INVALID_ARGUMENT and
 * changes nothing. */
SIMGRAD_API simgrad_status simgrad_parameter_get(simgrad_scenario scenario, const char* name, double* values,
                                                 size_t capacity, size_t* size);
SIMGRAD_API simgrad_status simgrad_parameter_set(simgrad_scenario scenario, const char* name, const double* values,
                                                 size_t count);
/* Reads or sets the whole flat vector. */
SIMGRAD_API simgrad_status simgrad_parameters_get(simgrad_scenario scenario, double* values, size_t capacity,
                                                  size_t* size);
SIMGRAD_API simgrad_status simgrad_parameters_set(simgrad_scenario scenario, const double* values, size_t count);

/* ---- Evaluation at the current parameters -------------------------------------------------- */

/* One rollout's loss. */
SIMGRAD_API simgrad_status simgrad_run(simgrad_scenario scenario, double* loss);
/* The loss on the hard model (every relaxation at its hard twin), for re-scoring. */
SIMGRAD_API simgrad_status simgrad_hard_loss(simgrad_scenario scenario, double* loss);
/* The loss and its exact gradient with respect to the flat parameter vector. */
SIMGRAD_API simgrad_status simgrad_gradient(simgrad_scenario scenario, double* loss, double* gradient,
                                            size_t capacity, size_t* size);

typedef struct simgrad_gradcheck_options {
  double step;     /* relative finite-difference step; 0: 1e-6 */
  double rtol;     /* 0: 1e-4 */
  double atol;     /* 0: 1e-9 */
  int directions;  /* random directions; 0: every component up to 64, else 16 directions */
} simgrad_gradcheck_options;

typedef struct simgrad_gradcheck_result {
  int passed;            /* 1 when every check agrees within tolerance and in sign */
  int checks;
  int failures;
  double max_rel_error;  /* the largest relative error of any check */
} simgrad_gradcheck_result;

/* The gradient against central differences; `options` NULL takes the defaults. A failed check
 * is a result (passed 0), not an error status. */
SIMGRAD_API simgrad_status simgrad_gradcheck(simgrad_scenario scenario, const simgrad_gradcheck_options* options,
                                             simgrad_gradcheck_result* result);
/* Hints (which change most improves the score, each re-scored on the hard model) as JSON text:
 * {"rating", "hard_rating", "hints": [{"text", ...}]}; `hints` 0 takes the scenario's count.
 * SIMGRAD_UNSUPPORTED for simulators that give none. */
SIMGRAD_API simgrad_status simgrad_explain(simgrad_scenario scenario, int hints, char* json, size_t capacity,
                                           size_t* length);
/* Writes the run at the current parameters to `path`: "x.gltf" (glTF 2.0, a mesh with its
 * animation) or "x.pvd" (a VTK series for ParaView, with its folder of frames); `frames` (may be
 * NULL) gets the number of frames. SIMGRAD_UNSUPPORTED when the simulator has nothing to export
 * in that format. */
SIMGRAD_API simgrad_status simgrad_export(simgrad_scenario scenario, const char* path, int* frames);
/* Simulator-specific figures of the most recent run, as JSON text. */
SIMGRAD_API simgrad_status simgrad_summary(simgrad_scenario scenario, char* json, size_t capacity, size_t* length);

/* ---- Rollouts: the states of one forward run ----------------------------------------------- */

typedef struct simgrad_rollout_info {
  double loss;
  int steps;          /* states run: 0..steps */
  int every;          /* states kept: steps 0, every, 2 every, ... and the last */
  int kept;           /* how many states are kept */
  size_t state_size;  /* doubles per state */
} simgrad_rollout_info;

/* Runs forward at the current parameters, keeping every `every`-th state (1: all) and the
 * final one. SIMGRAD_UNSUPPORTED for scenarios that are not rollouts (a structure's analysis).
 * The rollout owns its states: it outlives the scenario's handle. */
SIMGRAD_API simgrad_status simgrad_rollout_create(simgrad_scenario scenario, int every, simgrad_rollout* out);
SIMGRAD_API simgrad_status simgrad_rollout_free(simgrad_rollout rollout);
SIMGRAD_API simgrad_status simgrad_rollout_info_get(simgrad_rollout rollout, simgrad_rollout_info* info);
/* The state at `step` (a kept one: a multiple of `every`, or `steps`). */
SIMGRAD_API simgrad_status simgrad_rollout_state(simgrad_rollout rollout, int step, double* state, size_t capacity,
                                                 size_t* size);

/* ---- Tuning runs --------------------------------------------------------------------------- */

typedef struct simgrad_tune_options {
  const char* optimizer;  /* "lbfgs", "adam", "normalized_gd", "levenberg_marquardt"; NULL: the scenario's */
  int iterations;         /* 0: the scenario's */
} simgrad_tune_options;

typedef struct simgrad_tune_progress {
  int iteration;       /* 1 for the first */
  int64_t rollouts;    /* so far, gradient evaluations included */
  double loss;         /* this iteration's */
  double best_loss;    /* lowest so far */
  double wall_s;       /* seconds of wall time so far */
} simgrad_tune_progress;

typedef struct simgrad_tune_result {
  double initial_loss;
  double best_loss;
  int iterations;
  int64_t rollouts;
  int64_t gradient_evaluations;
  int64_t non_finite_rollouts;
  int finished;        /* 1 once the run has stopped (budget, target, convergence, cancel) */
  double wall_s;
} simgrad_tune_result;

/* Called after each iteration; returning nonzero stops the run (the best point is kept). */
typedef int (*simgrad_progress_callback)(const simgrad_tune_progress* progress, void* user_data);

/* A tuning run from the scenario's current parameters; `options` NULL takes the scenario's. */
SIMGRAD_API simgrad_status simgrad_tune_create(simgrad_scenario scenario, const simgrad_tune_options* options,
                                               simgrad_tuning* out);
SIMGRAD_API simgrad_status simgrad_tune_free(simgrad_tuning tuning);
/* One iteration; `progress` may be NULL. SIMGRAD_INVALID_ARGUMENT once the run is finished. */
SIMGRAD_API simgrad_status simgrad_tune_step(simgrad_tuning tuning, simgrad_tune_progress* progress);
/* Iterates until the run finishes, calling `callback` (may be NULL) after each iteration;
 * SIMGRAD_CANCELLED when the callback stopped it. */
SIMGRAD_API simgrad_status simgrad_tune_run(simgrad_tuning tuning, simgrad_progress_callback callback,
                                            void* user_data);
SIMGRAD_API simgrad_status simgrad_tune_result_get(simgrad_tuning tuning, simgrad_tune_result* result);
/* Why the run stopped ("max iterations", "target reached", "cancelled", ...; "" while running). */
SIMGRAD_API simgrad_status simgrad_tune_stop_reason(simgrad_tuning tuning, char* buffer, size_t capacity,
                                                    size_t* length);
/* The best parameters found, as a flat vector. */
SIMGRAD_API simgrad_status simgrad_tune_best_parameters(simgrad_tuning tuning, double* values, size_t capacity,
                                                        size_t* size);
/* Writes the run's results to `folder` (created if need be) as `simgrad tune --out` does:
 * result.json, loss.svg, report.html and report.json. Re-scores the best point on the hard model
 * and leaves the scenario's model there (its current parameters stay as they are). */
SIMGRAD_API simgrad_status simgrad_tune_write(simgrad_tuning tuning, const char* folder);
/* The run's whole state as text (the optimizer's state in hexadecimal floating point, and the
 * initial loss), to continue it later, in this process or another. The text is taken once per
 * iteration: a size query and the save that follows it see the same text. */
SIMGRAD_API simgrad_status simgrad_tune_save(simgrad_tuning tuning, char* buffer, size_t capacity, size_t* length);
/* Replaces the run's state with a saved one; the run must have been created the same way (same
 * scenario file, parameters and options). It then continues bit for bit as the saved run would
 * have. A state that does not read is SIMGRAD_INVALID_ARGUMENT and leaves the run as it was. */
SIMGRAD_API simgrad_status simgrad_tune_load(simgrad_tuning tuning, const char* state, size_t length);
/* Sets the scenario's current parameters to the best found. */
SIMGRAD_API simgrad_status simgrad_tune_apply(simgrad_tuning tuning);

#ifdef __cplusplus
}
#endif

#endif /* SIMGRAD_SIMGRAD_H */
