"""aten.repeat_interleave.self_int (``x.repeat_interleave(3, dim=1)``): each row repeated in place.

Before annotation (``decompose_for_quantization``) it becomes what to_edge would make of it, spelled
out as ATen calls that the quantizer annotates one by one: ``unsqueeze(x, dim + 1)``, ``expand`` of the
new axis to the repeat count, and ``reshape`` folding it into ``dim``. Each is a copy on x's grid,
lowered by its own op file (unsqueeze and view: RESHAPE; expand: TILE). Left whole, to_edge made those
nodes after quantization, unannotated, and the INT profile kept them on the CPU (the peer's
interleave_int_3_x_1). In FP, to_edge's own decomposition is lowered by the same files, so no edge
operator is left to lower here. Repeats given as a tensor, or no dim (a flattened result), stay whole.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from arm.ops.common.arm_op import decomposed_op
from arm.ops.common.aten_rewrite import AtenBuilder, shape
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

_SELF_INT = torch.ops.aten.repeat_interleave.self_int


def decompose(node: Node) -> None:
    x, repeats = node.args[:2]
    dim = node.args[2] if len(node.args) > 2 else node.kwargs.get("dim")
    if dim is None or not isinstance(repeats, int) or node.kwargs.get("output_size") is not None:
        return  # flattened or tensor-counted repeats: left to to_edge
    sizes = list(shape(x))
    dim = dim % len(sizes)
    build = AtenBuilder(node)
    new_axis = build.call(torch.ops.aten.unsqueeze.default, x, dim + 1)
    repeated = build.call(
        torch.ops.aten.expand.default, new_axis, [*sizes[: dim + 1], repeats, *sizes[dim + 1 :]]
    )
    merged = build.call(
        torch.ops.aten.reshape.default, repeated, [*sizes[:dim], sizes[dim] * repeats, *sizes[dim + 1 :]]
    )
    node.replace_all_uses_with(merged)


def columns_three_times(x: torch.Tensor) -> torch.Tensor:
    return x.repeat_interleave(3, 1)


def heads_twice(x: torch.Tensor) -> torch.Tensor:
    """Grouped-query attention's key heads, repeated per query head (the last dim given as -3)."""
    return x.repeat_interleave(2, dim=-3) * 0.5


TEST_CASES = {
    # The peer's interleave_int_3_x_1.
    "dim1": OpTestCase(FunctionModule(columns_three_times), random_inputs(0, (3, 4))),
    "negative_dim": OpTestCase(FunctionModule(heads_twice), random_inputs(1, (1, 2, 3, 4))),
}

OP = decomposed_op("repeat_interleave", (_SELF_INT,), decompose, TEST_CASES)
