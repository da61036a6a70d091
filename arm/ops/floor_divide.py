"""aten.floor_divide (edge: div.Tensor_mode with rounding_mode='floor') -> floored quotient (see
common/floored_division.py): FP a * RECIPROCAL(b), FLOOR and a one-step correction; INT one TABLE
when the divisor is a number.

div.Tensor_mode's other modes share the node: rounding_mode=None (``torch.div(x, 2, rounding_mode=None)``)
is a true division, FP a * RECIPROCAL(b); in INT, by a number, every mode is one TABLE of the node's
own division, exact on the 256 codes. 'trunc' in FP has no formula here and stays on the CPU.
"""

from __future__ import annotations

import functools

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common import floored_division
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.float_math import FloatMath
from arm.ops.common.float_unary import on_int8_grid
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, first_reason
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

_INT_TARGETS = ("tosa_INT", "u55_INT", "u85_INT", "vgf_INT")


def _mode(node: Node) -> str | None:
    """floor_divide's 'floor', or div.Tensor_mode's own rounding_mode (None, 'floor' or 'trunc')."""
    if node.target == torch.ops.aten.floor_divide.default:
        return "floor"
    return node.kwargs.get("rounding_mode", node.args[2] if len(node.args) > 2 else None)


def support(node: Node, spec: TosaSpecification) -> str | None:
    mode = _mode(node)
    if mode == "trunc" and spec.is_fp:
        return f"{describe(node)}: rounding_mode='trunc' is not lowered in {spec} (only None and 'floor')"
    return first_reason(floored_division.support(node, spec))


def _true_quotient(m: FloatMath, a: floored_division.Operand, b: floored_division.Operand) -> TosaValue:
    return m.div(a, b)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    mode = _mode(node)
    formula = _true_quotient if mode is None else floored_division.floored_quotient
    division = functools.partial(_divide, mode=mode)
    return floored_division.lower(node, ctx, formula=formula, division=division)


def _divide(tensor: torch.Tensor, divisor: float, *, mode: str | None) -> torch.Tensor:
    return torch.div(tensor, divisor, rounding_mode=mode)


def by_number(x: torch.Tensor) -> torch.Tensor:
    return x // 0.7


def by_negative_number(x: torch.Tensor) -> torch.Tensor:
    return torch.floor_divide(x, -1.3)


def exact_quotients(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Integer multiples of integer divisors whose float32 reciprocals are inexact (49 * (1/49) < 1):
    the correction must give the exact quotient, not one less. (For divisors that are not floats'
    exact multiples, such as 0.1, torch's exact fmod and this float correction can still differ by
    one at a multiple.)"""
    generator = torch.Generator().manual_seed(seed)
    divisors = torch.tensor([3.0, 7.0, 49.0, -49.0, -3.0, 11.0]).repeat(5)
    return (torch.randint(-20, 20, (30,), generator=generator).to(torch.float32) * divisors, divisors)


def halved(x: torch.Tensor) -> torch.Tensor:
    return torch.div(x, 2, rounding_mode=None)


def truncated_by_number(x: torch.Tensor) -> torch.Tensor:
    return torch.div(x, 0.6, rounding_mode="trunc")


def signed_divisors(seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    x, y = random_inputs(seed, (3, 20), (3, 20))
    return 4.0 * x, torch.sign(y) * (0.5 + y.abs())


TEST_CASES = {
    # On the int8 grid: an input a hair from a multiple of the divisor would quantize across it.
    "by_number": OpTestCase(FunctionModule(by_number), on_int8_grid(0, (1, 4, 8, 8), 0.0371)),
    "by_negative_number": OpTestCase(FunctionModule(by_negative_number), on_int8_grid(1, (3, 40), 0.0213)),
    "tensors": OpTestCase(FunctionModule(torch.floor_divide), signed_divisors(2), cpu_targets=_INT_TARGETS),
    "exact_quotients": OpTestCase(FunctionModule(torch.floor_divide), exact_quotients(3), cpu_targets=_INT_TARGETS),
    # div.Tensor_mode with rounding_mode=None: a true division (FP a * RECIPROCAL(b), INT one TABLE).
    "mode_none_by_number": OpTestCase(FunctionModule(halved), random_inputs(4, (4, 8))),
    # 'trunc' by a number: one TABLE in INT; no FP formula.
    "mode_trunc_by_number": OpTestCase(
        FunctionModule(truncated_by_number), on_int8_grid(5, (3, 16), 0.0297), cpu_targets=("tosa_FP", "vgf_FP")
    ),
}

OP = ArmOp(
    name="floor_divide",
    edge_targets=(exir_ops.edge.aten.div.Tensor_mode,),
    aten_targets=(torch.ops.aten.floor_divide.default, torch.ops.aten.div.Tensor_mode),
    support=support,
    annotate=floored_division.annotate_dividend,
    lower=lower,
    test_cases=TEST_CASES,
)
