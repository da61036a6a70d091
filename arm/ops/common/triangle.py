"""tril and triu: the elements on one side of a diagonal of the last two dims set to 0 (arm/ops/common/masked_fill.py).

Kept whole through to_edge, which would build the mask from arange, comparisons and a where at run
time; here it is a compile-time constant, so every target (the U55 included) runs the op.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.masked_fill import fill_masked
from arm.ops.common.op_test_case import OpTestCase
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

# (rows, columns, diagonal) -> the elements to zero.
Zeroed = Callable[[int, int, int], np.ndarray]


def triangle_op(
    name: str,
    zeroed: Zeroed,
    *,
    edge_target: object,
    aten_target: torch._ops.OpOverload,
    test_cases: dict[str, OpTestCase],
) -> ArmOp:
    def support(node: Node, spec: TosaSpecification) -> str | None:
        x = node.args[0]
        return first_reason(
            None if len(shape_of(x)) >= 2 else f"{describe(node)}: {name} needs at least 2 dims",
            profile_reason(node, spec, [x]),
            rank_reason(node, shape_of(x)),
        )

    def annotate(node: Node, config: QuantizationConfig) -> None:
        shared_with_input(node, node.args[0], config.activation)

    def lower(node: Node, ctx: LoweringContext) -> TosaValue:
        x = node.args[0]
        diagonal = node.args[1] if len(node.args) > 1 else node.kwargs.get("diagonal", 0)
        rows, columns = shape_of(x)[-2:]
        return fill_masked(ctx, node, x, zeroed(rows, columns, diagonal), 0.0, name=node.name)

    return ArmOp(
        name=name,
        edge_targets=(edge_target,),
        aten_targets=(aten_target,),
        support=support,
        annotate=annotate,
        lower=lower,
        test_cases=test_cases,
        keep_in_edge=(aten_target,),
    )


def above(rows: int, columns: int, diagonal: int) -> np.ndarray:
    """True above the diagonal (column - row > diagonal): what tril zeroes."""
    return np.subtract.outer(np.arange(rows), np.arange(columns)) < -diagonal


def below(rows: int, columns: int, diagonal: int) -> np.ndarray:
    """True below the diagonal (column - row < diagonal): what triu zeroes."""
    return np.subtract.outer(np.arange(rows), np.arange(columns)) > -diagonal
