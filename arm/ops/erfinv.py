"""aten.erfinv -> M. Giles' single-precision approximation (FP) or TABLE (INT).

TOSA 1.0 has no ERFINV. Giles ("Approximating the erfinv function", GPU Computing Gems, 2011) writes
it as x P(w) with w = -log((1 - x)(1 + x)) and one of two polynomials, chosen by w < 5: within
5e-7 of torch.erfinv over (-1, 1) in float32. erfinv is outside the core ATen set but has no
decomposition either: to_edge (with the IR check off, as the flow runs it) leaves it whole anyway,
and keeping it explicitly would make a rejected erfinv an error ("not decomposed or delegated").
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.tosa.graph import TosaValue

# Giles' coefficients, highest degree last as FloatMath.polynomial takes them.
_CENTRAL = (
    1.50140941, 0.246640727, -0.00417768164, -0.00125372503, 0.00021858087,
    -4.39150654e-06, -3.5233877e-06, 3.43273939e-07, 2.81022636e-08,
)  # fmt: skip
_TAIL = (
    2.83297682, 1.00167406, 0.00943887047, -0.0076224613, 0.00573950773,
    -0.00367342844, 0.00134934322, 0.000100950558, -0.000200214257,
)  # fmt: skip


def erfinv(m: FloatMath, x: TosaValue) -> TosaValue:
    w = m.neg(m.log(m.mul(m.sub(1.0, x), m.add(1.0, x))))
    central = m.polynomial(m.sub(w, 2.5), _CENTRAL)
    tail = m.polynomial(m.sub(m.sqrt(w), 3.0), _TAIL)
    return m.mul(m.select(m.greater(5.0, w), central, tail), x)


def within(bound: float, seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Inputs in (-bound, bound): erfinv has poles at +-1."""
    return tuple(bound * torch.tanh(x) for x in random_inputs(seed, shape))


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.erfinv), within(0.9, 0, (1, 4, 8, 8))),
    # Up to 0.99, where erfinv's slope passes 20 (arm/ops/common/float_math_test.py checks the tail
    # polynomial, |x| > 0.9966, which no int8 grid resolves well enough for the harness's bound).
    "steep": OpTestCase(FunctionModule(torch.erfinv), within(0.99, 1, (5, 30))),
}

OP = float_function_op(
    name="erfinv",
    edge=exir_ops.edge.aten.erfinv.default,
    aten=torch.ops.aten.erfinv.default,
    function=FloatFunction(erfinv),
    test_cases=TEST_CASES,
)
