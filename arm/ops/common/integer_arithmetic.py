"""Arithmetic on int32 tensors that hold data, not quantized reals: one TOSA operator, no scales.

``torch.eye(n, dtype=torch.int32) + x`` with an int32 ``x``, an int32 ``x * y`` or ``clamp`` of int32
values: the quantizer observes none of these (they are not float), so they reach the partitioner as
integer nodes with integer inputs. TOSA's INT profile has ADD, SUB, MUL (shift 0), MAXIMUM and MINIMUM
on int32 exactly as PyTorch computes them while no result leaves int32 (TOSA requires that; PyTorch
would wrap), and Vela runs them on the U55 and the U85. The FP profile has no integer arithmetic, and
int8/int16 data would need casts to int32 and back, so those stay on the CPU with a reason.

Op files use it beside their quantized path: ``is_integer_arithmetic(node)`` picks the path, then
``integer_support`` and ``integer_operands``. Data movement (SLICE, CONCAT, RESHAPE, TRANSPOSE) takes
int8 and int16 as well: ``integer_data_support``.
"""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.elementwise import AttributeSetter, emit
from arm.ops.common.support import describe, dtype_of, rank_reason
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

_INTEGERS = (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8)


def _tensors(node: Node) -> list[Node]:
    return [arg for arg in node.args if isinstance(arg, Node)] + [node]


def is_integer_arithmetic(node: Node) -> bool:
    """The node computes on integer tensors: its result and every tensor operand are integers."""
    return all(dtype_of(tensor) in _INTEGERS for tensor in _tensors(node))


def integer_support(node: Node, spec: TosaSpecification) -> str | None:
    """int32 operands and result, in the INT profile; numbers are fine (they become int32 constants)."""
    if spec.is_fp:
        return (
            f"{describe(node)}: {dtype_of(node)} arithmetic; {spec} has no integer arithmetic (TOSA has it in "
            "the INT profile), so it runs on the CPU"
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


def integer_data_support(node: Node, spec: TosaSpecification) -> str | None:
    """For ops that only move integer elements: int8, int16 or int32 throughout, in the INT profile."""
    if spec.is_fp:
        return f"{describe(node)}: {dtype_of(node)} data; {spec} moves float tensors only (TOSA moves integers in the INT profile)"
    movable = (torch.int8, torch.int16, torch.int32)
    other = [f"{tensor.name} is {dtype_of(tensor)}" for tensor in _tensors(node) if dtype_of(tensor) not in movable]
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
