"""aten.remainder (.Tensor, .Scalar; x % y) -> a - b floor(a / b) with the floored quotient of
common/floored_division.py (FP), or one TABLE when the divisor is a number (INT); by a tensor, the
remainder that INTDIV and the floor correction leave (quantized or integer tensors; TOSA INT and U85)."""

from __future__ import annotations

import functools

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common import floored_division
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.float_unary import on_int8_grid
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs

# Two tensors (quantized or integer) need INTDIV, which Vela does not run on the U55.
_NO_INTDIV = ("u55_INT",)
_NO_INTEGER_DIVISION = ("tosa_FP", "u55_INT", "vgf_FP")

lower = functools.partial(
    floored_division.lower, formula=floored_division.floored_remainder, division=torch.remainder, remainder=True
)


def modulo_number(x: torch.Tensor) -> torch.Tensor:
    return x % 0.7


def modulo_negative_number(x: torch.Tensor) -> torch.Tensor:
    return torch.remainder(x, -1.3)


def int16_operands(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    dividend = torch.randint(-3000, 3001, (3, 16), generator=generator, dtype=torch.int16)
    divisor = torch.randint(1, 40, (1, 16), generator=generator, dtype=torch.int16)
    return dividend, divisor * (torch.arange(16, dtype=torch.int16) % 2 * 2 - 1)


TEST_CASES = {
    # On the int8 grid: an input a hair from a multiple of the divisor would quantize across it,
    # where the remainder jumps by the whole divisor.
    "by_number": OpTestCase(FunctionModule(modulo_number), on_int8_grid(0, (1, 4, 8, 8), 0.0371)),
    "by_negative_number": OpTestCase(FunctionModule(modulo_negative_number), on_int8_grid(1, (3, 40), 0.0213)),
    "tensors": OpTestCase(FunctionModule(torch.remainder), floored_division.on_grid_operands(2, (3, 20)), cpu_targets=_NO_INTDIV),
    # int16 data, a broadcast divisor of both signs: the remainder takes the divisor's sign.
    "int16_tensors": OpTestCase(FunctionModule(torch.remainder), int16_operands(3), cpu_targets=_NO_INTEGER_DIVISION),
}

OP = ArmOp(
    name="remainder",
    edge_targets=(exir_ops.edge.aten.remainder.Tensor, exir_ops.edge.aten.remainder.Scalar),
    aten_targets=(torch.ops.aten.remainder.Tensor, torch.ops.aten.remainder.Scalar),
    support=floored_division.support,
    annotate=floored_division.annotate_division,
    quantized_on=floored_division.quantized_on,
    lower=lower,
    test_cases=TEST_CASES,
)
