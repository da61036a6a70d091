"""aten.logit -> LOG(x / (1 - x)), x first clamped to [eps, 1 - eps] if eps is given (FP), or TABLE (INT).

to_edge would write logit as two comparisons, two SELECTs, a cast, SUB, DIV and LOG; kept whole
(where delegated) it is one TABLE in the INT profile.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.tosa.graph import TosaValue


def logit(m: FloatMath, x: TosaValue, eps: float | None = None) -> TosaValue:
    if eps is not None:
        x = m.minimum(m.maximum(x, eps), 1.0 - eps)
    return m.log(m.div(x, m.sub(1.0, x)))


def logit_eps(x: torch.Tensor) -> torch.Tensor:
    return torch.logit(x, eps=0.02)


TEST_CASES = {
    # In (0.05, 0.95): logit's slope 1 / (x (1 - x)) stays below 21.
    "rank4": OpTestCase(
        FunctionModule(torch.logit), tuple(torch.sigmoid(x) * 0.9 + 0.05 for x in random_inputs(0, (1, 4, 8, 8)))
    ),
    # From 0 to 1 inclusive: eps clamps the ends that would be infinite.
    "eps": OpTestCase(FunctionModule(logit_eps), (torch.linspace(0.0, 1.0, 120).reshape(4, 30),)),
}

OP = float_function_op(
    name="logit",
    edge=exir_ops.edge.aten.logit.default,
    aten=torch.ops.aten.logit.default,
    function=FloatFunction(logit),
    test_cases=TEST_CASES,
    keep_in_edge=True,
)
