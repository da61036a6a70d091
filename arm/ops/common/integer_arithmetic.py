"""Arithmetic on int32 tensors that hold data, not quantized reals: one TOSA operator, no scales.

``torch.eye(n, dtype=torch.int32) + x`` with an int32 ``x``, an int32 ``x * y`` or ``clamp`` of int32
values: the quantizer observes none of these (they are not float), so they reach the partitioner as
integer nodes with integer inputs. TOSA's INT profile has ADD, SUB, MUL (shift 0), MAXIMUM and MINIMUM
on int32 exactly as PyTorch computes them while no result leaves int32 (TOSA requires that; PyTorch
would wrap), and Vela runs them on the U55 and the U85. TOSA 1.0's profile table puts int32 ADD, SUB
and MUL in the FP profile too (in both: index and shape arithmetic needs them), MAXIMUM and MINIMUM
on int32 in the INT profile only, so a float target runs int32 add, sub and mul and keeps an int32
clamp on the CPU. int8/int16 data would need casts to int32 and back, so those stay on the CPU with a
reason.

Op files use it beside their quantized path: ``is_integer_arithmetic(node)`` picks the path, then
``integer_support`` and ``integer_operands``. Data movement (SLICE, CONCAT, RESHAPE, TRANSPOSE) takes
int8 and int16 as well: ``integer_data_support``.

Division (``divide_int32``): TOSA's INTDIV truncates towards zero, and PyTorch's floor division (``//``,
``torch.remainder``) rounds down. The floored quotient is the truncated one minus 1 where the remainder
``a - q b`` is nonzero and its sign differs from the divisor's: sign(r) * sign(b) is -1 exactly there.
Signs are MAXIMUM/MINIMUM clamps to [-1, 1] and the product of two of them cannot overflow (r * b
could: |r| < |b| only bounds it by b squared). Vela 5.2.0 compiles INTDIV for the U85 and leaves it on
the CPU for the U55/U65 (its "Div" cannot run on the NPU), so ``INTDIV_REASON`` keeps it off there.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.elementwise import AttributeSetter, emit
from arm.ops.common.fixed_point import Int32Emitter
from arm.ops.common.support import describe, dtype_of, rank_reason
from arm.tosa.cast import cast
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

_INTEGERS = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


def _tensors(node: Node) -> list[Node]:
    return [arg for arg in node.args if isinstance(arg, Node)] + [node]


def is_integer_arithmetic(node: Node) -> bool:
    """The node computes on integer tensors: its result and every tensor operand are integers."""
    return all(dtype_of(tensor) in _INTEGERS for tensor in _tensors(node))


# The aten operators whose int32 TOSA form (ADD, SUB, MUL) TOSA 1.0 has in the FP profile as well.
_IN_BOTH_PROFILES = frozenset({"add", "sub", "mul"})


def integer_support(node: Node, spec: TosaSpecification) -> str | None:
    """int32 operands and result; numbers are fine (they become int32 constants). The FP profile runs
    int32 add, sub and mul only."""
    if spec.is_fp and _aten_name(node) not in _IN_BOTH_PROFILES:
        return (
            f"{describe(node)}: {dtype_of(node)} arithmetic; {spec} has integer ADD, SUB and MUL only (TOSA 1.0 "
            "has int32 MAXIMUM and MINIMUM in the INT profile), so it runs on the CPU"
        )
    other = [f"{tensor.name} is {dtype_of(tensor)}" for tensor in _tensors(node) if dtype_of(tensor) != torch.int32]
    if other:
        return (
            f"{describe(node)}: {', '.join(other)}; TOSA's integer ADD, SUB, MUL, MAXIMUM and MINIMUM take "
            "int32 only (cast the operands to int32)"
        )
    alpha = node.kwargs.get("alpha", 1)
    if alpha != 1:
        return f"{describe(node)}: alpha={alpha} is not supported; scale the operand instead"
    return rank_reason(node, shape_of(node))


def _aten_name(node: Node) -> str | None:
    """``add`` for aten.add.Tensor (and its edge form)."""
    overload = getattr(node.target, "_op", node.target)
    packet = getattr(overload, "overloadpacket", None)
    return getattr(packet, "__name__", None)


def moves_data(node: Node) -> bool:
    """Bool or integer tensors that are not quantized reals, which a data-movement op (TILE, SLICE,
    RESHAPE) copies as they are: TOSA moves bool in every profile, integers in the INT profile."""
    return all(dtype_of(tensor) in _MOVED_TYPES for tensor in _tensors(node))


_MOVED_TYPES = (torch.bool, *_INTEGERS)  # int64 and uint8 too, so that the support rule names them


def moved_data_support(node: Node, spec: TosaSpecification) -> str | None:
    """For a data-movement op on ``moves_data`` tensors: bool anywhere, integers as integer_data_support."""
    if all(dtype_of(tensor) == torch.bool for tensor in _tensors(node)):
        return rank_reason(node, shape_of(node))
    return integer_data_support(node, spec)


def integer_data_support(node: Node, spec: TosaSpecification, tensors: list[Node] | None = None) -> str | None:
    """For ops that only move integer elements: int8, int16 or int32 throughout, in the INT profile.

    ``tensors`` (default: every tensor operand and the result) are the ones that carry the data; a
    ``where``'s bool condition is not among them."""
    if spec.is_fp:
        return f"{describe(node)}: {dtype_of(node)} data; {spec} moves float tensors only (TOSA moves integers in the INT profile)"
    movable = (torch.int8, torch.int16, torch.int32)
    tensors = _tensors(node) if tensors is None else tensors
    other = [f"{tensor.name} is {dtype_of(tensor)}" for tensor in tensors if dtype_of(tensor) not in movable]
    if other:
        return f"{describe(node)}: {', '.join(other)}; integer data moves as int8, int16 or int32 only"
    return rank_reason(node, shape_of(node))


def integer_operands(node: Node, ctx: LoweringContext, args: list[object]) -> list[TosaValue]:
    """``args`` (tensor nodes or numbers) as int32 values at the node's rank."""
    rank = len(shape_of(node))
    values = []
    for index, arg in enumerate(args):
        if isinstance(arg, Node):
            values.append(ctx.value(arg, rank=rank))
        else:
            data = np.full((1,) * rank, int(arg), dtype=np.int32)
            values.append(ctx.graph.add_const(f"{node.name}_operand{index}", data))
    return values



def lower_integer_binary(node: Node, ctx: LoweringContext, op: ts.Op, set_attribute: AttributeSetter) -> TosaValue:
    """One int32 ADD, SUB, MUL (shift 0), MAXIMUM or MINIMUM of the node's two operands."""
    inputs: list[TosaValue | str] = list(integer_operands(node, ctx, list(node.args[:2])))
    if op == ts.Op.MUL:
        inputs.append(ctx.graph.add_scalar_const(f"{node.name}_shift", 0, np.int8))
    return emit(ctx, op, set_attribute, inputs, name=node.name, shape=shape_of(node), dtype=np.dtype(np.int32))


_INT32 = np.dtype(np.int32)
_DIVISION_TYPES = (torch.int8, torch.int16, torch.int32)


def intdiv_reason(node: Node, spec: TosaSpecification) -> str | None:
    """None where the target runs TOSA INTDIV: the INT profile, and on Ethos-U the U85 only."""
    if spec.is_fp:
        return (
            f"{describe(node)}: integer division needs TOSA's INTDIV, which {spec} lacks (TOSA has it in the INT "
            "profile), so it runs on the CPU"
        )
    if spec.has("u55"):
        return (
            f"{describe(node)}: integer division needs TOSA's INTDIV, which Vela 5.2.0 cannot run on the "
            "Ethos-U55/U65 (it leaves the Div on the CPU); it runs on the CPU"
        )
    return None


def integer_division_support(node: Node, spec: TosaSpecification) -> str | None:
    """Division of int8, int16 or int32 tensors (and int numbers), widened to int32 for INTDIV."""
    other = [f"{tensor.name} is {dtype_of(tensor)}" for tensor in _tensors(node) if dtype_of(tensor) not in _DIVISION_TYPES]
    if other:
        return f"{describe(node)}: {', '.join(other)}; integer division is lowered for int8, int16 and int32 only"
    return intdiv_reason(node, spec) or rank_reason(node, shape_of(node))


@dataclasses.dataclass(frozen=True)
class Int32Division:
    """Quotient and remainder of an int32 division, rounded one way: dividend = quotient * divisor + remainder."""

    quotient: TosaValue
    remainder: TosaValue


class Int32Ops:
    """int32 elementwise operators of one lowering, named after its node (every Ethos-U runs them).

    The data path's view of ``Int32Emitter``: operators are numbered instead of named by the caller,
    and a number operand becomes an int32 constant."""

    def __init__(self, ctx: LoweringContext, name: str, rank: int) -> None:
        self.ctx = ctx
        self._emitter = Int32Emitter(ctx.graph, name, rank)
        self._count = 0

    def constant(self, number: int) -> TosaValue:
        return self._emitter.constant(number, self._fresh("const"))

    def add(self, lhs: TosaValue, rhs: TosaValue | int) -> TosaValue:
        return self._emitter.add(lhs, self._operand(rhs), self._fresh("add"))

    def sub(self, lhs: TosaValue, rhs: TosaValue | int) -> TosaValue:
        return self._emitter.sub(lhs, self._operand(rhs), self._fresh("sub"))

    def mul(self, lhs: TosaValue, rhs: TosaValue | int) -> TosaValue:
        return self._emitter.mul(lhs, self._operand(rhs), self._fresh("mul"), shift=0)

    def maximum(self, lhs: TosaValue, rhs: TosaValue | int) -> TosaValue:
        return self._emitter.maximum(lhs, self._operand(rhs), self._fresh("max"))

    def minimum(self, lhs: TosaValue, rhs: TosaValue | int) -> TosaValue:
        return self._emitter.minimum(lhs, self._operand(rhs), self._fresh("min"))

    def sign(self, value: TosaValue) -> TosaValue:
        """-1, 0 or 1: ``value`` clamped to [-1, 1] (exact on integers)."""
        return self.minimum(self.maximum(value, -1), 1)

    def intdiv(self, dividend: TosaValue, divisor: TosaValue) -> TosaValue:
        return self._emitter.intdiv(dividend, divisor, self._fresh("intdiv"))

    def _operand(self, value: TosaValue | int) -> TosaValue:
        return self.constant(value) if isinstance(value, int) else value

    def _fresh(self, what: str) -> str:
        self._count += 1
        return f"{what}{self._count}"


def divide_int32(ops: Int32Ops, dividend: TosaValue, divisor: TosaValue, *, rounding: str) -> Int32Division:
    """``dividend / divisor`` on int32, ``rounding`` "trunc" (TOSA INTDIV) or "floor" (PyTorch's ``//``).

    The divisor must be nonzero everywhere (INTDIV's own requirement)."""
    if rounding not in ("trunc", "floor"):
        raise ValueError(f"integer division rounds 'trunc' or 'floor', not {rounding!r}")
    truncated = ops.intdiv(dividend, divisor)
    remainder = ops.sub(dividend, ops.mul(truncated, divisor))
    if rounding == "trunc":
        return Int32Division(truncated, remainder)
    # -1 where the remainder is nonzero and of the other sign than the divisor, else 0.
    correction = ops.minimum(ops.mul(ops.sign(remainder), ops.sign(divisor)), 0)
    return Int32Division(ops.add(truncated, correction), ops.sub(remainder, ops.mul(correction, divisor)))


def widened_operand(ctx: LoweringContext, node: Node, arg: object, rank: int) -> TosaValue:
    """A tensor argument (int8, int16 or int32) or an int number as an int32 value at ``rank``."""
    if not isinstance(arg, Node):
        return ctx.graph.add_const(f"{node.name}_number", np.full((1,) * rank, int(arg), dtype=np.int32))
    value = ctx.value(arg, rank=rank)
    if value.dtype == _INT32:
        return value
    return cast(ctx.graph, value, _INT32, name=f"{node.name}_{arg.name}_int32")


_NARROW_TYPES = {torch.int8: np.dtype(np.int8), torch.int16: np.dtype(np.int16)}


def narrowed_result(ops: Int32Ops, node: Node, value: TosaValue, *, may_overflow: bool) -> TosaValue:
    """An int32 result in the node's own integer type, wrapping as PyTorch does.

    Only a quotient can leave the narrow range, by one: -128 // -1 is 128, which PyTorch wraps to -128.
    TOSA CAST keeps the low bits, but Vela 5.2.0 saturates a narrowing cast (arm/ops/to_copy.py), so the
    wrap is done before the cast: 2**bits is taken off where the value exceeds the type's maximum."""
    dtype = dtype_of(node)
    if dtype == torch.int32:
        return value
    if may_overflow:
        largest = torch.iinfo(dtype).max
        excess = ops.maximum(ops.sub(value, largest), 0)  # 1 where the quotient is largest + 1, else 0
        value = ops.sub(value, ops.mul(excess, 2 * (largest + 1)))
    return cast(ops.ctx.graph, value, _NARROW_TYPES[dtype], name=node.name)


def lower_integer_division(node: Node, ctx: LoweringContext, *, rounding: str, remainder: bool) -> TosaValue:
    """The quotient (``remainder=False``) or the remainder of the node's two integer operands."""
    rank = len(shape_of(node))
    dividend, divisor = (widened_operand(ctx, node, arg, rank) for arg in node.args[:2])
    ops = Int32Ops(ctx, node.name, rank)
    division = divide_int32(ops, dividend, divisor, rounding=rounding)
    if remainder:
        return narrowed_result(ops, node, division.remainder, may_overflow=False)
    return narrowed_result(ops, node, division.quotient, may_overflow=True)
