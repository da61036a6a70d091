"""aten.amax -> TOSA REDUCE_MAX per listed dim (arm/ops/common/extremum_reduction.py)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.extremum_reduction import extremum_reduction_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def over_channels(x: torch.Tensor) -> torch.Tensor:
    return x.amax(1)


def spatial_keepdim(x: torch.Tensor) -> torch.Tensor:
    return x.amax((2, 3), keepdim=True)


def everything(x: torch.Tensor) -> torch.Tensor:
    return x.amax()


TEST_CASES = {
    "channels": OpTestCase(FunctionModule(over_channels), random_inputs(0, (1, 8, 5, 6))),
    "spatial_keepdim": OpTestCase(FunctionModule(spatial_keepdim), random_inputs(1, (1, 4, 6, 6))),
    "to_scalar": OpTestCase(FunctionModule(everything), random_inputs(2, (4, 8))),
}

OP = extremum_reduction_op(
    "amax",
    ts.Op.REDUCE_MAX,
    edge_targets=(exir_ops.edge.aten.amax.default,),
    aten_targets=(torch.ops.aten.amax.default,),
    test_cases=TEST_CASES,
)
