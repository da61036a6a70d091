"""aten.roll (``torch.roll(x, shifts, dims)``, Swin's shifted windows) -> two slices and a cat per rolled dim.

to_edge writes a roll as an index_select by ``(arange(n) - shift) % n``: a GATHER, which the U55 does not
have and Vela 5.2.0 leaves on the CPU for the U85, and in INT an operator nobody annotated, so each roll
ran float on the CPU and cut the graph (swin_tiny_w2: 20 index_selects, 11 partitions). Before
annotation (``decompose_for_quantization``) each rolled dim becomes
``cat([x[..., n - s:], x[..., :n - s]], dim)``: SLICE, SLICE, CONCAT on x's own grid, which every target
runs. A roll without dims (of the flattened tensor) is a reshape to one dim, that roll, and a reshape
back. FP: to_edge's index_select is lowered by index_select.py (its index folds to a constant).
"""

from __future__ import annotations

import torch
from torch.fx import Node

from arm.ops.common.arm_op import decomposed_op
from arm.ops.common.aten_rewrite import AtenBuilder, shape
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def _as_list(value: int | list[int] | tuple[int, ...]) -> list[int]:
    return [value] if isinstance(value, int) else list(value)


def _arguments(node: Node) -> tuple[list[int], list[int]]:
    """(shifts, dims) as given; dims is empty for a roll of the flattened tensor."""
    shifts = node.args[1] if len(node.args) > 1 else node.kwargs["shifts"]
    dims = node.args[2] if len(node.args) > 2 else node.kwargs.get("dims", [])
    return _as_list(shifts), _as_list(dims)


def _roll_one_dim(build: AtenBuilder, x: Node, shift: int, dim: int) -> Node:
    extent = shape(x)[dim]
    cut = extent - shift % extent
    if cut == extent:
        return x  # a whole turn
    aten = torch.ops.aten
    tail = build.call(aten.slice.Tensor, x, dim, cut, extent)
    head = build.call(aten.slice.Tensor, x, dim, 0, cut)
    return build.call(aten.cat.default, [tail, head], dim)


def decompose(node: Node) -> None:
    x = node.args[0]
    shifts, dims = _arguments(node)
    build = AtenBuilder(node)
    if not dims:
        if len(shifts) != 1:
            return  # torch.roll rejects this itself; leave it to raise where users see it
        flat = build.call(torch.ops.aten.view.default, x, [-1])
        rolled = _roll_one_dim(build, flat, shifts[0], 0)
        result = build.call(torch.ops.aten.view.default, rolled, list(shape(x)))
    else:
        if len(shifts) != len(dims):
            return
        rank = len(shape(x))
        result = x
        for shift, dim in zip(shifts, dims):
            result = _roll_one_dim(build, result, shift, dim % rank)
        if result is x:
            result = build.call(torch.ops.aten.clone.default, x)  # every shift a whole turn
    node.replace_all_uses_with(result)


def shifted_windows(x: torch.Tensor) -> torch.Tensor:
    # Swin's cyclic shift of an NHWC map, there and back around a mixing step.
    shifted = torch.roll(x, shifts=(-1, -1), dims=(1, 2))
    return torch.roll(shifted * 2.0, shifts=(1, 1), dims=(1, 2)) + x


def flattened(x: torch.Tensor) -> torch.Tensor:
    return torch.roll(x, 5) + 1.0


def negative_dim(x: torch.Tensor) -> torch.Tensor:
    return torch.roll(x, -3, -1)


def minus_rolled(x: torch.Tensor) -> torch.Tensor:
    return x - torch.roll(x, 2, dims=1)


TEST_CASES = {
    "shifted_windows": OpTestCase(FunctionModule(shifted_windows), random_inputs(0, (1, 4, 4, 8))),
    "flattened": OpTestCase(FunctionModule(flattened), random_inputs(1, (3, 7))),
    "negative_dim": OpTestCase(FunctionModule(negative_dim), random_inputs(2, (3, 7))),
    # The rolled CONCAT is read only by the SUB's widening, which the U55 cannot fold (x and its roll share a
    # grid): Vela 5.2.0 widens each piece into the start of the output unless the CONCAT is copied first
    # (arm/tosa/widened_window_copies.py; 21 of 21 outputs off without it).
    "minus_rolled": OpTestCase(FunctionModule(minus_rolled), random_inputs(3, (3, 7))),
}

OP = decomposed_op("roll", (torch.ops.aten.roll.default,), decompose, TEST_CASES)
