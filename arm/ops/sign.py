"""aten.sign -> SELECT(x > 0, 1, SELECT(x < 0, -1, x)) (FP) or TABLE (INT).

The last SELECT keeps x itself where it is neither positive nor negative: 0, -0 and NaN stay as
they are, as torch.sign leaves them.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op, on_int8_grid
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

TEST_CASES = {
    # On the int8 grid, so 0 is exact and an input near 0 cannot quantize across it.
    "rank4": OpTestCase(FunctionModule(torch.sign), on_int8_grid(0, (1, 4, 8, 8), 0.0371)),
    # Multiples of 0.5, many of them 0: every value is far from 0 in input steps.
    "with_zeros": OpTestCase(
        FunctionModule(torch.sign), tuple(torch.round(2 * x) / 2 for x in random_inputs(1, (5, 30)))
    ),
}

OP = float_function_op(
    name="sign",
    edge=exir_ops.edge.aten.sign.default,
    aten=torch.ops.aten.sign.default,
    function=FloatFunction(lambda m, x: m.select(m.greater(x, 0.0), 1.0, m.select(m.greater(0.0, x), -1.0, x))),
    test_cases=TEST_CASES,
)
