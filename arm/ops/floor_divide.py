"""aten.floor_divide (edge: div.Tensor_mode with rounding_mode='floor') -> floored quotient (see
common/floored_division.py): FP a * RECIPROCAL(b), FLOOR and a one-step correction; INT one TABLE
when the divisor is a number, INTDIV on the codes and a floor correction when it is a tensor (TOSA INT
and the U85). Integer tensors (``torch.div(a, b, rounding_mode='floor')`` on int8, int16 or int32) are
INTDIV with the same correction ('trunc': INTDIV alone), in the INT profile, also on the U85.

div.Tensor_mode's other modes share the node: rounding_mode=None (``torch.div(x, 2, rounding_mode=None)``)
is a true division, FP a * RECIPROCAL(b); in INT, by a number, every mode is one TABLE of the node's
own division, exact on the 256 codes (an integer dividend of a float quotient, ``int8_tensor // 9.5``,
is cast to float explicitly when annotated, so the cast's result is quantized and the TABLE reads it);
by a tensor the quantizer rewrites it as aten.div's
``x * reciprocal(y)`` (arm/ops/div.py), which every INT target runs. 'trunc' in FP has no formula here
and stays on the CPU.
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
from arm.ops.common.integer_arithmetic import is_integer_arithmetic
from arm.ops.common.op_test_case import HALF_TARGETS, FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, first_reason
from arm.ops.div import annotate_div, annotate_promotion_casts
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

# Two tensors (quantized or integer) need INTDIV, which Vela does not run on the U55; the FP
# profile has no integer arithmetic.
_NO_INTDIV = ("u55_INT",)
_NO_INTEGER_DIVISION = ("tosa_FP", "u55_INT", "vgf_FP")


def _mode(node: Node) -> str | None:
    """floor_divide's 'floor', or div.Tensor_mode's own rounding_mode (None, 'floor' or 'trunc')."""
    if node.target == torch.ops.aten.floor_divide.default:
        return "floor"
    return node.kwargs.get("rounding_mode", node.args[2] if len(node.args) > 2 else None)


def support(node: Node, spec: TosaSpecification) -> str | None:
    mode = _mode(node)
    if is_integer_arithmetic(node):
        return floored_division.support(node, spec)
    if mode == "trunc" and spec.is_fp:
        return f"{describe(node)}: rounding_mode='trunc' is not lowered in {spec} (only None and 'floor')"
    if mode is None and spec.is_int and floored_division.is_tensor_divisor(node.args[1]):
        return (
            f"{describe(node)}: rounding_mode=None by the tensor {node.args[1].name} is a true division, which "
            f"{spec} lowers as aten.div (x / y), not as div.Tensor_mode; it runs on the CPU"
        )
    return first_reason(floored_division.support(node, spec))


def _is_true_division_by_tensor(node: Node) -> bool:
    return _mode(node) is None and floored_division.is_tensor_divisor(node.args[1]) and not is_integer_arithmetic(node)


def annotate(node: Node, config: QuantizationConfig) -> None:
    if _is_true_division_by_tensor(node):  # annotate_div casts promoted integer operands itself
        annotate_div(node, config)  # x * reciprocal(y), as aten.div.Tensor: no INTDIV, and the U55 runs it
        return
    annotate_promotion_casts(node, config)
    floored_division.annotate_division(node, config)


def quantized_on(node: Node, spec: TosaSpecification) -> bool:
    return _is_true_division_by_tensor(node) or floored_division.quantized_on(node, spec)


def _true_quotient(m: FloatMath, a: floored_division.Operand, b: floored_division.Operand) -> TosaValue:
    return m.div(a, b)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    mode = _mode(node)
    formula = _true_quotient if mode is None else floored_division.floored_quotient
    division = functools.partial(_divide, mode=mode)
    rounding = "trunc" if mode == "trunc" else "floor"
    return floored_division.lower(node, ctx, formula=formula, division=division, rounding=rounding)


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


def integer_operands(seed: int, dtype: torch.dtype, shape: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor]:
    """Dividends up to +-1000 (an int8 or int16 one with the type's extremes), and nonzero divisors of
    both signs, small ones (the floor correction is most often due) and -1: -128 // -1 wraps to -128.
    (int32's -2**31 // -1 is no case: TOSA leaves an INTDIV result outside int32 unpredictable.)"""
    generator = torch.Generator().manual_seed(seed)
    info = torch.iinfo(dtype)
    low, high = max(info.min, -1000), min(info.max, 1000)
    dividend = torch.randint(low, high + 1, shape, generator=generator, dtype=dtype)
    if info.bits < 32:
        dividend.view(-1)[:2] = torch.tensor([info.min, info.max], dtype=dtype)
    magnitude = torch.randint(1, 12, shape, generator=generator, dtype=dtype)
    divisor = magnitude * (torch.randint(0, 2, shape, generator=generator, dtype=dtype) * 2 - 1)
    divisor.view(-1)[:2] = -1
    return dividend, divisor


def truncated(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.div(x, y, rounding_mode="trunc")


def halved(x: torch.Tensor) -> torch.Tensor:
    return torch.div(x, 2, rounding_mode=None)


def true_division(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.div(x, y, rounding_mode=None)


def integers_floored_by_fraction(x: torch.Tensor) -> torch.Tensor:
    return torch.div(x, 9.5, rounding_mode="floor")


def truncated_by_number(x: torch.Tensor) -> torch.Tensor:
    return torch.div(x, 0.6, rounding_mode="trunc")


TEST_CASES = {
    # On the int8 grid: an input a hair from a multiple of the divisor would quantize across it.
    "by_number": OpTestCase(FunctionModule(by_number), on_int8_grid(0, (1, 4, 8, 8), 0.0371)),
    "by_negative_number": OpTestCase(FunctionModule(by_negative_number), on_int8_grid(1, (3, 40), 0.0213)),
    # Two quantized tensors: INTDIV on the codes, the steps' ratio as P / Q, and the floor correction.
    "tensors": OpTestCase(FunctionModule(torch.floor_divide), floored_division.on_grid_operands(2, (3, 20)), cpu_targets=_NO_INTDIV),
    # The FP correction's case (off any int8 grid, so the INT targets would test the quantization).
    "exact_quotients": OpTestCase(FunctionModule(torch.floor_divide), exact_quotients(3), targets=HALF_TARGETS),
    # Integer data: INTDIV and the floor correction on int32; int8 through CASTs, wrapping -128 // -1.
    "int32_tensors": OpTestCase(
        FunctionModule(torch.floor_divide), integer_operands(6, torch.int32, (4, 16)), cpu_targets=_NO_INTEGER_DIVISION
    ),
    "int8_trunc": OpTestCase(
        FunctionModule(truncated), integer_operands(7, torch.int8, (2, 24)), cpu_targets=_NO_INTEGER_DIVISION
    ),
    # int8 data by a fraction: a float quotient (the peer's int8_float_scalar). INT quantizes the explicit
    # cast onto the step-1 grid its codes are (exact), then one TABLE; FP casts and floors.
    "int8_by_fraction": OpTestCase(
        FunctionModule(integers_floored_by_fraction), (integer_operands(10, torch.int8, (4, 8))[0],)
    ),
    # div.Tensor_mode with rounding_mode=None: a true division (FP a * RECIPROCAL(b), INT one TABLE).
    "mode_none_by_number": OpTestCase(FunctionModule(halved), random_inputs(4, (4, 8))),
    # ... by a tensor: rewritten at pt2e as x * reciprocal(y) (the peer's mode_none cases).
    "mode_none_by_tensor": OpTestCase(FunctionModule(true_division), (random_inputs(8, (2, 6))[0], random_inputs(9, (2, 6))[0].abs() + 0.5)),
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
    annotate=annotate,
    quantized_on=quantized_on,
    lower=lower,
    test_cases=TEST_CASES,
)
