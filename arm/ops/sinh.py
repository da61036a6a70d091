"""aten.sinh -> (EXP(x) - EXP(-x)) / 2 (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.sinh), random_inputs(0, (1, 4, 8, 8))),
    "rank2": OpTestCase(FunctionModule(torch.sinh), tuple(0.5 * x for x in random_inputs(1, (5, 30)))),
}

OP = float_function_op(
    name="sinh",
    edge=exir_ops.edge.aten.sinh.default,
    aten=torch.ops.aten.sinh.default,
    function=FloatFunction(lambda m, x: m.mul(m.sub(m.exp(x), m.exp(m.neg(x))), 0.5)),
    test_cases=TEST_CASES,
)
