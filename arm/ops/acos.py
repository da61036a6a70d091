"""aten.acos -> pi/2 - asin(x) (FP, asin as in asin.py) or TABLE (INT)."""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.asin import asin, within_one
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import FunctionModule, OpTestCase
from arm.tosa.graph import TosaValue


def acos(m: FloatMath, x: TosaValue) -> TosaValue:
    return m.sub(math.pi / 2, asin(m, x))


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.acos), within_one(0, (1, 4, 8, 8))),
    "rank2": OpTestCase(FunctionModule(torch.acos), within_one(1, (5, 30))),
}

OP = float_function_op(
    name="acos",
    edge=exir_ops.edge.aten.acos.default,
    aten=torch.ops.aten.acos.default,
    function=FloatFunction(acos),
    test_cases=TEST_CASES,
)
