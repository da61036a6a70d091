"""aten.amin -> TOSA REDUCE_MIN per listed dim (arm/ops/common/extremum_reduction.py)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.extremum_reduction import extremum_reduction_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def last_dim(x: torch.Tensor) -> torch.Tensor:
    return x.amin(-1)


def height_keepdim(x: torch.Tensor) -> torch.Tensor:
    return x.amin(2, keepdim=True)


TEST_CASES = {
    # Not rank 4 in and out: the U55's command stream departs from the reference model (see the support rule).
    "rank3_last_dim": OpTestCase(FunctionModule(last_dim), random_inputs(0, (2, 6, 10)), cpu_targets=("u55_INT",)),
    "height_keepdim": OpTestCase(FunctionModule(height_keepdim), random_inputs(1, (1, 4, 7, 5))),
}

OP = extremum_reduction_op(
    "amin",
    ts.Op.REDUCE_MIN,
    edge_targets=(exir_ops.edge.aten.amin.default,),
    aten_targets=(torch.ops.aten.amin.default,),
    test_cases=TEST_CASES,
    u55_needs_rank4=True,
)
