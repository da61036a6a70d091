"""aten.slice_scatter(x, src, dim, start, end, step) with step 1 -> SLICE, SLICE, CONCAT (arm/ops/common/slice_write.py).

A step above 1 writes every step-th row, which no TOSA data-movement operator does: it stays on the CPU.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.slice_write import annotate_block_write, block_write_support, write_block
from arm.ops.common.support import describe, first_reason
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

_DEFAULTS = (0, None, None, 1)  # dim, start, end, step


def block(node: Node) -> tuple[int, int, int, int]:
    """(dim, start, end, step), normalized as Python slicing does."""
    dim, start, end, step = (*node.args[2:], *_DEFAULTS[len(node.args) - 2 :])
    shape = shape_of(node.args[0])
    dim %= len(shape)
    start, end, _ = slice(start, end).indices(shape[dim])
    return dim, start, max(end, start), step


def support(node: Node, spec: TosaSpecification) -> str | None:
    step = block(node)[3]
    return first_reason(
        f"{describe(node)}: step {step} writes every {step}th row; only step 1 is lowered" if step != 1 else None,
        block_write_support(node, spec),
    )


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    dim, start, end, _ = block(node)
    return write_block(ctx, node, dim, start, end)


def middle_rows(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    return torch.slice_scatter(x, src, dim=1, start=1, end=4)


def tail(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    return torch.slice_scatter(x, src, dim=-1, start=-3)


def every_other(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    return torch.slice_scatter(x, src, dim=0, start=0, end=6, step=2)


_EVERY_TARGET = ("tosa_FP", "tosa_INT", "u55_INT", "u85_INT", "vgf_FP", "vgf_INT")

TEST_CASES = {
    # src's range is twice x's: the shared grid must hold both.
    "middle_rows": OpTestCase(
        FunctionModule(middle_rows), (random_inputs(0, (2, 6, 8))[0], 2.0 * random_inputs(1, (2, 3, 8))[0])
    ),
    "tail_negative_start": OpTestCase(FunctionModule(tail), random_inputs(2, (1, 4, 4, 8), (1, 4, 4, 3))),
    "step_2": OpTestCase(FunctionModule(every_other), random_inputs(3, (6, 4), (3, 4)), cpu_targets=_EVERY_TARGET),
}

OP = ArmOp(
    name="slice_scatter",
    edge_targets=(exir_ops.edge.aten.slice_scatter.default,),
    aten_targets=(torch.ops.aten.slice_scatter.default,),
    support=support,
    annotate=annotate_block_write,
    lower=lower,
    test_cases=TEST_CASES,
)
