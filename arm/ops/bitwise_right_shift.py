"""aten.bitwise_right_shift and aten.__rshift__ (x >> n) -> TOSA ARITHMETIC_RIGHT_SHIFT without rounding.

torch shifts signed integers arithmetically (the sign bit fills in) and truncates toward minus
infinity, which is ARITHMETIC_RIGHT_SHIFT with round=False (see common/bitwise.py).

TOSA 1.0 has ARITHMETIC_RIGHT_SHIFT in the INT profile only. The FP profile has LOGICAL_RIGHT_SHIFT,
LOGICAL_LEFT_SHIFT and int32 SUB and ADD, which give the arithmetic shift of an int32 by a number n in
[1, 32): the logical shift, plus the sign bit's fill ``(0 - (x >>> 31)) << (32 - n)``, whose bits the
logical shift left zero (so ADD is OR). int8/int16 would need their SUB, which only the INT profile has,
and a count tensor could be 0 (a left shift by 32 is undefined): those stay on the CPU on FP.
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops

import numpy as np
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.bitwise import BitwiseOp, no_annotation, random_integers
from arm.ops.common.elementwise import emit
from arm.ops.common.op_test_case import FunctionModule, OpTestCase
from arm.ops.common.support import describe, dtype_of, rank_reason
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

_INT_ONLY = ("tosa_FP", "vgf_FP", "u55_INT")


def _no_rounding(attribute: ts.TosaSerializerAttribute) -> None:
    attribute.ArithmeticRightShiftAttribute(False)


_RIGHT_SHIFT = BitwiseOp(ts.Op.ARITHMETIC_RIGHT_SHIFT, _no_rounding, shift=True)


def support(node: Node, spec: TosaSpecification) -> str | None:
    if not spec.is_fp or dtype_of(node) == torch.bool:
        return _RIGHT_SHIFT.support(node, spec)
    count = node.args[1]
    if dtype_of(node) != torch.int32 or dtype_of(node.args[0]) != torch.int32 or not isinstance(count, int) or not 0 < count < 32:
        return (
            f"{describe(node)}: {spec} has no ARITHMETIC_RIGHT_SHIFT (TOSA 1.0 has it in the INT profile only); "
            "its FP form shifts an int32 by a number in [1, 32) only; it runs on the CPU"
        )
    return rank_reason(node, shape_of(node))


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if not ctx.spec.is_fp:
        return _RIGHT_SHIFT.lower(node, ctx)
    x, count = ctx.value(node.args[0]), node.args[1]
    shape, int32 = shape_of(node), np.dtype(np.int32)

    def number(value: int, what: str) -> TosaValue:
        return ctx.graph.add_const(f"{node.name}_{what}", np.full((1,) * len(shape), value, dtype=np.int32))

    def step(op: ts.Op, setter: object, lhs: TosaValue, rhs: TosaValue, what: str) -> TosaValue:
        return emit(ctx, op, setter, [lhs, rhs], name=f"{node.name}_{what}", shape=shape, dtype=int32)

    attributes = ts.TosaSerializerAttribute
    logical = step(ts.Op.LOGICAL_RIGHT_SHIFT, attributes.LogicalRightShiftAttribute, x, number(count, "count"), "logical")
    sign = step(ts.Op.LOGICAL_RIGHT_SHIFT, attributes.LogicalRightShiftAttribute, x, number(31, "sign_bit"), "sign")
    ones_if_negative = step(ts.Op.SUB, attributes.SubAttribute, number(0, "zero"), sign, "ones_if_negative")
    fill = step(ts.Op.LOGICAL_LEFT_SHIFT, attributes.LogicalLeftShiftAttribute, ones_if_negative, number(32 - count, "fill_shift"), "fill")
    return emit(ctx, ts.Op.ADD, attributes.AddAttribute, [logical, fill], name=node.name, shape=shape, dtype=int32)

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
    # int32 by a number: on TOSA FP the logical shift plus the sign's fill (negative values included).
    "int32_scalar": OpTestCase(
        FunctionModule(shift_by_two),
        random_integers(5, torch.int32, (3, 16), low=-100000, high=100000),
        cpu_targets=("u55_INT",),
    ),
    "operator_tensor": OpTestCase(
        FunctionModule(shift_by_tensor),
        (*random_integers(3, torch.int16, (3, 10)), *random_integers(4, torch.int16, (1, 10), low=0, high=15)),
        cpu_targets=_INT_ONLY,
    ),
}

OP = ArmOp(
    name="bitwise_right_shift",
    edge_targets=_EDGE,
    aten_targets=_ATEN,
    support=support,
    annotate=no_annotation,
    lower=lower,
    test_cases=TEST_CASES,
)
