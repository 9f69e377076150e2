/* The C API from a C11 program, as an engine's native plugin would call it: the built-in scenario
 * run, its gradient checked against central differences taken through the API itself, a rollout's
 * states against the run's loss, a tuning run with a cancelling callback, the same bits on one
 * thread and two, hints from a structure, and every kind of bad call answered with a status and a
 * message. Argument: the examples folder. Exits 0 when every check passes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

#include "simgrad/simgrad.h"

static int failures = 0;

#define CHECK(condition)                                                        \
  do {                                                                          \
    if (!(condition)) {                                                         \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #condition); \
      ++failures;                                                               \
    }                                                                           \
  } while (0)

/* The call returns `expected`, and a failure leaves a message that mentions `word`. */
#define EXPECT_STATUS(expected, call, word)                                                  \
  do {                                                                                       \
    simgrad_status status_ = (call);                                                         \
    if (status_ != (expected)) {                                                             \
      fprintf(stderr, "%s:%d: %s returned %s, expected %s (%s)\n", __FILE__, __LINE__, #call, \
              simgrad_status_name(status_), simgrad_status_name(expected), simgrad_last_error()); \
      ++failures;                                                                            \
    } else if ((expected) != SIMGRAD_OK && strstr(simgrad_last_error(), (word)) == NULL) {   \
      fprintf(stderr, "%s:%d: message \"%s\" lacks \"%s\"\n", __FILE__, __LINE__,              \
              simgrad_last_error(), (word));                                                 \
      ++failures;                                                                            \
    }                                                                                        \
  } while (0)

#define OK(call) EXPECT_STATUS(SIMGRAD_OK, call, "")

/* Central differences agree with the gradient within a relative-plus-absolute tolerance and in
 * sign. */
static int derivatives_agree(double ad, double fd) {
  const double scale = fabs(ad) > fabs(fd) ? fabs(ad) : fabs(fd);
  if (fabs(ad - fd) > 1e-7 + 1e-4 * scale) return 0;
  return fabs(fd) <= 1e-7 || (ad > 0) == (fd > 0);
}

static int cancel_after_two(const simgrad_tune_progress* progress, void* user_data) {
  int* calls = (int*)user_data;
  ++*calls;
  return progress->iteration >= 2;
}

static void test_run_gradient_and_rollout(void) {
  simgrad_scenario s;
  OK(simgrad_scenario_load_file(NULL, &s)); /* the built-in default: DiffTaichi's triangle */
  char name[32];
  size_t length = 0;
  OK(simgrad_scenario_simulator(s, name, sizeof name, &length));
  CHECK(strcmp(name, "softbody") == 0 && length == 8);

  size_t count = 0, components = 0;
  OK(simgrad_parameter_count(s, &count, &components));
  CHECK(count == 1 && components == 3);
  OK(simgrad_parameter_name(s, 0, name, sizeof name, &length));
  CHECK(strcmp(name, "rest_length") == 0);
  double lower = 0, upper = 0;
  size_t size = 0;
  OK(simgrad_parameter_info(s, "rest_length", &size, &lower, &upper));
  CHECK(size == 3 && lower == 0.01 && upper == 2.0);

  double x[3];
  OK(simgrad_parameters_get(s, x, 3, &size));
  CHECK(size == 3 && x[0] == 0.1 && x[1] == 0.1);

  double loss = 0, gradient[3];
  OK(simgrad_gradient(s, &loss, gradient, 3, &size));
  double run_loss = 0;
  OK(simgrad_run(s, &run_loss));
  CHECK(run_loss == loss && isfinite(loss) && loss > 0);

  /* Each component against central differences, moved through simgrad_parameter_set. */
  for (int i = 0; i < 3; ++i) {
    const double h = 1e-6;
    double moved[3] = {x[0], x[1], x[2]}, up = 0, down = 0;
    moved[i] = x[i] + h;
    OK(simgrad_parameter_set(s, "rest_length", moved, 3));
    OK(simgrad_run(s, &up));
    moved[i] = x[i] - h;
    OK(simgrad_parameters_set(s, moved, 3));
    OK(simgrad_run(s, &down));
    const double fd = (up - down) / (2 * h);
    if (!derivatives_agree(gradient[i], fd)) {
      fprintf(stderr, "component %d: gradient %.10g, central difference %.10g\n", i, gradient[i], fd);
      ++failures;
    }
  }
  OK(simgrad_parameters_set(s, x, 3));
  simgrad_gradcheck_result check;
  OK(simgrad_gradcheck(s, NULL, &check));
  CHECK(check.passed == 1 && check.checks == 3 && check.failures == 0);

  /* A rollout keeps every 100th state and the last; its loss is the run's. */
  simgrad_rollout r;
  OK(simgrad_rollout_create(s, 100, &r));
  simgrad_rollout_info info;
  OK(simgrad_rollout_info_get(r, &info));
  CHECK(info.loss == loss && info.steps == 1024 && info.kept == 12 && info.state_size > 0);
  double* state = malloc(info.state_size * sizeof *state);
  OK(simgrad_rollout_state(r, 0, state, info.state_size, &size));
  CHECK(size == info.state_size && state[0] == 0.3 && state[1] == 0.5); /* node 0 at rest */
  OK(simgrad_rollout_state(r, 1024, state, info.state_size, &size));
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_rollout_state(r, 50, state, info.state_size, &size), "not kept");
  EXPECT_STATUS(SIMGRAD_BUFFER_TOO_SMALL, simgrad_rollout_state(r, 0, state, 1, &size), "needed");
  CHECK(size == info.state_size);
  free(state);

  /* The run as glTF; a format of no known kind is refused. */
  int frames = 0;
  OK(simgrad_export(s, "capi_test_triangle.gltf", &frames));
  CHECK(frames == 104);
  remove("capi_test_triangle.gltf");
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_export(s, "triangle.fbx", &frames), "unknown export format");

  /* The rollout outlives the scenario's handle. */
  OK(simgrad_scenario_free(s));
  OK(simgrad_rollout_info_get(r, &info));
  OK(simgrad_rollout_free(r));
}

static void test_same_bits_on_any_thread_count(void) {
  simgrad_scenario s;
  OK(simgrad_scenario_load_file(NULL, &s));
  double loss1 = 0, loss2 = 0, g1[3], g2[3];
  size_t size = 0;
  OK(simgrad_scenario_set_threads(s, 1));
  OK(simgrad_gradient(s, &loss1, g1, 3, &size));
  OK(simgrad_scenario_set_threads(s, 2));
  OK(simgrad_gradient(s, &loss2, g2, 3, &size));
  CHECK(memcmp(&loss1, &loss2, sizeof loss1) == 0 && memcmp(g1, g2, sizeof g1) == 0);
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_scenario_set_threads(s, -1), "threads");
  OK(simgrad_scenario_free(s));
}

/* A host's job system, as an engine's would be: `threads` C11 threads share each loop's indices
 * (i, i + threads, ...); it counts the loops it is given. */
typedef struct host_jobs {
  int threads;
  int loops;
} host_jobs;

typedef struct worker_share {
  simgrad_task task;
  void* task_data;
  int first, stride, count;
} worker_share;

static int run_share(void* argument) {
  const worker_share* share = (const worker_share*)argument;
  for (int i = share->first; i < share->count; i += share->stride) share->task(share->task_data, i);
  return 0;
}

static void host_parallel_for(void* context, int count, simgrad_task task, void* task_data) {
  host_jobs* jobs = (host_jobs*)context;
  thrd_t workers[8];
  worker_share shares[8];
  ++jobs->loops;
  for (int w = 0; w < jobs->threads; ++w) {
    shares[w] = (worker_share){task, task_data, w, jobs->threads, count};
    if (thrd_create(&workers[w], run_share, &shares[w]) != thrd_success) abort();
  }
  for (int w = 0; w < jobs->threads; ++w) thrd_join(workers[w], NULL);
}

/* The smoke plume's gradient (a grid large enough to run its loops in parallel) on the host's
 * threads is OpenMP's, bit for bit. */
static void test_host_job_system(const char* examples) {
  char path[1024];
  snprintf(path, sizeof path, "%s/smoke_target.json", examples);
  simgrad_scenario s;
  OK(simgrad_scenario_load_file(path, &s));
  size_t n = 0, size = 0;
  OK(simgrad_parameter_count(s, NULL, &n));
  double* openmp = malloc(n * sizeof *openmp);
  double* hosted = malloc(n * sizeof *hosted);
  double loss_openmp = 0, loss_hosted = 0;
  OK(simgrad_scenario_set_threads(s, 2));
  OK(simgrad_gradient(s, &loss_openmp, openmp, n, &size));
  host_jobs host = {2, 0};
  const simgrad_job_system jobs = {host_parallel_for, &host, 2};
  OK(simgrad_scenario_set_job_system(s, &jobs));
  OK(simgrad_gradient(s, &loss_hosted, hosted, n, &size));
  CHECK(host.loops > 100); /* every parallel loop of the rollout went to the host */
  CHECK(memcmp(&loss_openmp, &loss_hosted, sizeof loss_openmp) == 0 && memcmp(openmp, hosted, n * sizeof *openmp) == 0);
  const simgrad_job_system broken = {NULL, NULL, 2};
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_scenario_set_job_system(s, &broken), "parallel_for");
  OK(simgrad_scenario_set_job_system(s, NULL));
  const int loops = host.loops;
  OK(simgrad_run(s, &loss_hosted));
  CHECK(host.loops == loops && loss_hosted == loss_openmp); /* OpenMP again */
  free(openmp);
  free(hosted);
  OK(simgrad_scenario_free(s));
}

static void test_tuning(void) {
  simgrad_scenario s;
  OK(simgrad_scenario_load_file(NULL, &s));
  simgrad_tune_options options = {"lbfgs", 10};
  simgrad_tuning t;
  OK(simgrad_tune_create(s, &options, &t));
  int calls = 0;
  EXPECT_STATUS(SIMGRAD_CANCELLED, simgrad_tune_run(t, cancel_after_two, &calls), "callback");
  simgrad_tune_result result;
  OK(simgrad_tune_result_get(t, &result));
  CHECK(calls == 2 && result.iterations == 2 && result.finished == 1);
  CHECK(result.best_loss < result.initial_loss);
  char reason[64];
  size_t length = 0;
  OK(simgrad_tune_stop_reason(t, reason, sizeof reason, &length));
  CHECK(strcmp(reason, "cancelled") == 0);
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_tune_step(t, NULL), "finished");
  OK(simgrad_tune_free(t));

  /* A run to the end (L-BFGS reaches a zero gradient in 7 iterations) lowers the loss by orders
   * of magnitude; apply hands the result back. */
  OK(simgrad_tune_create(s, &options, &t));
  simgrad_tune_progress progress;
  OK(simgrad_tune_step(t, &progress));
  CHECK(progress.iteration == 1);
  OK(simgrad_tune_run(t, NULL, NULL));
  OK(simgrad_tune_result_get(t, &result));
  CHECK(result.finished == 1 && result.iterations <= 10 && result.best_loss < 1e-3 * result.initial_loss);
  double best[3], loss = 0;
  size_t size = 0;
  OK(simgrad_tune_best_parameters(t, best, 3, &size));
  OK(simgrad_tune_apply(t));
  OK(simgrad_run(s, &loss));
  CHECK(loss == result.best_loss);
  /* Saved after two iterations and loaded into a new run, it ends where an unbroken run ends,
   * bit for bit; a state that does not read changes nothing. */
  simgrad_tuning unbroken, first, second;
  simgrad_tune_options five = {"lbfgs", 5};
  double x0[3] = {0.1, 0.1, 0.1414213562373095};
  OK(simgrad_parameters_set(s, x0, 3));
  OK(simgrad_tune_create(s, &five, &unbroken));
  OK(simgrad_tune_run(unbroken, NULL, NULL));
  OK(simgrad_tune_create(s, &five, &first));
  OK(simgrad_tune_step(first, NULL));
  OK(simgrad_tune_step(first, NULL));
  EXPECT_STATUS(SIMGRAD_BUFFER_TOO_SMALL, simgrad_tune_save(first, NULL, 0, &size), "bytes");
  char* saved = malloc(size + 1);
  OK(simgrad_tune_save(first, saved, size + 1, &size));
  OK(simgrad_tune_free(first));
  OK(simgrad_tune_create(s, &five, &second));
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_tune_load(second, "nonsense", 8), "initial_loss");
  OK(simgrad_tune_load(second, saved, size));
  free(saved);
  OK(simgrad_tune_run(second, NULL, NULL));
  double a[3], b[3];
  simgrad_tune_result ra, rb;
  OK(simgrad_tune_best_parameters(unbroken, a, 3, &size));
  OK(simgrad_tune_best_parameters(second, b, 3, &size));
  OK(simgrad_tune_result_get(unbroken, &ra));
  OK(simgrad_tune_result_get(second, &rb));
  CHECK(memcmp(a, b, sizeof a) == 0 && memcmp(&ra.best_loss, &rb.best_loss, sizeof ra.best_loss) == 0);
  CHECK(ra.iterations == rb.iterations && ra.rollouts == rb.rollouts);
  /* Its results as `simgrad tune --out` writes them. */
  OK(simgrad_tune_write(second, "capi_test_tune"));
  FILE* written = fopen("capi_test_tune/result.json", "r");
  CHECK(written != NULL);
  if (written) fclose(written);
  written = fopen("capi_test_tune/report.html", "r");
  CHECK(written != NULL);
  if (written) fclose(written);
  const char* files[] = {"result.json", "loss.svg", "report.html", "report.json"};
  for (size_t f = 0; f < sizeof files / sizeof *files; ++f) {
    char path[64];
    snprintf(path, sizeof path, "capi_test_tune/%s", files[f]);
    remove(path);
  }
  remove("capi_test_tune");
  OK(simgrad_tune_free(unbroken));
  OK(simgrad_tune_free(second));

  /* The tuning run keeps its scenario alive after the scenario's handle goes. */
  OK(simgrad_scenario_free(s));
  OK(simgrad_tune_apply(t));
  OK(simgrad_tune_free(t));
}

static void test_explain(const char* examples) {
  char path[1024];
  snprintf(path, sizeof path, "%s/ten_bar_truss.json", examples);
  simgrad_scenario s;
  OK(simgrad_scenario_load_file(path, &s));
  size_t length = 0;
  EXPECT_STATUS(SIMGRAD_BUFFER_TOO_SMALL, simgrad_explain(s, 2, NULL, 0, &length), "bytes");
  char* json = malloc(length + 1);
  OK(simgrad_explain(s, 2, json, length + 1, &length));
  CHECK(strstr(json, "\"hints\"") != NULL && strstr(json, "\"hard_rating\"") != NULL);
  free(json);
  simgrad_rollout r;
  EXPECT_STATUS(SIMGRAD_UNSUPPORTED, simgrad_rollout_create(s, 1, &r), "not a rollout");
  OK(simgrad_scenario_free(s));

  OK(simgrad_scenario_load_file(NULL, &s));
  char small[4];
  EXPECT_STATUS(SIMGRAD_UNSUPPORTED, simgrad_explain(s, 0, small, sizeof small, &length), "no hints");
  OK(simgrad_scenario_free(s));
}

/* Every call that takes a handle refuses a zero one and a freed one with SIMGRAD_INVALID_HANDLE
 * and a message, whatever its other arguments. */
static void test_every_call_refuses_dead_handles(void) {
  simgrad_scenario scenarios[2] = {{0}, {0}};
  simgrad_rollout rollouts[2] = {{0}, {0}};
  simgrad_tuning tunings[2] = {{0}, {0}};
  OK(simgrad_scenario_load_file(NULL, &scenarios[1]));
  OK(simgrad_rollout_create(scenarios[1], 1, &rollouts[1]));
  OK(simgrad_tune_create(scenarios[1], NULL, &tunings[1]));
  OK(simgrad_rollout_free(rollouts[1]));
  OK(simgrad_tune_free(tunings[1]));
  OK(simgrad_scenario_free(scenarios[1]));
  char text[64];
  double values[4] = {0.1, 0.1, 0.1, 0.1}, loss = 0;
  size_t size = 0, count = 0;
  int steps = 0;
  simgrad_gradcheck_result check;
  simgrad_rollout_info info;
  simgrad_tune_result result;
  simgrad_tune_progress progress;
  const simgrad_job_system jobs = {host_parallel_for, NULL, 1};
  for (int k = 0; k < 2; ++k) {
    const simgrad_scenario s = scenarios[k];
    const simgrad_rollout r = rollouts[k];
    const simgrad_tuning t = tunings[k];
    simgrad_rollout new_rollout;
    simgrad_tuning new_tuning;
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_scenario_free(s), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_scenario_simulator(s, text, sizeof text, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_scenario_steps(s, &steps), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_scenario_set_threads(s, 1), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_scenario_set_job_system(s, &jobs), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_parameter_count(s, &count, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_parameter_name(s, 0, text, sizeof text, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_parameter_info(s, "rest_length", &size, NULL, NULL), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_parameter_get(s, "rest_length", values, 4, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_parameter_set(s, "rest_length", values, 3), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_parameters_get(s, values, 4, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_parameters_set(s, values, 3), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_run(s, &loss), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_hard_loss(s, &loss), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_gradient(s, &loss, values, 4, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_gradcheck(s, NULL, &check), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_explain(s, 0, text, sizeof text, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_export(s, "dead.gltf", &steps), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_summary(s, text, sizeof text, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_rollout_create(s, 1, &new_rollout), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_create(s, NULL, &new_tuning), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_rollout_free(r), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_rollout_info_get(r, &info), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_rollout_state(r, 0, values, 4, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_free(t), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_step(t, &progress), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_run(t, NULL, NULL), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_result_get(t, &result), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_stop_reason(t, text, sizeof text, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_best_parameters(t, values, 4, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_save(t, text, sizeof text, &size), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_load(t, "initial_loss 0x1p+0", 19), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_apply(t), "not live");
    EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_write(t, "dead"), "not live");
  }
}

static void test_bad_calls(void) {
  simgrad_scenario none = {0};
  double loss = 0, values[3] = {0.1, 0.1, 0.1};
  size_t size = 0;
  EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_run(none, &loss), "not live");
  EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_scenario_free(none), "not live");

  simgrad_scenario s, freed;
  OK(simgrad_scenario_load_file(NULL, &freed));
  OK(simgrad_scenario_free(freed));
  EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_run(freed, &loss), "not live");
  EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_scenario_free(freed), "not live");

  OK(simgrad_scenario_load_file(NULL, &s));
  simgrad_rollout foreign = {s.id}; /* a scenario's id is no rollout */
  simgrad_rollout_info info;
  EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_rollout_info_get(foreign, &info), "rollout");
  simgrad_tuning no_tuning = {s.id};
  EXPECT_STATUS(SIMGRAD_INVALID_HANDLE, simgrad_tune_step(no_tuning, NULL), "tuning");

  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_run(s, NULL), "loss is NULL");
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_parameter_get(s, "stiffnes", values, 3, &size), "rest_length");
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_parameter_get(s, NULL, values, 3, &size), "name is NULL");
  EXPECT_STATUS(SIMGRAD_BUFFER_TOO_SMALL, simgrad_parameter_get(s, "rest_length", values, 2, &size), "3 values");
  CHECK(size == 3);
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_parameter_set(s, "rest_length", values, 2), "3 components");
  double out_of_bounds[3] = {0.1, 5.0, 0.1};
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_parameter_set(s, "rest_length", out_of_bounds, 3), "rest_length");
  double not_finite[3] = {0.1, NAN, 0.1};
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_parameters_set(s, not_finite, 3), "not finite");
  double kept[3];
  OK(simgrad_parameters_get(s, kept, 3, &size)); /* nothing changed */
  CHECK(kept[0] == 0.1 && kept[1] == 0.1);
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_parameter_name(s, 7, NULL, 0, &size), "index 7");
  double gradient[2];
  EXPECT_STATUS(SIMGRAD_BUFFER_TOO_SMALL, simgrad_gradient(s, &loss, gradient, 2, &size), "3 values");
  char tiny[3];
  EXPECT_STATUS(SIMGRAD_BUFFER_TOO_SMALL, simgrad_scenario_simulator(s, tiny, sizeof tiny, &size), "9 bytes");
  simgrad_tune_options unknown = {"gradient_descent", 0};
  simgrad_tuning t;
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_tune_create(s, &unknown, &t), "gradient_descent");
  simgrad_rollout r;
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_rollout_create(s, 0, &r), "every");
  OK(simgrad_scenario_free(s));

  /* A scenario that does not load names the line and the field. */
  const char* bad = "{\n  \"simulator\": \"softbody\",\n  \"dimension\": 2,\n  \"steps\": -5\n}";
  EXPECT_STATUS(SIMGRAD_SCENARIO_ERROR, simgrad_scenario_load_json(bad, strlen(bad), "bad.json", &s), "bad.json:4");
  CHECK(s.id == 0);
  EXPECT_STATUS(SIMGRAD_SCENARIO_ERROR, simgrad_scenario_load_json("{", 1, NULL, &s), "<json>");
  EXPECT_STATUS(SIMGRAD_SCENARIO_ERROR, simgrad_scenario_load_file("/no/such/file.json", &s), "file.json");
  EXPECT_STATUS(SIMGRAD_INVALID_ARGUMENT, simgrad_scenario_load_file(NULL, NULL), "out is NULL");

  /* A success clears the last error. */
  OK(simgrad_scenario_load_file(NULL, &s));
  CHECK(strcmp(simgrad_last_error(), "") == 0);
  OK(simgrad_scenario_free(s));
  CHECK(strcmp(simgrad_status_name(SIMGRAD_NON_FINITE), "SIMGRAD_NON_FINITE") == 0);
  CHECK(strlen(simgrad_version()) >= 5);
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: capi_c_test EXAMPLES_DIR\n");
    return 2;
  }
  test_run_gradient_and_rollout();
  test_same_bits_on_any_thread_count();
  test_tuning();
  test_explain(argv[1]);
  test_host_job_system(argv[1]);
  test_bad_calls();
  test_every_call_refuses_dead_handles();
  if (failures) fprintf(stderr, "%d checks failed\n", failures);
  else printf("C API: every check passed\n");
  return failures ? 1 : 0;
}
