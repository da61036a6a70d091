"""aten.logical_or -> TOSA LOGICAL_OR on bool tensors (see common/logical.py)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.bitwise import no_annotation
from arm.ops.common.logical import LogicalOp, random_bools
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

_LOGICAL_OR = LogicalOp(ts.Op.LOGICAL_OR, ts.TosaSerializerAttribute.LogicalOrAttribute)

# The U55 has no logical operators (nor comparisons or SELECT); the U85 runs them on bool graph
# inputs and outputs ("rank3", "rank2") and between comparisons and a SELECT ("between_compares").
_BOOL_IO = ("u55_INT",)


def between_compares(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.where(torch.logical_or(x > 0, y > 0.5), x, y)


TEST_CASES = {
    "rank3": OpTestCase(
        FunctionModule(torch.logical_or), random_bools(0, (2, 3, 16), (2, 3, 16)), cpu_targets=_BOOL_IO
    ),
    "rank2": OpTestCase(FunctionModule(torch.logical_or), random_bools(1, (4, 20), (1, 20)), cpu_targets=_BOOL_IO),
    "between_compares": OpTestCase(
        FunctionModule(between_compares), random_inputs(2, (2, 30), (2, 30)), cpu_targets=("u55_INT",)
    ),
}

OP = ArmOp(
    name="logical_or",
    edge_targets=(exir_ops.edge.aten.logical_or.default,),
    aten_targets=(torch.ops.aten.logical_or.default,),
    support=_LOGICAL_OR.support,
    annotate=no_annotation,
    lower=_LOGICAL_OR.lower,
    test_cases=TEST_CASES,
)
