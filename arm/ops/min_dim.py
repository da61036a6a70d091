"""aten.min.dim (``x.min(dim).values``) -> TOSA REDUCE_MIN along dim (arm/ops/common/extremum_dim.py);
a model that reads the indices keeps the node on the CPU."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.extremum_dim import extremum_dim_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def values_height_keepdim(x: torch.Tensor) -> torch.Tensor:
    return torch.min(x, 2, keepdim=True).values


def values_last_dim(x: torch.Tensor) -> torch.Tensor:
    return x.min(-1)[0]


TEST_CASES = {
    "values_height_keepdim": OpTestCase(FunctionModule(values_height_keepdim), random_inputs(0, (1, 4, 7, 5))),
    # Not rank 4 in and out: REDUCE_MIN's U55 command stream departs (as amin's does), so there it is
    # REDUCE_MAX of the complemented codes.
    "values_rank3": OpTestCase(FunctionModule(values_last_dim), random_inputs(1, (2, 6, 10))),
}

OP = extremum_dim_op(
    "min_dim",
    ts.Op.REDUCE_MIN,
    edge_targets=(exir_ops.edge.aten.min.dim,),
    aten_targets=(torch.ops.aten.min.dim,),
    test_cases=TEST_CASES,
    u55_needs_rank4=True,
)
