"""aten.amin -> TOSA REDUCE_MIN per listed dim (arm/ops/common/extremum_reduction.py)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.extremum_reduction import extremum_reduction_op
from arm.quantizer.quantization_config import get_symmetric_a16w8_quantization_config
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def last_dim(x: torch.Tensor) -> torch.Tensor:
    return x.amin(-1)


def height_keepdim(x: torch.Tensor) -> torch.Tensor:
    return x.amin(2, keepdim=True)


def vector_to_scalar(x: torch.Tensor) -> torch.Tensor:
    return x.amin(0)


def first_and_last(x: torch.Tensor) -> torch.Tensor:
    return x.amin((0, 2))


TEST_CASES = {
    # On the U55 REDUCE_MIN's rank-4 view [1, 12, 10, 1] reduces right, but its reshape to [2, 6] departs:
    # there it is REDUCE_MAX of the complemented codes.
    "rank3_last_dim": OpTestCase(FunctionModule(last_dim), random_inputs(0, (2, 6, 10))),
    "height_keepdim": OpTestCase(FunctionModule(height_keepdim), random_inputs(1, (1, 4, 7, 5))),
    # A 0-d result: the REDUCE's [1] (U55: the rank-4 view's [1, 1, 1, 1]) reshaped to [].
    "vector_to_scalar": OpTestCase(FunctionModule(vector_to_scalar), random_inputs(2, (12,))),
    # Dims 0 and 2 are not next to each other: no single rank-4 view; the U55 takes the complemented REDUCE_MAX.
    "dims_apart": OpTestCase(FunctionModule(first_and_last), random_inputs(3, (3, 4, 5))),
    # int16 codes have no complement TABLE: the U55 keeps the reduction Vela 5.2.0 computes wrong on the CPU.
    "a16w8_rank3_last_dim": OpTestCase(
        FunctionModule(last_dim), random_inputs(4, (2, 6, 10)), targets=("u55_INT", "u85_INT"),
        cpu_targets=("u55_INT",), quantization=get_symmetric_a16w8_quantization_config,
    ),  # fmt: skip
}

OP = extremum_reduction_op(
    "amin",
    ts.Op.REDUCE_MIN,
    edge_targets=(exir_ops.edge.aten.amin.default,),
    aten_targets=(torch.ops.aten.amin.default,),
    test_cases=TEST_CASES,
    u55_needs_rank4=True,
)
