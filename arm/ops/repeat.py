"""aten.repeat (``x.repeat(2, 1, 3)``) -> TOSA TILE; extra leading repeats add leading axes first.

INT: the copy keeps the input's grid.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.tile import annotate_tile, lower_tile, tile_support
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    return lower_tile(node, ctx, [int(count) for count in node.args[1]])


def twice_by_three(x: torch.Tensor) -> torch.Tensor:
    return x.repeat(2, 3)


def with_new_axis(x: torch.Tensor) -> torch.Tensor:
    return x.repeat(2, 1, 1, 2)


def key_heads(x: torch.Tensor) -> torch.Tensor:
    return x.repeat(1, 3, 1, 1) - 0.5


TEST_CASES = {
    "2d": OpTestCase(FunctionModule(twice_by_three), random_inputs(0, (4, 5))),
    "new_axis": OpTestCase(FunctionModule(with_new_axis), random_inputs(1, (3, 4, 6))),
    "heads": OpTestCase(FunctionModule(key_heads), random_inputs(2, (1, 2, 5, 8))),
}

OP = ArmOp(
    name="repeat",
    edge_targets=(exir_ops.edge.aten.repeat.default,),
    aten_targets=(torch.ops.aten.repeat.default,),
    support=tile_support,
    annotate=annotate_tile,
    lower=lower,
    test_cases=TEST_CASES,
)
