"""simgrad.torch: a simgrad rollout as a differentiable PyTorch function.

    import torch, simgrad, simgrad.torch
    scenario = simgrad.load("examples/mass_spring_simple.json")
    simulate = simgrad.torch.Simulation(scenario)
    x = torch.tensor(scenario.x, requires_grad=True)
    loss = simulate(x)          # one forward run
    loss.backward()             # x.grad: simgrad's exact gradient (one backward run)

The forward pass runs the rollout at the parameters given (float64, physical units); when the
input needs a gradient it also runs simgrad's backward pass and keeps the result, so
`backward()` only scales it by the incoming gradient. A batch of parameter vectors, shape
(B, n), gives B losses: B rollouts of the one scenario, one after another, each on the
scenario's threads. Second derivatives are not available (the function is once differentiable).
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import torch

from . import Scenario

__all__ = ["rollout_loss", "Simulation"]


class _RolloutLoss(torch.autograd.Function):
    """loss(x) for x of shape (n,) or (B, n); its backward is simgrad's adjoint."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, scenario: Scenario) -> torch.Tensor:
        values = x.detach()
        if values.dtype != torch.float64 or values.device.type != "cpu":
            values = values.to(dtype=torch.float64, device="cpu")
        rows = values.numpy().reshape(-1, x.shape[-1])
        want_gradient = ctx.needs_input_grad[0]

        def evaluate(row):  # (loss, gradient or None): simgrad's backward pass only when needed
            return scenario._core.grad(row) if want_gradient else (scenario._core.run(row), None)

        if x.dim() == 1:  # one rollout: the common case, kept short (its overhead is per call)
            loss, gradient = evaluate(rows[0])
            if want_gradient:
                ctx.save_for_backward(_like(torch.from_numpy(gradient), x))
            return torch.tensor(loss, dtype=x.dtype, device=x.device)
        results = [evaluate(row) for row in rows]
        if want_gradient:
            gradients = np.stack([gradient for _, gradient in results]).reshape(x.shape)
            ctx.save_for_backward(_like(torch.from_numpy(gradients), x))
        losses = np.array([loss for loss, _ in results]).reshape(x.shape[:-1])
        return _like(torch.from_numpy(losses), x)

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx, grad_loss: torch.Tensor):
        (gradient,) = ctx.saved_tensors
        return grad_loss.unsqueeze(-1) * gradient, None


def _like(values: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """values (float64, on the CPU) in x's dtype and on x's device."""
    return values if x.dtype == torch.float64 and x.device.type == "cpu" else values.to(dtype=x.dtype, device=x.device)


def rollout_loss(scenario: Scenario, x: torch.Tensor) -> torch.Tensor:
    """The scenario's loss at parameters x (shape (n,) or (B, n)), differentiable in x."""
    if x.dim() == 0 or x.shape[-1] != scenario.size:
        raise ValueError(f"x has {x.shape[-1] if x.dim() else 0} components per row; the scenario tunes {scenario.size}")
    return _RolloutLoss.apply(x, scenario)


class Simulation(torch.nn.Module):
    """A scenario as a module: simulation(x) or simulation(name=tensor, ...) gives the loss.

    Named parameters not given keep the scenario's current values (as constants); each given
    one has the parameter's size, with an optional leading batch dimension shared by all.
    """

    def __init__(self, scenario: Scenario):
        super().__init__()
        self.scenario = scenario

    def forward(self, x: Optional[torch.Tensor] = None, **named: torch.Tensor) -> torch.Tensor:
        if x is not None and named:
            raise ValueError("give the flat parameter vector or named parameters, not both")
        if x is None:
            x = self.assemble(**named)
        return rollout_loss(self.scenario, x)

    def assemble(self, **named: torch.Tensor) -> torch.Tensor:
        """The flat parameter vector from named parts (differentiable in each part)."""
        known = {p.name for p in self.scenario.parameters}
        unknown = set(named) - known
        if unknown:
            raise KeyError(f"no parameter {sorted(unknown)} (the scenario tunes: {', '.join(sorted(known))})")
        batch = {tuple(v.shape[:-1]) for v in named.values() if v.dim() > 1}
        if len(batch) > 1:
            raise ValueError(f"named parameters disagree on the batch shape: {sorted(batch)}")
        batch_shape = batch.pop() if batch else ()
        current = torch.from_numpy(self.scenario.x)
        parts = []
        for p in self.scenario.parameters:
            if p.name in named:
                value = torch.as_tensor(named[p.name], dtype=torch.float64)
                part = value.reshape(value.shape[:-1] + (-1,)) if value.dim() > 1 else value.reshape(-1)
                if part.shape[-1] != p.size:
                    raise ValueError(f"{p.name} has {p.size} components, {part.shape[-1]} given")
            else:
                part = current[p.offset:p.offset + p.size]
            parts.append(part.expand(*batch_shape, p.size))
        return torch.cat(parts, dim=-1)
