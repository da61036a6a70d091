"""aten.any (over one dim, several dims or all of them) on bool -> TOSA REDUCE_ANY per dim
(arm/ops/common/bool_reduction.py)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.bool_reduction import bool_reduction_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def row_has_large(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """Rows of x with any element above 1 are kept, the others taken from y: any between compare and SELECT."""
    return torch.where((x > 1.0).any(-1, keepdim=True), x, y)


def any_over_spatial(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where((x > 1.5).any(dim=(2, 3), keepdim=True), x, y)


def bool_in_bool_out(x: torch.Tensor) -> torch.Tensor:
    return (x > 0.5).any(1)


def vector_any(x: torch.Tensor) -> torch.Tensor:
    """A vector reduced to a 0-d bool (the peer's any_rank1_squeeze)."""
    return (x > 1.0).any(0)


def whole_any(x: torch.Tensor) -> torch.Tensor:
    return (x > 1.5).any()


# No bool reductions on the U55.
_U55 = ("u55_INT",)

TEST_CASES = {
    "rows_between_compare_and_where": OpTestCase(FunctionModule(row_has_large), random_inputs(0, (4, 6), (4, 6)), cpu_targets=_U55),
    "spatial_dims": OpTestCase(FunctionModule(any_over_spatial), random_inputs(1, (1, 3, 4, 4), (1, 3, 4, 4)), cpu_targets=_U55),
    "bool_output": OpTestCase(FunctionModule(bool_in_bool_out), random_inputs(2, (2, 5, 3)), cpu_targets=("u55_INT",)),
    # 0-d results: REDUCE_ANY, then a RESHAPE to [].
    "vector_to_0d": OpTestCase(FunctionModule(vector_any), random_inputs(3, (7,)), cpu_targets=_U55),
    "all_dims_to_0d": OpTestCase(FunctionModule(whole_any), random_inputs(4, (2, 3, 4)), cpu_targets=_U55),
}

OP = bool_reduction_op(
    "any",
    ts.Op.REDUCE_ANY,
    edge_targets=(exir_ops.edge.aten.any.dim, exir_ops.edge.aten.any.dims, exir_ops.edge.aten.any.default),
    aten_targets=(torch.ops.aten.any.dim, torch.ops.aten.any.dims, torch.ops.aten.any.default),
    test_cases=TEST_CASES,
)
