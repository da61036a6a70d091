"""aten.erf -> TOSA ERF (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.erf), random_inputs(0, (1, 4, 8, 8))),
    "rank2": OpTestCase(FunctionModule(torch.erf), tuple(2.0 * x for x in random_inputs(1, (5, 30)))),
}

OP = float_function_op(
    name="erf",
    edge=exir_ops.edge.aten.erf.default,
    aten=torch.ops.aten.erf.default,
    function=FloatFunction(lambda m, x: m.erf(x)),
    test_cases=TEST_CASES,
)
