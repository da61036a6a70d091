"""Floored division (floor_divide, div with rounding_mode='floor') and its remainder, in float.

FP: TOSA has no float division; a * RECIPROCAL(b) can land a hair below an exact integer quotient
(49 * (1/49) = 0.99999994), which FLOOR would then take down a whole unit. So the quotient is
corrected once: with r = a - q b, q is one too big where r and b differ in sign, one too small
where |r| >= |b|, as torch's floored division defines it.

INT: with a number as the divisor (x // 0.5, x % 3), the op is a one-input function of the int8
input: one TABLE, exact as for the other float functions, on every target. Two quantized tensors are
divided exactly on their codes: a / b = (sa / sb) (A / B) with A, B the codes less their zero points,
so floor(a / b) = floor(A P / (B Q)) with P / Q the ratio of the steps as two integers below 2**22
(|A P| and |B Q| stay below 2**30): one int32 INTDIV and the floor correction of
common/integer_arithmetic.py, then the quotient (or the remainder A P - B Q q, whose step is sa / P)
rescaled onto the output grid. Integer tensors (int8, int16, int32 data) divide the same way without
scales. Both need INTDIV, which Vela runs on the U85 and not on the U55, where they stay on the CPU.
"""

from __future__ import annotations

import re
from typing import Callable

import torch
from torch.fx import Node

from arm.ops.common.float_math import FloatMath
from arm.ops.common.elementwise import annotate_binary
from arm.ops.common.float_unary import lower_function_table, on_int8_grid
from arm.ops.common.integer_arithmetic import (
    Int32Ops,
    divide_int32,
    integer_division_support,
    intdiv_reason,
    is_integer_arithmetic,
    lower_integer_division,
)
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.ops.common.unary import annotate_unary, int8_reason
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, numpy_dtype_of, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import from_int32, to_int32
from arm.tosa.specification import TosaSpecification

Operand = TosaValue | float
_FOLDED_NAME = re.compile(r"_folded(_\d+)?$")
# (dividend, divisor) -> result, the float operation the INT table evaluates.
TorchDivision = Callable[[torch.Tensor, "torch.Tensor | float"], torch.Tensor]
# The steps' ratio sa / sb as P / Q with P, Q <= 2**22: an int8 code less its zero point is at most 255
# in size, so A * P and B * Q stay below 2**30, and the remainder A P - B Q q below 2**31.
_RATIO_BITS = 22
_ZERO_DIVISOR_QUOTIENT = 1 << 30


def floored_quotient(m: FloatMath, a: Operand, b: Operand) -> TosaValue:
    quotient = m.floor(m.div(a, b))
    remainder_times_b = m.mul(m.sub(a, m.mul(quotient, b)), b)
    too_big = m.greater(0.0, remainder_times_b)  # r and b differ in sign
    too_small = m.greater_equal(remainder_times_b, m.mul(b, b))  # |r| >= |b|, same sign
    return m.add(m.sub(quotient, m.select(too_big, 1.0, 0.0)), m.select(too_small, 1.0, 0.0))


def floored_remainder(m: FloatMath, a: Operand, b: Operand) -> TosaValue:
    """a - b floor(a / b): the sign of the divisor, as Python's % and torch.remainder."""
    return m.sub(a, m.mul(floored_quotient(m, a, b), b))


def is_lifted_number(arg: object) -> bool:
    """A number written as a tensor by export (x // 0.5 becomes div(x, _lifted_tensor_constant0)), or
    folded into one before partitioning (an int divisor cast to float: ``..._folded``, see
    arm/passes/fold_constants.py)."""
    if not isinstance(arg, Node) or arg.op != "placeholder":
        return False
    if "lifted_tensor_constant" not in str(arg.target) and not _FOLDED_NAME.search(str(arg.target)):
        return False
    value = arg.meta.get("val")
    return isinstance(value, torch.Tensor) and value.numel() == 1


def is_tensor_divisor(divisor: object) -> bool:
    return isinstance(divisor, Node) and not is_lifted_number(divisor)


def support(node: Node, spec: TosaSpecification) -> str | None:
    dividend, divisor = node.args[:2]
    if is_integer_arithmetic(node):
        return integer_division_support(node, spec)
    if dtype_of(node) != torch.float32:
        return f"{describe(node)}: {dtype_of(node)} division runs on the CPU (lowered for float32 and integer tensors)"
    if spec.is_fp:
        return first_reason(profile_reason(node, spec), rank_reason(node, shape_of(node)))
    if is_tensor_divisor(divisor):
        return first_reason(
            intdiv_reason(node, spec),
            profile_reason(node, spec, [dividend, divisor]),
            rank_reason(node, shape_of(node)),
            int8_reason(node, spec, [dividend, divisor]),
        )
    return first_reason(
        profile_reason(node, spec, [dividend]),
        rank_reason(node, shape_of(node)),
        int8_reason(node, spec, [dividend]),
    )


def quantized_on(node: Node, spec: TosaSpecification) -> bool:
    """A division by a tensor where the target has no INTDIV (the U55) runs on the CPU in any case, and keeps
    float there: its quotient by zero is infinite, which ExecuTorch's quantize kernel (and the runtime's, which
    matches it bit for bit) turns into the grid's lowest code (a float-to-int64 conversion out of range), not
    the end the quantized module saturates to."""
    return not (is_tensor_divisor(node.args[1]) and spec.is_int and intdiv_reason(node, spec) is not None)


def annotate_division(node: Node, config: QuantizationConfig) -> None:
    """A number divisor needs nothing (the op is a function of the dividend); a tensor divisor is observed
    too. Integer tensors are data, and the quantizer drops what it annotated on them."""
    if isinstance(node.args[1], Node):
        annotate_binary(node, config)
        return
    annotate_unary(node, config)


def lower(
    node: Node,
    ctx: LoweringContext,
    formula: Callable[[FloatMath, Operand, Operand], TosaValue],
    division: TorchDivision,
    *,
    rounding: str = "floor",
    remainder: bool = False,
) -> TosaValue:
    """``formula`` is the FP lowering and ``division`` the function an INT table evaluates; ``rounding``
    ("floor" or "trunc") and ``remainder`` pick what the INTDIV lowerings of two tensors return."""
    dividend, divisor = node.args[:2]
    if is_integer_arithmetic(node):
        return lower_integer_division(node, ctx, rounding=rounding, remainder=remainder)
    if ctx.spec.is_int:
        if is_tensor_divisor(divisor):
            return _lower_quantized_tensors(node, ctx, rounding=rounding, remainder=remainder)
        number = float(ctx.constant(divisor).item()) if isinstance(divisor, Node) else float(divisor)
        return lower_function_table(node, ctx, dividend, lambda tensor: division(tensor, number))
    rank = len(shape_of(node))
    math = FloatMath(ctx, node.name, rank, numpy_dtype_of(node))
    operands = [ctx.value(arg, rank=rank) if isinstance(arg, Node) else float(arg) for arg in (dividend, divisor)]
    return formula(math, *operands)


def _ratio(steps_ratio: float) -> tuple[int, int]:
    """P, Q with P / Q ~ ``steps_ratio`` and both in [1, 2**22]."""
    one = 1 << _RATIO_BITS
    if steps_ratio <= 1.0:
        return max(1, round(steps_ratio * one)), one
    return one, max(1, round(one / steps_ratio))


def _lower_quantized_tensors(node: Node, ctx: LoweringContext, *, rounding: str, remainder: bool) -> TosaValue:
    rank = len(shape_of(node))
    a, b = (ctx.quantized_value(arg, rank=rank) for arg in node.args[:2])
    codes_a = to_int32(ctx.graph, a, name=f"{node.name}_dividend_int32", scale=1.0)
    codes_b = to_int32(ctx.graph, b, name=f"{node.name}_divisor_int32", scale=1.0)
    ops = Int32Ops(ctx, node.name, rank)
    p, q = _ratio(a.qparams.scale / b.qparams.scale)
    # A divisor at its zero point is a real 0, where INTDIV is undefined and PyTorch's quotient infinite,
    # which the output grid saturates. There the division is +-2**30 / 1 instead (the sign of a; 0 / 1
    # for 0 / 0), as far beyond any output grid's end as int32 allows.
    nonzero = ops.minimum(ops.mul(codes_b, codes_b), 1)
    is_zero = ops.sub(ops.constant(1), nonzero)
    infinite = ops.mul(ops.mul(ops.sign(codes_a), is_zero), _ZERO_DIVISOR_QUOTIENT)
    dividend = ops.add(ops.mul(ops.mul(codes_a, p), nonzero), infinite)
    divisor = ops.add(ops.mul(codes_b, q), is_zero)
    division = divide_int32(ops, dividend, divisor, rounding=rounding)
    output = ctx.output_qparams(node)
    if remainder:
        return from_int32(ctx.graph, division.remainder, name=node.name, accumulator_scales=[a.qparams.scale / p], output=output)
    return from_int32(ctx.graph, division.quotient, name=node.name, accumulator_scales=[1.0], output=output)


def on_grid_operands(seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor, torch.Tensor]:
    """A dividend and a nonzero divisor of both signs, each on an int8 grid its observer picks exactly
    (``on_int8_grid``), so INT quantizes neither. The steps' ratio 371 / 213 makes no quotient but 0 an
    integer, so no result sits on a jump of the floor, where a rounding would move it a whole unit."""
    (dividend,) = on_int8_grid(seed, shape, 0.0371)
    generator = torch.Generator().manual_seed(seed + 1)
    codes = torch.randint(1, 128, shape, generator=generator) * (torch.randint(0, 2, shape, generator=generator) * 2 - 1)
    codes.view(-1)[:2] = torch.tensor([-128, 127])
    return dividend, codes.to(torch.float32) * 0.0213
