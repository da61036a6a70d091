"""The logical operators (and, or, xor, not) on bool tensors as Arm ops: one TOSA LOGICAL_* each.

TOSA 1.0 has LOGICAL_AND/OR/XOR/NOT on bool in both profiles. torch's logical_* also take numbers
(nonzero is true); those inputs stay on the CPU here, with a reason, rather than grow comparisons.
Ethos-U55/U65 have no logical operators; the U85 runs them.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.elementwise import AttributeSetter, emit
from arm.ops.common.support import describe, dtype_of, first_reason, rank_reason
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


@dataclasses.dataclass(frozen=True)
class LogicalOp:
    """A TOSA operator on bool tensors, e.g. LOGICAL_AND."""

    op: ts.Op
    attribute: AttributeSetter

    def support(self, node: Node, spec: TosaSpecification) -> str | None:
        if spec.has("u55"):
            return f"{describe(node)}: Ethos-U55/U65 have no logical operators; it runs on the CPU"
        return first_reason(bool_reason(node), rank_reason(node, shape_of(node)))

    def lower(self, node: Node, ctx: LoweringContext) -> TosaValue:
        inputs = operand_values(node, ctx)
        return emit(
            ctx, self.op, self.attribute, inputs, name=node.name, shape=shape_of(node), dtype=np.dtype(np.bool_)
        )


def bool_reason(node: Node) -> str | None:
    tensors = [arg for arg in node.args if isinstance(arg, Node)] + [node]
    other = [f"{tensor.name} is {dtype_of(tensor)}" for tensor in tensors if dtype_of(tensor) != torch.bool]
    if not other:
        return None
    return (
        f"{describe(node)}: {', '.join(other)}; TOSA's logical operators take bool tensors "
        "(compare with 0 first, e.g. x != 0)"
    )


def operand_values(node: Node, ctx: LoweringContext) -> list[TosaValue]:
    """The node's operands at its output's rank; a number becomes a constant of the tensor operand's type."""
    rank = len(shape_of(node))
    tensor = next(arg for arg in node.args if isinstance(arg, Node))
    dtype = ctx.value(tensor).dtype
    values = []
    for index, arg in enumerate(node.args):
        if isinstance(arg, Node):
            values.append(ctx.value(arg, rank=rank))
        else:
            data = np.full((1,) * rank, arg, dtype=dtype)
            values.append(ctx.graph.add_const(f"{node.name}_operand{index}", data))
    return values


def random_bools(seed: int, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Deterministic bool inputs, about half of them true."""
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.rand(shape, generator=generator) < 0.5 for shape in shapes)
