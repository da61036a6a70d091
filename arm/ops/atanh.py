"""aten.atanh -> (LOG(1 + x) - LOG(1 - x)) / 2 (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def within(bound: float, seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Inputs in (-bound, bound): atanh has poles at +-1."""
    return tuple(bound * torch.tanh(x) for x in random_inputs(seed, shape))


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.atanh), within(0.9, 0, (1, 4, 8, 8))),
    "rank2": OpTestCase(FunctionModule(torch.atanh), within(0.5, 1, (5, 30))),
}

OP = float_function_op(
    name="atanh",
    edge=exir_ops.edge.aten.atanh.default,
    aten=torch.ops.aten.atanh.default,
    function=FloatFunction(lambda m, x: m.mul(m.sub(m.log(m.add(1.0, x)), m.log(m.sub(1.0, x))), 0.5)),
    test_cases=TEST_CASES,
)
