"""The C API from Python through ctypes, as a language with only a foreign function interface
calls it: every simulator's example gives the command line's loss and gradient to the bit; a
progress callback written in Python cancels a tuning run; bad handles, small buffers and unknown
names come back as statuses with messages. Standard library only.

Environment: SIMGRAD_C_LIBRARY (libsimgrad.so), SIMGRAD_BINARY (the command line),
SIMGRAD_SOURCE_DIR (the repository)."""
import ctypes
import json
import os
import subprocess
import unittest

LIBRARY = os.environ["SIMGRAD_C_LIBRARY"]
BINARY = os.environ["SIMGRAD_BINARY"]
EXAMPLES = os.path.join(os.environ["SIMGRAD_SOURCE_DIR"], "examples")

OK, INVALID_HANDLE, INVALID_ARGUMENT, BUFFER_TOO_SMALL, SCENARIO_ERROR = 0, 1, 2, 3, 4
CANCELLED, UNSUPPORTED = 6, 7


class Handle(ctypes.Structure):
    _fields_ = [("id", ctypes.c_uint64)]


class TuneOptions(ctypes.Structure):
    _fields_ = [("optimizer", ctypes.c_char_p), ("iterations", ctypes.c_int)]


class TuneProgress(ctypes.Structure):
    _fields_ = [("iteration", ctypes.c_int), ("rollouts", ctypes.c_int64), ("loss", ctypes.c_double),
                ("best_loss", ctypes.c_double), ("wall_s", ctypes.c_double)]


class TuneResult(ctypes.Structure):
    _fields_ = [("initial_loss", ctypes.c_double), ("best_loss", ctypes.c_double), ("iterations", ctypes.c_int),
                ("rollouts", ctypes.c_int64), ("gradient_evaluations", ctypes.c_int64),
                ("non_finite_rollouts", ctypes.c_int64), ("finished", ctypes.c_int), ("wall_s", ctypes.c_double)]


class RolloutInfo(ctypes.Structure):
    _fields_ = [("loss", ctypes.c_double), ("steps", ctypes.c_int), ("every", ctypes.c_int), ("kept", ctypes.c_int),
                ("state_size", ctypes.c_size_t)]


ProgressCallback = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(TuneProgress), ctypes.c_void_p)

lib = ctypes.CDLL(LIBRARY)
size_p = ctypes.POINTER(ctypes.c_size_t)
double_p = ctypes.POINTER(ctypes.c_double)
signatures = {
    "simgrad_version": ([], ctypes.c_char_p),
    "simgrad_last_error": ([], ctypes.c_char_p),
    "simgrad_scenario_load_file": ([ctypes.c_char_p, ctypes.POINTER(Handle)], ctypes.c_int),
    "simgrad_scenario_load_json": ([ctypes.c_char_p, ctypes.c_size_t, ctypes.c_char_p, ctypes.POINTER(Handle)], ctypes.c_int),
    "simgrad_scenario_free": ([Handle], ctypes.c_int),
    "simgrad_scenario_simulator": ([Handle, ctypes.c_char_p, ctypes.c_size_t, size_p], ctypes.c_int),
    "simgrad_parameter_count": ([Handle, size_p, size_p], ctypes.c_int),
    "simgrad_parameter_name": ([Handle, ctypes.c_size_t, ctypes.c_char_p, ctypes.c_size_t, size_p], ctypes.c_int),
    "simgrad_parameter_get": ([Handle, ctypes.c_char_p, double_p, ctypes.c_size_t, size_p], ctypes.c_int),
    "simgrad_run": ([Handle, double_p], ctypes.c_int),
    "simgrad_gradient": ([Handle, double_p, double_p, ctypes.c_size_t, size_p], ctypes.c_int),
    "simgrad_rollout_create": ([Handle, ctypes.c_int, ctypes.POINTER(Handle)], ctypes.c_int),
    "simgrad_rollout_info_get": ([Handle, ctypes.POINTER(RolloutInfo)], ctypes.c_int),
    "simgrad_rollout_state": ([Handle, ctypes.c_int, double_p, ctypes.c_size_t, size_p], ctypes.c_int),
    "simgrad_rollout_free": ([Handle], ctypes.c_int),
    "simgrad_tune_create": ([Handle, ctypes.POINTER(TuneOptions), ctypes.POINTER(Handle)], ctypes.c_int),
    "simgrad_tune_run": ([Handle, ProgressCallback, ctypes.c_void_p], ctypes.c_int),
    "simgrad_tune_result_get": ([Handle, ctypes.POINTER(TuneResult)], ctypes.c_int),
    "simgrad_tune_best_parameters": ([Handle, double_p, ctypes.c_size_t, size_p], ctypes.c_int),
    "simgrad_tune_free": ([Handle], ctypes.c_int),
    "simgrad_tune_write": ([Handle, ctypes.c_char_p], ctypes.c_int),
}
for name, (arguments, result) in signatures.items():
    function = getattr(lib, name)
    function.argtypes = arguments
    function.restype = result


def check(status):
    if status != OK:
        raise RuntimeError(f"status {status}: {lib.simgrad_last_error().decode()}")


def load(path):
    handle = Handle()
    check(lib.simgrad_scenario_load_file(path.encode(), ctypes.byref(handle)))
    return handle


def text(call, handle, *arguments):
    """A string output: ask for the length, then read it."""
    length = ctypes.c_size_t()
    call(handle, *arguments, None, 0, ctypes.byref(length))
    buffer = ctypes.create_string_buffer(length.value + 1)
    check(call(handle, *arguments, buffer, len(buffer), ctypes.byref(length)))
    return buffer.value.decode()


def cli(*arguments):
    done = subprocess.run([BINARY, *arguments, "--json"], capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


class EverySimulator(unittest.TestCase):
    # One example per simulator, each small enough to run in about a second (shared with the
    # Python package's tests).
    with open(os.path.join(os.environ["SIMGRAD_SOURCE_DIR"], "tests", "data", "one_example_per_simulator.json")) as f:
        examples = json.load(f)

    def test_loss_and_gradient_are_the_command_lines_bits(self):
        for simulator, example in self.examples.items():
            with self.subTest(simulator=simulator):
                path = os.path.join(EXAMPLES, example)
                expected = cli("grad", path)
                scenario = load(path)
                try:
                    count, components = ctypes.c_size_t(), ctypes.c_size_t()
                    check(lib.simgrad_parameter_count(scenario, ctypes.byref(count), ctypes.byref(components)))
                    flat = []
                    for index in range(count.value):
                        name = text(lib.simgrad_parameter_name, scenario, index)
                        value = expected["gradient"][name]
                        flat.extend(value if isinstance(value, list) else [value])
                    self.assertEqual(len(flat), components.value)
                    loss = ctypes.c_double()
                    gradient = (ctypes.c_double * components.value)()
                    size = ctypes.c_size_t()
                    check(lib.simgrad_gradient(scenario, ctypes.byref(loss), gradient, components.value, ctypes.byref(size)))
                    self.assertEqual(loss.value, expected["loss"])
                    self.assertEqual(list(gradient), flat)
                finally:
                    check(lib.simgrad_scenario_free(scenario))


class Rollouts(unittest.TestCase):
    def test_states_are_the_run(self):
        scenario = load(os.path.join(EXAMPLES, "rigid_billiards.json"))
        rollout = Handle()
        check(lib.simgrad_rollout_create(scenario, 1, ctypes.byref(rollout)))
        check(lib.simgrad_scenario_free(scenario))
        info = RolloutInfo()
        check(lib.simgrad_rollout_info_get(rollout, ctypes.byref(info)))
        self.assertEqual(info.kept, info.steps + 1)
        first = (ctypes.c_double * info.state_size)()
        last = (ctypes.c_double * info.state_size)()
        size = ctypes.c_size_t()
        check(lib.simgrad_rollout_state(rollout, 0, first, info.state_size, ctypes.byref(size)))
        check(lib.simgrad_rollout_state(rollout, info.steps, last, info.state_size, ctypes.byref(size)))
        self.assertNotEqual(list(first), list(last))  # the balls moved
        check(lib.simgrad_rollout_free(rollout))
        self.assertEqual(lib.simgrad_rollout_free(rollout), INVALID_HANDLE)


class Tuning(unittest.TestCase):
    def test_matches_the_command_line_and_a_python_callback_cancels(self):
        expected = cli("tune", "--iterations", "5", "--out", os.path.join(os.environ.get("TMPDIR", "/tmp"), "capi_ctypes_tune"))
        scenario = load("")  # the built-in scenario, as `simgrad tune` with no file
        options = TuneOptions(b"lbfgs", 5)
        tuning = Handle()
        check(lib.simgrad_tune_create(scenario, ctypes.byref(options), ctypes.byref(tuning)))
        seen = []

        @ProgressCallback
        def progress(record, _):
            seen.append(record.contents.best_loss)
            return 0

        check(lib.simgrad_tune_run(tuning, progress, None))
        result = TuneResult()
        check(lib.simgrad_tune_result_get(tuning, ctypes.byref(result)))
        self.assertEqual(result.initial_loss, expected["initial_loss"])
        self.assertEqual(result.best_loss, expected["final_loss"])
        self.assertEqual(result.iterations, expected["iterations"])
        self.assertEqual(result.rollouts, expected["rollouts"])
        self.assertEqual(len(seen), result.iterations)
        best = (ctypes.c_double * 3)()
        size = ctypes.c_size_t()
        check(lib.simgrad_tune_best_parameters(tuning, best, 3, ctypes.byref(size)))
        self.assertEqual(list(best), expected["parameters"]["rest_length"])
        # The folder it writes holds the command line's result.json, history aside.
        folder = os.path.join(os.environ.get("TMPDIR", "/tmp"), "capi_ctypes_tune_write")
        check(lib.simgrad_tune_write(tuning, folder.encode()))
        with open(os.path.join(folder, "result.json")) as f:
            written = json.load(f)
        for key in ("initial_loss", "final_loss", "hard_loss", "iterations", "rollouts", "parameters", "stop_reason"):
            self.assertEqual(written[key], expected[key], key)
        self.assertTrue(os.path.exists(os.path.join(folder, "report.html")))
        check(lib.simgrad_tune_free(tuning))

        @ProgressCallback
        def cancel(record, _):
            return 1

        check(lib.simgrad_tune_create(scenario, ctypes.byref(options), ctypes.byref(tuning)))
        self.assertEqual(lib.simgrad_tune_run(tuning, cancel, None), CANCELLED)
        check(lib.simgrad_tune_result_get(tuning, ctypes.byref(result)))
        self.assertEqual(result.iterations, 1)
        check(lib.simgrad_tune_free(tuning))
        check(lib.simgrad_scenario_free(scenario))


class BadCalls(unittest.TestCase):
    def test_each_is_a_status_and_a_message(self):
        loss = ctypes.c_double()
        self.assertEqual(lib.simgrad_run(Handle(0), ctypes.byref(loss)), INVALID_HANDLE)
        self.assertIn(b"not live", lib.simgrad_last_error())
        self.assertEqual(lib.simgrad_run(Handle(2**63), ctypes.byref(loss)), INVALID_HANDLE)

        scenario = load("")
        values = (ctypes.c_double * 3)()
        size = ctypes.c_size_t()
        self.assertEqual(lib.simgrad_parameter_get(scenario, b"mass", values, 3, ctypes.byref(size)), INVALID_ARGUMENT)
        self.assertIn(b"rest_length", lib.simgrad_last_error())
        self.assertEqual(lib.simgrad_parameter_get(scenario, b"rest_length", values, 1, ctypes.byref(size)),
                         BUFFER_TOO_SMALL)
        self.assertEqual(size.value, 3)
        self.assertEqual(lib.simgrad_scenario_simulator(scenario, None, 0, None), BUFFER_TOO_SMALL)
        check(lib.simgrad_scenario_free(scenario))
        self.assertEqual(lib.simgrad_scenario_free(scenario), INVALID_HANDLE)

        bad = b'{"simulator": "softbody",\n "dimension": 4}'
        self.assertEqual(lib.simgrad_scenario_load_json(bad, len(bad), b"engine.json", ctypes.byref(Handle())),
                         SCENARIO_ERROR)
        self.assertIn(b"engine.json:2", lib.simgrad_last_error())
        self.assertIn(b"dimension", lib.simgrad_last_error())


if __name__ == "__main__":
    unittest.main(verbosity=2)
