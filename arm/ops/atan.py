"""aten.atan -> a range-reduced polynomial within 1e-7 (FP, see FloatMath.atan) or TABLE (INT).

TOSA 1.0 has no ATAN. ExecuTorch's Arm backend uses a (2,1) Pade approximation; ours is accurate to
float32 rounding, at five more MUL/ADD pairs.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, half_precision_cases, random_inputs

TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.atan), random_inputs(0, (1, 4, 8, 8))),
    # Both sides of |x| = 1, where the range reduction switches.
    "wide": OpTestCase(FunctionModule(torch.atan), tuple(4.0 * x for x in random_inputs(1, (5, 30)))),
}

# The op in float16 and bfloat16 on the float targets (the float-type rule: arm/ops/common/support.py).
TEST_CASES |= half_precision_cases(OpTestCase(FunctionModule(torch.atan), tuple(3.0 * x for x in random_inputs(20, (4, 16)))))

OP = float_function_op(
    name="atan",
    edge=exir_ops.edge.aten.atan.default,
    aten=torch.ops.aten.atan.default,
    function=FloatFunction(lambda m, x: m.atan(x)),
    test_cases=TEST_CASES,
)
