"""aten.ceil -> TOSA CEIL (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op, on_int8_grid
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

TEST_CASES = {
    # On the int8 grid: an input a hair from an integer would otherwise quantize across it.
    "rank4": OpTestCase(FunctionModule(torch.ceil), on_int8_grid(0, (1, 4, 8, 8), 0.0371)),
    # Wide inputs: a unit jump is about one output step, within the harness's bound off the grid too.
    "wide": OpTestCase(FunctionModule(torch.ceil), tuple(40.0 * x for x in random_inputs(1, (2, 50)))),
}

OP = float_function_op(
    name="ceil",
    edge=exir_ops.edge.aten.ceil.default,
    aten=torch.ops.aten.ceil.default,
    function=FloatFunction(lambda m, x: m.ceil(x)),
    test_cases=TEST_CASES,
)
