"""aten.asin -> 2 atan(x / (1 + sqrt(1 - x^2))) (FP) or TABLE (INT).

The half-angle form keeps atan's argument in [-1, 1] and stays accurate up to |x| = 1, where
atan(x / sqrt(1 - x^2)) would divide by zero.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.tosa.graph import TosaValue


def asin(m: FloatMath, x: TosaValue) -> TosaValue:
    cosine = m.sqrt(m.mul(m.sub(1.0, x), m.add(1.0, x)))
    return m.mul(m.atan(m.div(x, m.add(1.0, cosine))), 2.0)


def within_one(seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Inputs in (-0.95, 0.95): asin is defined and its slope stays below 3.3."""
    return tuple(0.95 * torch.tanh(x) for x in random_inputs(seed, shape))


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.asin), within_one(0, (1, 4, 8, 8))),
    "rank2": OpTestCase(FunctionModule(torch.asin), within_one(1, (5, 30))),
}

OP = float_function_op(
    name="asin",
    edge=exir_ops.edge.aten.asin.default,
    aten=torch.ops.aten.asin.default,
    function=FloatFunction(asin),
    test_cases=TEST_CASES,
)
