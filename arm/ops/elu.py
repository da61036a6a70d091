"""aten.elu (and selu, which to_edge writes as elu) -> SELECT(x > 0, s x, s a (EXP(i x) - 1)) (FP) or
TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.tosa.graph import TosaValue


def elu(m: FloatMath, x: TosaValue, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0) -> TosaValue:
    """torch's elu with all three of its coefficients: x > 0 ? scale x : scale alpha (e^(input_scale x) - 1)."""
    negative = m.mul(m.sub(m.exp(m.mul(x, input_scale)), 1.0), scale * alpha)
    return m.select(m.greater(x, 0.0), m.mul(x, scale), negative)


def elu_half(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.elu(x, alpha=0.5)


def elu_inplace_after_neg(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.elu(torch.neg(x), inplace=True)


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.nn.functional.elu), random_inputs(0, (1, 4, 8, 8))),
    "alpha": OpTestCase(FunctionModule(elu_half), tuple(2.0 * x for x in random_inputs(1, (5, 30)))),
    # In place on an intermediate, as nn.ELU(inplace=True) after a layer writes it (the registry
    # derives elu_ from elu; in place on a graph input would mutate the case's own inputs).
    "inplace": OpTestCase(FunctionModule(elu_inplace_after_neg), random_inputs(2, (2, 3, 20))),
}

OP = float_function_op(
    name="elu",
    edge=exir_ops.edge.aten.elu.default,
    aten=torch.ops.aten.elu.default,
    function=FloatFunction(elu),
    test_cases=TEST_CASES,
)
