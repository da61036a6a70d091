"""aten.sqrt -> RECIPROCAL(RSQRT(x)) (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op, on_int8_grid
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

TEST_CASES = {
    # In [0.2, 3.5]: away from 0, where sqrt's slope (and so an input's quantization error) explodes.
    "rank4": OpTestCase(FunctionModule(torch.sqrt), tuple(0.2 + x.abs() for x in random_inputs(0, (1, 4, 8, 8)))),
    # From exactly 0 (1/RSQRT(0) = 1/inf = 0), on the int8 grid so that small inputs quantize exactly.
    "from_zero": OpTestCase(FunctionModule(torch.sqrt), on_int8_grid(1, (5, 30), 0.0123, low=0.0)),
}

OP = float_function_op(
    name="sqrt",
    edge=exir_ops.edge.aten.sqrt.default,
    aten=torch.ops.aten.sqrt.default,
    function=FloatFunction(lambda m, x: m.sqrt(x)),
    test_cases=TEST_CASES,
)
