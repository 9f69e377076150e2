"""simgrad: differentiable simulation with exact gradients, from Python.

    import simgrad
    scenario = simgrad.load("examples/mass_spring_simple.json")
    loss, gradient = scenario.grad()          # gradient: a NumPy array, one entry per component
    result = scenario.tune(iterations=10)     # L-BFGS (or the scenario's optimizer)
    scenario.x = result.x                     # the tuned parameters
    result                                    # in Jupyter: the report, inline

Every simulator is reached through its scenario file (or the same content as a dict), with the
results the command line prints, as Python objects. The PyTorch bridge is `simgrad.torch`.

Arrays: gradients, trajectories and tuned parameters are NumPy arrays that own the memory
simgrad filled (no copy; they stay valid after the scenario is gone). Parameters going in are
copied once into the model.
"""
from __future__ import annotations

import dataclasses
import html
import json
import os
import statistics
import time
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

import numpy as np

from . import _simgrad
from ._simgrad import NonFiniteError, ScenarioError

__version__ = _simgrad.__version__
__all__ = [
    "load", "Scenario", "Parameter", "Gradient", "GradCheck", "Trajectory", "TuneResult", "Comparison",
    "ScenarioError", "NonFiniteError", "random_assembly_plan", "__version__",
]

ArrayLike = Union[np.ndarray, Sequence[float]]


@dataclasses.dataclass(frozen=True)
class Parameter:
    """A tuned parameter: `size` components from `offset` in the flat parameter vector."""
    name: str
    unit: str
    lower: float
    upper: float
    transform: str  # identity | log | logit: the coordinates the optimizers move
    offset: int
    size: int
    initial: np.ndarray


@dataclasses.dataclass(frozen=True)
class Gradient:
    """The loss and its gradient with respect to every parameter component."""
    loss: float
    gradient: np.ndarray
    parameters: tuple[Parameter, ...]

    def by_name(self) -> dict[str, Union[float, np.ndarray]]:
        """The gradient split by parameter: a float for a scalar one, a view for a vector one."""
        return _split(self.gradient, self.parameters)


@dataclasses.dataclass(frozen=True)
class GradCheckEntry:
    label: str
    analytic: float
    numeric: float
    rel_error: float
    ok: bool


@dataclasses.dataclass(frozen=True)
class GradCheck:
    """The gradient against central differences, one entry per component or direction."""
    passed: bool
    checks: tuple[GradCheckEntry, ...]

    def __bool__(self) -> bool:
        return self.passed


@dataclasses.dataclass(frozen=True)
class Trajectory:
    """States of one forward run: states[k] is the state after steps[k] steps."""
    loss: float
    steps: np.ndarray   # int, ascending, ending at the scenario's step count
    states: np.ndarray  # (len(steps), state_size)


@dataclasses.dataclass
class TuneResult:
    """A tuning run: the best parameters found, and the loss after each iteration."""
    x: np.ndarray
    loss: float
    initial_loss: float
    iterations: int
    rollouts: int
    gradient_evaluations: int
    wall_s: float
    stop_reason: str
    reached_target: bool
    history: np.ndarray  # rows (iteration, rollouts, loss, best_loss, wall_s)
    parameters: tuple[Parameter, ...]
    non_finite_rollouts: int = 0
    _scenario: Optional["Scenario"] = dataclasses.field(default=None, repr=False)
    _x0: Optional[np.ndarray] = dataclasses.field(default=None, repr=False)

    def by_name(self) -> dict[str, Union[float, np.ndarray]]:
        return _split(self.x, self.parameters)

    def report_html(self) -> str:
        """report.html of this run (plots and the animation before and after), as text."""
        if self._scenario is None:
            raise ValueError("this result no longer has its scenario")
        return self._scenario._core.report_html(self._x0, self.x, self.initial_loss)

    def _repr_html_(self) -> str:
        return _iframe(self.report_html())


@dataclasses.dataclass
class Comparison:
    """The gradient method against CMA-ES and random search, each to the same target loss."""
    table: dict
    html: str = dataclasses.field(repr=False)

    def _repr_html_(self) -> str:
        return _iframe(self.html)


class Scenario:
    """A loaded scenario: a simulator, its loss and the parameters being tuned.

    `Scenario(spec)` takes a scenario as a dict (or its JSON text); `simgrad.load(path)` reads a
    file. Paths inside a dict (data files, meshes) are relative to `base_dir` (default: the
    working directory). `checkpoint` overrides the file's policy ("all", "binomial:32", ...).
    """

    def __init__(self, spec: Union[Mapping[str, Any], str], *, name: str = "<python>",
                 base_dir: Optional[Union[str, os.PathLike]] = None, checkpoint: Optional[str] = None,
                 threads: int = 0, _core: Optional[_simgrad.Scenario] = None):
        if _core is None:
            text = spec if isinstance(spec, str) else json.dumps(spec)
            # Relative paths in the scenario are read against the folder its name sits in.
            label = name if base_dir is None else os.path.join(os.fspath(base_dir), name)
            _core = _simgrad.Scenario.load_text(text, label, checkpoint)
        self._core = _core
        self._core.threads = threads
        self._parameters = tuple(Parameter(*p) for p in self._core.parameters())

    # -- what it is
    @property
    def simulator(self) -> str:
        return self._core.simulator

    @property
    def name(self) -> str:
        return self._core.name

    @property
    def description(self) -> str:
        return self._core.description

    @property
    def steps(self) -> int:
        return self._core.steps

    @property
    def state_size(self) -> int:
        return self._core.state_size

    @property
    def threads(self) -> int:
        """Threads each call uses (0: all cores). Results are the same bits for every count."""
        return self._core.threads

    @threads.setter
    def threads(self, value: int) -> None:
        self._core.threads = value

    @property
    def parameters(self) -> tuple[Parameter, ...]:
        return self._parameters

    @property
    def size(self) -> int:
        """The number of parameter components (the length of `x`)."""
        return sum(p.size for p in self._parameters)

    @property
    def tune_options(self) -> dict:
        """The scenario's "tune" section: optimizer, iterations, learning_rate, ..."""
        return self._core.tune_options

    # -- parameters
    @property
    def x(self) -> np.ndarray:
        """The current parameters, flat, in physical units (a copy)."""
        return self._core.get_x()

    @x.setter
    def x(self, values: ArrayLike) -> None:
        self._core.set_x(np.asarray(values, dtype=np.float64))

    def __getitem__(self, name: str) -> Union[float, np.ndarray]:
        return _split(self.x, (self._parameter(name),))[name]

    def __setitem__(self, name: str, value: Union[float, ArrayLike]) -> None:
        p = self._parameter(name)
        x = self.x
        values = np.asarray(value, dtype=np.float64).reshape(-1)
        if values.size != p.size:
            raise ValueError(f"{name} has {p.size} components, {values.size} given")
        x[p.offset:p.offset + p.size] = values
        self.x = x

    # -- the commands
    def run(self, x: Optional[ArrayLike] = None) -> float:
        """The loss of one forward run (at x, else at the current parameters)."""
        return self._core.run(_array(x))

    def hard_loss(self, x: Optional[ArrayLike] = None) -> float:
        """The loss with every relaxation at its hard twin (hard contact, sampled infections)."""
        return self._core.hard_loss(_array(x))

    def grad(self, x: Optional[ArrayLike] = None) -> Gradient:
        """The loss and its exact gradient: one forward and one backward run."""
        loss, gradient = self._core.grad(_array(x))
        return Gradient(loss, gradient, self._parameters)

    def adjoint_norms(self) -> np.ndarray:
        """||dL/ds_t|| per step of the last gradient: how far the gradient reaches back."""
        return np.asarray(self._core.adjoint_norms())

    def gradcheck(self, x: Optional[ArrayLike] = None, *, step: float = 0.0, rtol: float = 0.0,
                  atol: float = 0.0, directions: int = 0) -> GradCheck:
        """The gradient against central differences (zeros keep simgrad's defaults)."""
        passed, checks = self._core.gradcheck(_array(x), step, rtol, atol, directions)
        return GradCheck(passed, tuple(GradCheckEntry(*c) for c in checks))

    def trajectory(self, x: Optional[ArrayLike] = None, every: int = 1) -> Trajectory:
        """Every `every`-th state (and the last) of one forward run, for plots."""
        loss, steps, states = self._core.trajectory(_array(x), every)
        return Trajectory(loss, steps, states)

    def summary(self) -> dict:
        """The simulator's figures of the model after the last run (as `run --json` prints)."""
        return json.loads(self._core.summary())

    def explain(self, x: Optional[ArrayLike] = None, hints: int = 0) -> dict:
        """Design hints (which change most improves the score), for simulators that give them."""
        return json.loads(self._core.explain(_array(x), hints))

    def export(self, path: Union[str, os.PathLike], x: Optional[ArrayLike] = None) -> int:
        """Writes the run as glTF (.gltf/.glb) or VTK (.pvd, .vtu, .vti); returns the frames."""
        return self._core.export(os.fspath(path), _array(x))

    def tuning(self, *, optimizer: Optional[str] = None, iterations: int = 0,
               learning_rate: Optional[float] = None, target_loss: Optional[float] = None,
               x0: Optional[ArrayLike] = None) -> "Tuning":
        """A tuning run to drive one iteration at a time (see Tuning); tune() runs it whole."""
        return Tuning(self, optimizer=optimizer, iterations=iterations, learning_rate=learning_rate,
                      target_loss=target_loss, x0=x0)

    def tune(self, *, optimizer: Optional[str] = None, iterations: int = 0,
             learning_rate: Optional[float] = None, target_loss: Optional[float] = None,
             x0: Optional[ArrayLike] = None,
             callback: Optional[Callable[[int, float, float], Optional[bool]]] = None,
             out: Optional[Union[str, os.PathLike]] = None) -> TuneResult:
        """Tunes the parameters by gradient descent from x0 (default: the current parameters).

        callback(iteration, loss, best_loss) is called after each iteration; returning False
        stops the run. Ctrl-C stops it between iterations and raises KeyboardInterrupt; with
        `out`, the folder (result.json, loss.svg, report.html) is written first, complete, with
        stop reason "interrupted". The scenario's parameters are left unchanged: assign
        `scenario.x = result.x` to keep the tuned ones.
        """
        return self.tuning(optimizer=optimizer, iterations=iterations, learning_rate=learning_rate,
                           target_loss=target_loss, x0=x0).run(callback=callback, out=out)

    def compare(self, *, target: Optional[float] = None, budget: int = 0,
                out: Optional[Union[str, os.PathLike]] = None) -> Comparison:
        """The gradient method against CMA-ES and random search (as `simgrad compare`)."""
        table, page = self._core.compare(target, budget, None if out is None else os.fspath(out))
        return Comparison(json.loads(table), page)

    def bench(self, repeats: int = 5) -> dict:
        """Medians of `repeats` forward runs and gradients, in wall seconds, and their ratio."""
        forward, gradient = [], []
        for _ in range(repeats):
            start = time.perf_counter()
            self.run()
            forward.append(time.perf_counter() - start)
            start = time.perf_counter()
            self.grad()
            gradient.append(time.perf_counter() - start)
        f, g = statistics.median(forward), statistics.median(gradient)
        return {"forward_s": f, "gradient_s": g, "gradient_over_forward": g / f, "repeats": repeats,
                "threads": self.threads, "steps": self.steps}

    def _parameter(self, name: str) -> Parameter:
        for p in self._parameters:
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self._parameters)
        raise KeyError(f'no parameter "{name}" (the scenario tunes: {known})')

    def __repr__(self) -> str:
        names = ", ".join(p.name for p in self._parameters)
        return f"<simgrad.Scenario {self.name!r}: {self.simulator}, {self.steps} steps, tunes {names}>"


class Tuning:
    """A tuning run driven from Python: step(), then save, plot or stop between iterations."""

    def __init__(self, scenario: Scenario, *, optimizer: Optional[str] = None, iterations: int = 0,
                 learning_rate: Optional[float] = None, target_loss: Optional[float] = None,
                 x0: Optional[ArrayLike] = None):
        self.scenario = scenario
        self._run = _simgrad.TuningRun(scenario._core, optimizer, iterations, learning_rate, target_loss, _array(x0))

    @property
    def finished(self) -> bool:
        return self._run.finished

    def step(self) -> tuple[int, int, float, float, float]:
        """One iteration: (iteration, rollouts so far, loss, best loss, wall seconds)."""
        return self._run.iterate()

    def stop(self, reason: str = "stopped") -> None:
        self._run.stop(reason)

    def save(self) -> bytes:
        """The optimizer's whole state; Tuning.load() on a run built the same way resumes it."""
        return self._run.save()

    def load(self, state: bytes, initial_loss: float) -> None:
        self._run.load(state, initial_loss)

    def run(self, callback=None, out=None) -> TuneResult:
        """Iterates to the end (see Scenario.tune)."""
        initial_loss = self._run.initial_loss()
        try:
            while not self._run.finished:
                iteration, _, loss, best, _ = self._run.iterate()
                if callback is not None and callback(iteration, loss, best) is False:
                    self._run.stop("stopped by the callback")
        except KeyboardInterrupt:
            self._run.stop("interrupted")
            if out is not None:
                self.write(out)
            raise
        if out is not None:
            self.write(out)
        return self.result(initial_loss)

    def result(self, initial_loss: Optional[float] = None) -> TuneResult:
        loss, iterations, rollouts, gradients, wall_s, reason, reached, history = self._run.result()
        return TuneResult(
            x=self._run.best_parameters(), loss=loss,
            initial_loss=self._run.initial_loss() if initial_loss is None else initial_loss,
            # The initial loss's rollout counts, as in `simgrad tune`'s result.json.
            iterations=iterations, rollouts=rollouts + 1, gradient_evaluations=gradients, wall_s=wall_s,
            stop_reason=reason, reached_target=reached,
            history=np.array(history, dtype=np.float64).reshape(-1, 5),
            parameters=self.scenario.parameters, non_finite_rollouts=self._run.non_finite_rollouts,
            _scenario=self.scenario, _x0=self._run.initial_parameters())

    def write(self, folder: Union[str, os.PathLike], exports: Iterable[Union[str, os.PathLike]] = ()) -> dict:
        """tune's folder: result.json (returned), loss.svg, report.html, each file written whole."""
        return json.loads(self._run.write(os.fspath(folder), [os.fspath(e) for e in exports]))


def load(path: Union[str, os.PathLike], *, checkpoint: Optional[str] = None, threads: int = 0) -> Scenario:
    """Loads a scenario file (an empty path: the built-in default scenario)."""
    core = _simgrad.Scenario.load_file(os.fspath(path), checkpoint)
    return Scenario({}, _core=core, threads=threads)


def random_assembly_plan(seed: int) -> list[str]:
    """A random valid machine (sims/assembly/generator.hpp) as plan lines for a rigid scenario's
    "model": {"plan": ...}; the same seed gives the same machine everywhere."""
    return _simgrad.random_assembly_plan(seed).splitlines()


def _array(x: Optional[ArrayLike]) -> Optional[np.ndarray]:
    return None if x is None else np.ascontiguousarray(x, dtype=np.float64)


def _split(values: np.ndarray, parameters: Iterable[Parameter]) -> dict[str, Union[float, np.ndarray]]:
    out: dict[str, Union[float, np.ndarray]] = {}
    for p in parameters:
        part = values[p.offset:p.offset + p.size]
        out[p.name] = float(part[0]) if p.size == 1 else part
    return out


def _iframe(page: str) -> str:
    return ('<iframe style="width:100%;height:720px;border:0" sandbox="allow-scripts" srcdoc="'
            + html.escape(page, quote=True) + '"></iframe>')
