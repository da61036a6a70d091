"""aten.tan -> SIN(x) * RECIPROCAL(COS(x)) (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def within(bound: float, seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Inputs inside (-bound, bound), away from tan's poles at +-pi/2."""
    return tuple(bound * torch.tanh(x) for x in random_inputs(seed, shape))


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.tan), within(1.2, 0, (1, 4, 8, 8))),
    "rank3": OpTestCase(FunctionModule(torch.tan), within(0.8, 1, (2, 5, 16))),
}

OP = float_function_op(
    name="tan",
    edge=exir_ops.edge.aten.tan.default,
    aten=torch.ops.aten.tan.default,
    function=FloatFunction(lambda m, x: m.div(m.sin(x), m.cos(x))),
    test_cases=TEST_CASES,
)
