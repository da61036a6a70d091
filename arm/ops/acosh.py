"""aten.acosh -> LOG(x + sqrt(x^2 - 1)) (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def from_one(seed: int, shape: tuple[int, ...], offset: float) -> tuple[torch.Tensor, ...]:
    """Inputs in [1 + offset, ...): acosh is defined from 1, where its slope is infinite."""
    return tuple(1.0 + offset + 2.0 * x.abs() for x in random_inputs(seed, shape))


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.acosh), from_one(0, (1, 4, 8, 8), 0.5)),
    "rank2": OpTestCase(FunctionModule(torch.acosh), from_one(1, (5, 30), 0.2)),
}

OP = float_function_op(
    name="acosh",
    edge=exir_ops.edge.aten.acosh.default,
    aten=torch.ops.aten.acosh.default,
    function=FloatFunction(lambda m, x: m.log(m.add(x, m.sqrt(m.sub(m.mul(x, x), 1.0))))),
    test_cases=TEST_CASES,
)
