"""aten.log1p -> LOG(1 + x) (FP) or TABLE (INT).

Like expm1, the float form keeps the absolute (not the relative) accuracy of tiny results.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

TEST_CASES = {
    # In [-0.5, 3.5]: log1p is defined and its slope stays at most 2.
    "rank4": OpTestCase(FunctionModule(torch.log1p), tuple(x.abs() - 0.5 for x in random_inputs(0, (1, 4, 8, 8)))),
    "small": OpTestCase(FunctionModule(torch.log1p), tuple(0.01 * x for x in random_inputs(1, (5, 30)))),
}

OP = float_function_op(
    name="log1p",
    edge=exir_ops.edge.aten.log1p.default,
    aten=torch.ops.aten.log1p.default,
    function=FloatFunction(lambda m, x: m.log(m.add(x, 1.0))),
    test_cases=TEST_CASES,
)
