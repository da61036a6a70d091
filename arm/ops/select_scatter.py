"""aten.select_scatter(x, src, dim, index) (``x[:, i] = src``) -> SLICE, SLICE, CONCAT of x around row i and src
(arm/ops/common/slice_write.py).

Kept whole through to_edge: its decomposition (arange == i, then where) needs SELECT, which the
U55 lacks, and costs a comparison and a select where two slices and a concat are data movement.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.slice_write import annotate_block_write, block_write_support, write_block
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    return block_write_support(node, spec)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, _, dim, index = node.args[:4]
    shape = shape_of(x)
    dim %= len(shape)
    index %= shape[dim]
    return write_block(ctx, node, dim, index, index + 1)


def second_channel(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    return torch.select_scatter(x, src, 1, 2)


def last_row(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    return torch.select_scatter(x, src, 0, -1)


def only_row(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    return torch.select_scatter(x, src, 0, 0)


TEST_CASES = {
    "channel": OpTestCase(
        FunctionModule(second_channel), (random_inputs(0, (1, 4, 5, 6))[0], 2.0 * random_inputs(1, (1, 5, 6))[0])
    ),
    # x[-1] = src, in place, is arm/ops/copy_.py's case: copy, then this op.
    "last_row": OpTestCase(FunctionModule(last_row), random_inputs(2, (5, 8), (8,))),
    # x has one row, so the result is src and no operator reads x: Vela leaves that input out of its
    # command stream, and the delegate blob must still list it (arm/ethosu/delegate_io.py).
    "only_row": OpTestCase(FunctionModule(only_row), random_inputs(3, (1, 2, 4), (2, 4))),
}

OP = ArmOp(
    name="select_scatter",
    edge_targets=(exir_ops.edge.aten.select_scatter.default,),
    aten_targets=(torch.ops.aten.select_scatter.default,),
    support=support,
    annotate=annotate_block_write,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.select_scatter.default,),
)
