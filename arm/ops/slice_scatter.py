"""aten.slice_scatter(x, src, dim, start, end, step) with step 1 -> SLICE, SLICE, CONCAT (arm/ops/common/slice_write.py).

A step above 1 writes every step-th row: each group of ``step`` rows becomes src's row CONCATenated
with the group's other rows (RESHAPE, SLICE, CONCAT: arm/ops/common/strided.py), on every target.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.integer_arithmetic import is_integer_arithmetic
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.slice_write import annotate_block_write, block_write_support, write_block
from arm.ops.common.strided import as_rows, strided_rows, write_strided
from arm.ops.common.support import describe, first_reason
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
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
    dim, start, end, step = block(node)
    empty = strided_rows(shape_of(node.args[0]), dim, start, end, step).count == 0
    return first_reason(
        f"{describe(node)}: writes no row (the slice is empty); it is x itself" if empty else None,
        block_write_support(node, spec),
    )


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    dim, start, end, step = block(node)
    if step == 1:
        return write_block(ctx, node, dim, start, end)
    x, src = node.args[:2]
    base, new = ctx.value(x), ctx.value(src)
    if ctx.spec.is_int and not is_integer_arithmetic(node):
        output = ctx.output_qparams(node)
        base = requantize(ctx.graph, base, name=f"{node.name}_base_rescaled", output=output)
        new = requantize(ctx.graph, new, name=f"{node.name}_src_rescaled", output=output)
    where = strided_rows(base.shape, dim, start, end, step)
    rows = as_rows(ctx, base, dim, name=f"{node.name}_rows")
    new_rows = reshape(ctx.graph, new, (rows.shape[0], where.count, rows.shape[2]), name=f"{node.name}_src_rows")
    written = write_strided(ctx, rows, new_rows, where, name=f"{node.name}_written")
    return reshape(ctx.graph, written, shape_of(node), name=node.name)


def middle_rows(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    return torch.slice_scatter(x, src, dim=1, start=1, end=4)


def tail(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    return torch.slice_scatter(x, src, dim=-1, start=-3)


def every_other(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    return torch.slice_scatter(x, src, dim=0, start=0, end=6, step=2)


def every_third_from_one(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    return torch.slice_scatter(x, src, dim=2, start=1, step=3)


TEST_CASES = {
    # src's range is twice x's: the shared grid must hold both.
    "middle_rows": OpTestCase(
        FunctionModule(middle_rows), (random_inputs(0, (2, 6, 8))[0], 2.0 * random_inputs(1, (2, 3, 8))[0])
    ),
    "tail_negative_start": OpTestCase(FunctionModule(tail), random_inputs(2, (1, 4, 4, 8), (1, 4, 4, 3))),
    "step_2": OpTestCase(FunctionModule(every_other), random_inputs(3, (6, 4), (3, 4))),
    # Columns 1, 4, 7 of 8 along dim 2 of a rank-4 tensor: two whole groups of 3, a last column of its own.
    "step_3_partial_group": OpTestCase(FunctionModule(every_third_from_one), random_inputs(4, (1, 2, 8, 3), (1, 2, 3, 3))),
    # int8 data, not quantized (the peer's int8 cases): SLICE and CONCAT move it as it is; the FP
    # profile moves no integers.
    "int8_data": OpTestCase(
        FunctionModule(middle_rows),
        tuple(
            torch.randint(-128, 128, shape, generator=torch.Generator().manual_seed(5), dtype=torch.int8)
            for shape in ((1, 6, 3), (1, 3, 3))
        ),
        targets=("tosa_INT", "u55_INT", "u85_INT"),  # the FP profile moves no integers
    ),
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
