"""aten.bitwise_right_shift and aten.__rshift__ (x >> n) -> TOSA ARITHMETIC_RIGHT_SHIFT without rounding.

torch shifts signed integers arithmetically (the sign bit fills in) and truncates toward minus
infinity, which is ARITHMETIC_RIGHT_SHIFT with round=False (see common/bitwise.py).
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.bitwise import BitwiseOp, bitwise_op, random_integers
from arm.ops.common.op_test_case import FunctionModule, OpTestCase

_INT_ONLY = ("tosa_FP", "vgf_FP", "u55_INT")


def _no_rounding(attribute: ts.TosaSerializerAttribute) -> None:
    attribute.ArithmeticRightShiftAttribute(False)


_RIGHT_SHIFT = BitwiseOp(ts.Op.ARITHMETIC_RIGHT_SHIFT, _no_rounding, shift=True)

_ATEN = (
    torch.ops.aten.bitwise_right_shift.Tensor,
    torch.ops.aten.bitwise_right_shift.Tensor_Scalar,
    torch.ops.aten.__rshift__.Tensor,
    torch.ops.aten.__rshift__.Scalar,
)
_EDGE = (
    exir_ops.edge.aten.bitwise_right_shift.Tensor,
    exir_ops.edge.aten.bitwise_right_shift.Tensor_Scalar,
    exir_ops.edge.aten.__rshift__.Tensor,
    exir_ops.edge.aten.__rshift__.Scalar,
)


def shift_by_two(x: torch.Tensor) -> torch.Tensor:
    return x >> 2


def shift_by_tensor(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    return x >> n


TEST_CASES = {
    "int32_tensor": OpTestCase(
        FunctionModule(torch.bitwise_right_shift),
        (
            *random_integers(0, torch.int32, (2, 3, 16), low=-100000, high=100000),
            *random_integers(1, torch.int32, (2, 3, 16), low=0, high=31),
        ),
        cpu_targets=_INT_ONLY,
    ),
    # Negative int8 values: the sign fills in and odd values round toward minus infinity.
    "int8_scalar": OpTestCase(
        FunctionModule(shift_by_two), random_integers(2, torch.int8, (4, 20), low=-128, high=128), cpu_targets=_INT_ONLY
    ),
    "operator_tensor": OpTestCase(
        FunctionModule(shift_by_tensor),
        (*random_integers(3, torch.int16, (3, 10)), *random_integers(4, torch.int16, (1, 10), low=0, high=15)),
        cpu_targets=_INT_ONLY,
    ),
}

OP = bitwise_op(
    name="bitwise_right_shift", spec=_RIGHT_SHIFT, edge_targets=_EDGE, aten_targets=_ATEN, test_cases=TEST_CASES
)
