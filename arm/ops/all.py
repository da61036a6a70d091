"""aten.all (over one dim, several dims or all of them) on bool -> TOSA REDUCE_ALL per dim
(arm/ops/common/bool_reduction.py).

Kept whole through to_edge, which would otherwise make it not(any(not x)): three operators for one.
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.bool_reduction import bool_reduction_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def columns_above_minus_one(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where((x > -1.0).all(0, keepdim=True), x, y)


def bool_in_bool_out(x: torch.Tensor) -> torch.Tensor:
    return (x > -1.0).all(-1)


TEST_CASES = {
    "columns_between_compare_and_where": OpTestCase(
        FunctionModule(columns_above_minus_one), random_inputs(0, (5, 8), (5, 8)), cpu_targets=("u55_INT",)
    ),
    "bool_output": OpTestCase(FunctionModule(bool_in_bool_out), random_inputs(1, (3, 4)), cpu_targets=("u55_INT",)),
}

OP = bool_reduction_op(
    "all",
    ts.Op.REDUCE_ALL,
    edge_targets=(exir_ops.edge.aten.all.dim, exir_ops.edge.aten.all.dims, exir_ops.edge.aten.all.default),
    aten_targets=(torch.ops.aten.all.dim, torch.ops.aten.all.dims, torch.ops.aten.all.default),
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.all.dim, torch.ops.aten.all.dims),
)
