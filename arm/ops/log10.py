"""aten.log10 -> LOG(x) / ln(10) (FP) or TABLE (INT)."""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def positive_inputs(seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Inputs in [0.5, 4]: log10 is defined and its slope stays below 1."""
    return tuple(0.5 + x.abs() for x in random_inputs(seed, shape))


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.log10), positive_inputs(0, (1, 4, 8, 8))),
    "rank2": OpTestCase(FunctionModule(torch.log10), positive_inputs(1, (5, 30))),
}

OP = float_function_op(
    name="log10",
    edge=exir_ops.edge.aten.log10.default,
    aten=torch.ops.aten.log10.default,
    function=FloatFunction(lambda m, x: m.mul(m.log(x), 1.0 / math.log(10.0))),
    test_cases=TEST_CASES,
)
