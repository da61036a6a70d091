"""aten.tril(x, diagonal) -> x with the elements above the diagonal zeroed by a constant mask
(arm/ops/common/triangle.py)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.triangle import above, triangle_op


def lower_triangle(x: torch.Tensor) -> torch.Tensor:
    return x.tril()


def below_first_superdiagonal(x: torch.Tensor) -> torch.Tensor:
    return torch.tril(x, 1)


TEST_CASES = {
    "square_batched": OpTestCase(FunctionModule(lower_triangle), random_inputs(0, (2, 6, 6))),
    "wide_diagonal_1": OpTestCase(FunctionModule(below_first_superdiagonal), random_inputs(1, (4, 7))),
}

OP = triangle_op(
    "tril", above, edge_target=exir_ops.edge.aten.tril.default, aten_target=torch.ops.aten.tril.default, test_cases=TEST_CASES
)
