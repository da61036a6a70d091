"""aten.bitwise_left_shift and aten.__lshift__ (x << n) -> TOSA LOGICAL_LEFT_SHIFT (see common/bitwise.py).

The bits shifted out are lost, as torch's shift of a fixed-width integer loses them. On the U85,
Vela 5.2.0 saturates an int8 or int16 left shift instead (its command stream gives 127 where torch
wraps 0x7f << 3 to -8), so there only int32 shifts are delegated.
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.bitwise import BitwiseOp, bitwise_op, random_integers
from arm.ops.common.op_test_case import FunctionModule, OpTestCase

_NO_SHIFTS = ("u55_INT",)

_LEFT_SHIFT = BitwiseOp(
    ts.Op.LOGICAL_LEFT_SHIFT,
    ts.TosaSerializerAttribute.LogicalLeftShiftAttribute,
    shift=True,
    u85_dtypes=(torch.int32,),
    in_fp_profile=True,
)

_ATEN = (
    torch.ops.aten.bitwise_left_shift.Tensor,
    torch.ops.aten.bitwise_left_shift.Tensor_Scalar,
    torch.ops.aten.__lshift__.Tensor,
    torch.ops.aten.__lshift__.Scalar,
)
_EDGE = (
    exir_ops.edge.aten.bitwise_left_shift.Tensor,
    exir_ops.edge.aten.bitwise_left_shift.Tensor_Scalar,
    exir_ops.edge.aten.__lshift__.Tensor,
    exir_ops.edge.aten.__lshift__.Scalar,
)


def shift_by_three(x: torch.Tensor) -> torch.Tensor:
    return x << 3


def shift_by_tensor(x: torch.Tensor, n: torch.Tensor) -> torch.Tensor:
    return x << n


TEST_CASES = {
    "int32_tensor": OpTestCase(
        FunctionModule(torch.bitwise_left_shift),
        (*random_integers(0, torch.int32, (2, 3, 16)), *random_integers(1, torch.int32, (2, 3, 16), low=0, high=12)),
        cpu_targets=_NO_SHIFTS,
    ),
    # int8 values whose top bits shift out (torch and TOSA both wrap; the U85 would saturate).
    "int8_scalar": OpTestCase(
        FunctionModule(shift_by_three), random_integers(2, torch.int8, (4, 20), low=-128, high=128), cpu_targets=(
            *_NO_SHIFTS, "u85_INT"
        )
    ),
    "operator_tensor": OpTestCase(
        FunctionModule(shift_by_tensor),
        (*random_integers(3, torch.int16, (3, 10)), *random_integers(4, torch.int16, (1, 10), low=0, high=5)),
        cpu_targets=(*_NO_SHIFTS, "u85_INT"),
    ),
}

OP = bitwise_op(
    name="bitwise_left_shift", spec=_LEFT_SHIFT, edge_targets=_EDGE, aten_targets=_ATEN, test_cases=TEST_CASES
)
