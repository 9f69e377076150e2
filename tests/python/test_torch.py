"""The PyTorch bridge: torch.autograd.gradcheck passes on a rollout; the loss and gradient are
simgrad's own bits; batches give one loss per row; a network trains through a simulation."""
import numpy as np
import pytest
import torch

import simgrad
import simgrad.torch as st
from conftest import example


def test_gradcheck_passes_through_a_rollout(mass_spring):
    x = torch.tensor(mass_spring.x, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda v: st.rollout_loss(mass_spring, v), (x,), eps=1e-6, atol=1e-7, rtol=1e-4)


def test_loss_and_gradient_are_simgrads_bits(mass_spring):
    expected = mass_spring.grad()
    x = torch.tensor(mass_spring.x, dtype=torch.float64, requires_grad=True)
    loss = st.Simulation(mass_spring)(x)
    loss.backward()
    assert loss.item() == expected.loss
    assert x.grad.tolist() == expected.gradient.tolist()


def test_a_batch_gives_one_loss_per_row(mass_spring):
    rows = torch.tensor([[0.1, 0.1, 0.15], [0.5, 0.5, 0.6], [0.8, 0.8, 0.6]], dtype=torch.float64, requires_grad=True)
    losses = st.rollout_loss(mass_spring, rows)
    assert losses.shape == (3,)
    (losses * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    for b in range(3):
        assert losses[b].item() == mass_spring.run(rows[b].detach().numpy())
        expected = mass_spring.grad(rows[b].detach().numpy()).gradient * (b + 1)
        assert rows.grad[b].tolist() == expected.tolist()


def test_named_parameters_and_no_gradient_when_none_is_needed(mass_spring):
    simulation = st.Simulation(mass_spring)
    rest = torch.tensor([0.5, 0.5, 0.6], dtype=torch.float64, requires_grad=True)
    loss = simulation(rest_length=rest)
    loss.backward()
    assert rest.grad.tolist() == mass_spring.grad([0.5, 0.5, 0.6]).gradient.tolist()
    with torch.no_grad():
        assert simulation(rest_length=rest).item() == loss.item()
    with pytest.raises(KeyError, match="stiffness"):
        simulation(stiffness=torch.tensor([1.0]))
    with pytest.raises(ValueError, match="components"):
        simulation(torch.zeros(2, dtype=torch.float64))


def test_a_network_trains_through_the_simulation(mass_spring):
    """A small network maps a fixed input to the rest lengths; Adam on its weights drives
    the simulated loss down by gradients that cross 1024 steps."""
    torch.manual_seed(0)
    network = torch.nn.Sequential(torch.nn.Linear(2, 8), torch.nn.Tanh(), torch.nn.Linear(8, 3)).double()
    features = torch.tensor([1.0, -1.0], dtype=torch.float64)
    simulation = st.Simulation(mass_spring)
    optimizer = torch.optim.Adam(network.parameters(), lr=0.05)
    losses = []
    for _ in range(30):
        optimizer.zero_grad()
        rest_length = 0.2 + 0.8 * torch.sigmoid(network(features))  # inside the bounds
        loss = simulation(rest_length=rest_length)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    assert losses[-1] < 0.05 * losses[0]
