"""Test inputs whose averages land exactly on half steps of their int8 grid (op cases of mean and pools).

A tie's side is a rounding convention (torch rounds half to even, TOSA's RESCALE half up), so a case
that checks it must make the quantized torch model meet ties exactly, with no float32 noise deciding
them: the values are multiples of 1/16 spanning exactly 255 steps, so the observer's scale is 1/16
(MinMax: no tail is clipped in a tensor this small) and every sum and mean of them is exact in
float32. ``zero_point`` -1 (odd) or 0 (even) moves the span by a step; the lowering's exact form
treats the two parities apart (common/ties_to_even.py).
"""

from __future__ import annotations

import math
from typing import Sequence

import torch

STEP = 1.0 / 16
_CODES = (-128, 127)


def half_step_averages(seed: int, shape: Sequence[int], dims: Sequence[int], *, zero_point: int) -> torch.Tensor:
    """A float tensor of ``shape`` on a grid of step 1/16 with ``zero_point``, whose averages over
    ``dims`` sit at half steps, three in every four (with random lower neighbours: even and odd,
    positive and negative), the rest anywhere; it holds both extreme codes."""
    generator = torch.Generator().manual_seed(seed)
    low, high = _CODES
    dims = sorted(dim % len(shape) for dim in dims)
    moved = torch.randint(low, high + 1, tuple(shape), generator=generator).movedim(dims, list(range(-len(dims), 0)))
    groups = moved.reshape(-1, math.prod(shape[dim] for dim in dims))
    count = groups.shape[1]
    if count < 4 or count % 2:
        raise ValueError(f"half steps need an even count of at least 4 averaged values, got {count}")
    groups[0, 0], groups[0, 1] = low, high  # the extremes fix the observer's range: 255 steps of 1/16
    for index, group in enumerate(groups):
        if index % 4 != 3:  # every fourth average stays where its random codes put it
            _land_on_half_step(group, count, generator)
    codes = groups.reshape(moved.shape).movedim(list(range(-len(dims), 0)), dims)
    return (codes - zero_point).to(torch.float32) * STEP


def _land_on_half_step(group: torch.Tensor, count: int, generator: torch.Generator) -> None:
    """Changes the group's last code so that its sum is an odd multiple of count / 2 (a half step)."""
    low, high = _CODES
    others = int(group[:-1].sum())
    wanted = torch.randint(low, high + 1, (), generator=generator).item()
    # The codes c with (others + c) = count / 2 (mod count), nearest to a random one.
    first = low + (count // 2 - others - low) % count
    candidates = range(first, high + 1, count)
    group[-1] = min(candidates, key=lambda code: abs(code - wanted))


def half_step_windows(
    seed: int, channels: int, windows: int, kernel: tuple[int, int], *, zero_point: int
) -> torch.Tensor:
    """A [1, channels, kh, windows * kw] input whose ``windows`` side-by-side pooling windows of ``kernel``
    (stride = kernel) average as ``half_step_averages``' do."""
    height, width = kernel
    groups = half_step_averages(seed, (1, channels * windows, height, width), [2, 3], zero_point=zero_point)
    laid_out = groups.reshape(1, channels, windows, height, width).permute(0, 1, 3, 2, 4)
    return laid_out.reshape(1, channels, height, windows * width)
