"""Making random-weight models behave like trained ones where quantization can tell the difference.

A freshly initialised classifier is a poor benchmark: torchvision's BatchNorm layers start with unit
running variance while the activations they see are far smaller or larger, so after a few blocks the
logits collapse to ~1e-8 and every class ties. Re-estimating the BatchNorm statistics on the
calibration inputs (and, where the head is still too quiet, re-scaling the Linear layers) gives
activations of order one, like a trained network's, so quantization error and top-1 agreement mean
something.
"""

from __future__ import annotations

import contextlib
import math
from typing import Iterator

import torch
from torch import nn

from arm.model_spec import ModelSpec

CALIBRATION_SAMPLES = 16


def seeded_inputs(shape: tuple[int, ...], count: int = CALIBRATION_SAMPLES, seed: int = 0) -> list[tuple[torch.Tensor]]:
    """``count`` standard-normal inputs of ``shape``, the same on every machine."""
    generator = torch.Generator().manual_seed(seed)
    return [(torch.randn(shape, generator=generator),) for _ in range(count)]


@contextlib.contextmanager
def _single_threaded() -> Iterator[None]:
    # Two busy intra-op threads on a loaded 2-core machine are many times slower than one.
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(threads)


def reestimate_batch_norm(module: nn.Module, samples: list[tuple[torch.Tensor]]) -> None:
    """Sets every BatchNorm's running statistics to those of ``samples`` (one batch), then eval()."""
    norms = [m for m in module.modules() if isinstance(m, nn.modules.batchnorm._BatchNorm)]
    for norm in norms:
        norm.reset_running_stats()
        norm.momentum = None  # cumulative average: one batch sets the statistics exactly
    batch = torch.cat([inputs for (inputs,) in samples])
    module.train()
    with torch.no_grad(), _single_threaded():
        module(batch)
    module.eval()


def reinit_linear(module: nn.Module) -> None:
    """Draws every Linear weight from N(0, 1/fan_in) and zeroes its bias: unit-variance outputs."""
    for linear in (m for m in module.modules() if isinstance(m, nn.Linear)):
        nn.init.normal_(linear.weight, std=1 / math.sqrt(linear.in_features))
        if linear.bias is not None:
            nn.init.zeros_(linear.bias)


def model_spec(module: nn.Module, samples: list[tuple[torch.Tensor]]) -> ModelSpec:
    return ModelSpec(module=module.eval(), example_inputs=samples[0], calibration_inputs=samples)
