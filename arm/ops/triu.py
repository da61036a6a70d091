"""aten.triu(x, diagonal) -> x with the elements below the diagonal zeroed by a constant mask
(arm/ops/common/triangle.py)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.triangle import below, triangle_op


def upper_triangle(x: torch.Tensor) -> torch.Tensor:
    return x.triu()


def strictly_upper_tall(x: torch.Tensor) -> torch.Tensor:
    return torch.triu(x, diagonal=1)


TEST_CASES = {
    "square": OpTestCase(FunctionModule(upper_triangle), random_inputs(0, (1, 5, 5))),
    "tall_strict": OpTestCase(FunctionModule(strictly_upper_tall), random_inputs(1, (3, 7, 4))),
}

OP = triangle_op(
    "triu", below, edge_target=exir_ops.edge.aten.triu.default, aten_target=torch.ops.aten.triu.default, test_cases=TEST_CASES
)
