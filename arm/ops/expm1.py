"""aten.expm1 -> EXP(x) - 1 (FP) or TABLE (INT).

In float32, EXP(x) - 1 loses the relative accuracy of tiny results (below about 1e-4) but keeps
their absolute error at a float32 ulp of 1, which is what the FP profile promises for EXP itself.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.expm1), tuple(0.5 * x for x in random_inputs(0, (1, 4, 8, 8)))),
    "small": OpTestCase(FunctionModule(torch.expm1), tuple(0.01 * x for x in random_inputs(1, (5, 30)))),
}

OP = float_function_op(
    name="expm1",
    edge=exir_ops.edge.aten.expm1.default,
    aten=torch.ops.aten.expm1.default,
    function=FloatFunction(lambda m, x: m.sub(m.exp(x), 1.0)),
    test_cases=TEST_CASES,
)
