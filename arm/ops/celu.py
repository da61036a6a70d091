"""aten.celu -> SELECT(x > 0, x, a (EXP(x / a) - 1)) (FP) or TABLE (INT).

to_edge would write celu as expm1, gt and where: in the INT profile a bool intermediate and a SELECT
the U55 lacks. Kept whole (where delegated) it is one TABLE.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.tosa.graph import TosaValue


def celu(m: FloatMath, x: TosaValue, alpha: float = 1.0) -> TosaValue:
    return m.select(m.greater(x, 0.0), x, m.mul(m.sub(m.exp(m.mul(x, 1.0 / alpha)), 1.0), alpha))


def no_alpha(alpha: float = 1.0) -> str | None:
    return "alpha=0 divides by zero (torch raises for it)" if alpha == 0 else None


def celu_two(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.celu(x, alpha=2.0)


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.nn.functional.celu), random_inputs(0, (1, 4, 8, 8))),
    "alpha": OpTestCase(FunctionModule(celu_two), tuple(2.0 * x for x in random_inputs(1, (5, 30)))),
}

OP = float_function_op(
    name="celu",
    edge=exir_ops.edge.aten.celu.default,
    aten=torch.ops.aten.celu.default,
    function=FloatFunction(celu, arguments=no_alpha),
    test_cases=TEST_CASES,
    keep_in_edge=True,
)
