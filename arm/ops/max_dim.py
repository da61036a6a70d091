"""aten.max.dim (``x.max(dim).values``) -> TOSA REDUCE_MAX along dim (arm/ops/common/extremum_dim.py);
a model that reads the indices keeps the node on the CPU."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.extremum_dim import extremum_dim_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def values_last_dim(x: torch.Tensor) -> torch.Tensor:
    return x.max(-1).values


def values_keepdim(x: torch.Tensor) -> torch.Tensor:
    return torch.max(x, 2, keepdim=True)[0]


def values_of_vector(x: torch.Tensor) -> torch.Tensor:
    return x.max(0).values


def values_and_indices(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    values, indices = x.max(1)
    return values, indices


_EVERY_TARGET = ("tosa_FP", "tosa_INT", "u55_INT", "u85_INT", "vgf_FP", "vgf_INT")

TEST_CASES = {
    "values_last_dim": OpTestCase(FunctionModule(values_last_dim), random_inputs(0, (2, 5, 8))),
    "values_keepdim": OpTestCase(FunctionModule(values_keepdim), random_inputs(1, (1, 3, 6, 4))),
    # A 0-d result: the REDUCE's [1] reshaped to [].
    "values_of_vector": OpTestCase(FunctionModule(values_of_vector), random_inputs(3, (10,))),
    "with_indices": OpTestCase(FunctionModule(values_and_indices), random_inputs(2, (3, 6)), cpu_targets=_EVERY_TARGET),
}

OP = extremum_dim_op(
    "max_dim",
    ts.Op.REDUCE_MAX,
    edge_targets=(exir_ops.edge.aten.max.dim,),
    aten_targets=(torch.ops.aten.max.dim,),
    test_cases=TEST_CASES,
)
