"""aten.bitwise_or (.Tensor, .Scalar) -> TOSA BITWISE_OR on integers, LOGICAL_OR on bool (see common/bitwise.py)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.bitwise import BitwiseOp, bitwise_op, random_integers
from arm.ops.common.logical import LogicalOp, random_bools
from arm.ops.common.op_test_case import FunctionModule, OpTestCase

_INT_ONLY = ("tosa_FP", "vgf_FP", "u55_INT")
# The U55 has no logical operators; the U85 runs them, bool graph inputs and outputs included.
_BOOL_IO = ("u55_INT",)

_BITWISE_OR = BitwiseOp(
    ts.Op.BITWISE_OR,
    ts.TosaSerializerAttribute.BitwiseOrAttribute,
    on_bool=LogicalOp(ts.Op.LOGICAL_OR, ts.TosaSerializerAttribute.LogicalOrAttribute),
)


def with_mask(x: torch.Tensor) -> torch.Tensor:
    return torch.bitwise_or(x, 0x5A)


TEST_CASES = {
    "int32": OpTestCase(
        FunctionModule(torch.bitwise_or), random_integers(0, torch.int32, (2, 3, 16), (2, 3, 16)), cpu_targets=_INT_ONLY
    ),
    "int8_broadcast": OpTestCase(
        FunctionModule(torch.bitwise_or),
        random_integers(1, torch.int8, (4, 20), (1, 20), low=-128, high=128),
        cpu_targets=_INT_ONLY,
    ),
    "scalar_mask": OpTestCase(
        FunctionModule(with_mask), random_integers(2, torch.int16, (3, 40)), cpu_targets=_INT_ONLY
    ),
    # On bool tensors it is LOGICAL_OR, which the FP profile has too.
    "bool": OpTestCase(FunctionModule(torch.bitwise_or), random_bools(3, (2, 30), (2, 30)), cpu_targets=_BOOL_IO),
}

OP = bitwise_op(
    name="bitwise_or",
    spec=_BITWISE_OR,
    edge_targets=(exir_ops.edge.aten.bitwise_or.Tensor, exir_ops.edge.aten.bitwise_or.Scalar),
    aten_targets=(torch.ops.aten.bitwise_or.Tensor, torch.ops.aten.bitwise_or.Scalar),
    test_cases=TEST_CASES,
)
