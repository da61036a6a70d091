"""aten.sin -> TOSA SIN (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op, on_int8_grid
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.sin), tuple(1.5 * x for x in random_inputs(0, (1, 4, 8, 8)))),
    # Two periods: the table holds whatever the function does between the grid's ends. On the int8
    # grid, since a wide input step alone would cost more than the harness's bound against float.
    "periods": OpTestCase(FunctionModule(torch.sin), on_int8_grid(1, (3, 40), 0.05)),
}

OP = float_function_op(
    name="sin",
    edge=exir_ops.edge.aten.sin.default,
    aten=torch.ops.aten.sin.default,
    function=FloatFunction(lambda m, x: m.sin(x)),
    test_cases=TEST_CASES,
)
