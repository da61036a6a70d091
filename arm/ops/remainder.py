"""aten.remainder (.Tensor, .Scalar; x % y) -> a - b floor(a / b) with the floored quotient of
common/floored_division.py (FP), or one TABLE when the divisor is a number (INT)."""

from __future__ import annotations

import functools

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common import floored_division
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.float_unary import on_int8_grid
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

_INT_TARGETS = ("tosa_INT", "u55_INT", "u85_INT", "vgf_INT")

lower = functools.partial(floored_division.lower, formula=floored_division.floored_remainder, division=torch.remainder)


def modulo_number(x: torch.Tensor) -> torch.Tensor:
    return x % 0.7


def modulo_negative_number(x: torch.Tensor) -> torch.Tensor:
    return torch.remainder(x, -1.3)


def signed_divisors(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    x, y = random_inputs(seed, (3, 20), (3, 20))
    return 4.0 * x, torch.sign(y) * (0.5 + y.abs())


TEST_CASES = {
    # On the int8 grid: an input a hair from a multiple of the divisor would quantize across it,
    # where the remainder jumps by the whole divisor.
    "by_number": OpTestCase(FunctionModule(modulo_number), on_int8_grid(0, (1, 4, 8, 8), 0.0371)),
    "by_negative_number": OpTestCase(FunctionModule(modulo_negative_number), on_int8_grid(1, (3, 40), 0.0213)),
    "tensors": OpTestCase(FunctionModule(torch.remainder), signed_divisors(2), cpu_targets=_INT_TARGETS),
}

OP = ArmOp(
    name="remainder",
    edge_targets=(exir_ops.edge.aten.remainder.Tensor, exir_ops.edge.aten.remainder.Scalar),
    aten_targets=(torch.ops.aten.remainder.Tensor, torch.ops.aten.remainder.Scalar),
    support=floored_division.support,
    annotate=floored_division.annotate_dividend,
    lower=lower,
    test_cases=TEST_CASES,
)
