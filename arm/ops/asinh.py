"""aten.asinh -> sign(x) LOG(|x| + sqrt(x^2 + 1)) (FP) or TABLE (INT).

Taken on |x| and given x's sign back, so negative inputs do not cancel |x| against sqrt(x^2 + 1).
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.tosa.graph import TosaValue


def asinh(m: FloatMath, x: TosaValue) -> TosaValue:
    magnitude = m.abs(x)
    return m.copysign(m.log(m.add(magnitude, m.sqrt(m.add(m.mul(x, x), 1.0)))), x)


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.asinh), random_inputs(0, (1, 4, 8, 8))),
    "wide": OpTestCase(FunctionModule(torch.asinh), tuple(10.0 * x for x in random_inputs(1, (5, 30)))),
}

OP = float_function_op(
    name="asinh",
    edge=exir_ops.edge.aten.asinh.default,
    aten=torch.ops.aten.asinh.default,
    function=FloatFunction(asinh),
    test_cases=TEST_CASES,
)
