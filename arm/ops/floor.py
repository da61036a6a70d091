"""aten.floor -> TOSA FLOOR (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op, on_int8_grid
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

TEST_CASES = {
    # On the int8 grid: an input a hair from an integer would otherwise quantize across it.
    "rank4": OpTestCase(FunctionModule(torch.floor), on_int8_grid(0, (1, 4, 8, 8), 0.0371)),
    "rank2": OpTestCase(FunctionModule(torch.floor), on_int8_grid(1, (4, 33), 0.0213)),
    # Wide inputs: a unit jump is about one output step, within the harness's bound off the grid too.
    "wide": OpTestCase(FunctionModule(torch.floor), tuple(40.0 * x for x in random_inputs(2, (2, 50)))),
}

OP = float_function_op(
    name="floor",
    edge=exir_ops.edge.aten.floor.default,
    aten=torch.ops.aten.floor.default,
    function=FloatFunction(lambda m, x: m.floor(x)),
    test_cases=TEST_CASES,
)
