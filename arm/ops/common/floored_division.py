"""Floored division (floor_divide, div with rounding_mode='floor') and its remainder, in float.

FP: TOSA has no float division; a * RECIPROCAL(b) can land a hair below an exact integer quotient
(49 * (1/49) = 0.99999994), which FLOOR would then take down a whole unit. So the quotient is
corrected once: with r = a - q b, q is one too big where r and b differ in sign, one too small
where |r| >= |b|, as torch's floored division defines it.

INT: with a number as the divisor (x // 0.5, x % 3), the op is a one-input function of the int8
input: one TABLE, exact as for the other float functions. Two tensors have no single-table form and
stay on the CPU, as do integer tensors (TOSA's INTDIV truncates; the floor correction would need
comparisons and SELECT, which the U55 lacks).
"""

from __future__ import annotations

import re
from typing import Callable

import torch
from torch.fx import Node

from arm.ops.common.float_math import FloatMath
from arm.ops.common.float_unary import lower_function_table
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.ops.common.unary import annotate_unary, int8_reason
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, numpy_dtype_of, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

Operand = TosaValue | float
_FOLDED_NAME = re.compile(r"_folded(_\d+)?$")
# (dividend, divisor) -> result, the float operation the INT table evaluates.
TorchDivision = Callable[[torch.Tensor, "torch.Tensor | float"], torch.Tensor]


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


def support(node: Node, spec: TosaSpecification) -> str | None:
    dividend, divisor = node.args[:2]
    if dtype_of(node) != torch.float32:
        return (
            f"{describe(node)}: {dtype_of(node)} division runs on the CPU (TOSA's INTDIV truncates, and "
            "the floor correction needs comparisons and SELECT)"
        )
    if spec.is_fp:
        return first_reason(profile_reason(node, spec), rank_reason(node, shape_of(node)))
    if isinstance(divisor, Node) and not is_lifted_number(divisor):
        return (
            f"{describe(node)}: the divisor {divisor.name} is a tensor; {spec} lowers a division by a number "
            "only (one TABLE), so it runs on the CPU"
        )
    return first_reason(
        profile_reason(node, spec, [dividend]),
        rank_reason(node, shape_of(node)),
        int8_reason(node, spec, [dividend]),
    )


def annotate_dividend(node: Node, config: QuantizationConfig) -> None:
    """The dividend is observed; a number divisor needs nothing, and a tensor one leaves the op on the CPU."""
    if isinstance(node.args[1], Node):
        return
    annotate_unary(node, config)


def lower(
    node: Node,
    ctx: LoweringContext,
    formula: Callable[[FloatMath, Operand, Operand], TosaValue],
    division: TorchDivision,
) -> TosaValue:
    dividend, divisor = node.args[:2]
    if ctx.spec.is_int:
        number = float(ctx.constant(divisor).item()) if isinstance(divisor, Node) else float(divisor)
        return lower_function_table(node, ctx, dividend, lambda tensor: division(tensor, number))
    rank = len(shape_of(node))
    math = FloatMath(ctx, node.name, rank, numpy_dtype_of(node))
    operands = [ctx.value(arg, rank=rank) if isinstance(arg, Node) else float(arg) for arg in (dividend, divisor)]
    return formula(math, *operands)
