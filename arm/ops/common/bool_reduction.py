"""What any and all share: TOSA REDUCE_ANY / REDUCE_ALL of a bool tensor over the listed dims.

TOSA reduces one axis at a time and keeps it with size 1; the node's own shape (keepdim or not) comes
last, by a RESHAPE. Bool tensors are not quantized, so INT and FP lower alike. The U55 has no bool
reductions (nor the comparisons that make bool tensors); the U85 runs them, bool graph inputs and
outputs included.
"""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import OpTestCase
from arm.ops.common.support import describe, dtype_of, first_reason, rank_reason
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.specification import TosaSpecification

_ATTRIBUTES = {
    ts.Op.REDUCE_ANY: lambda attribute, axis: attribute.ReduceAnyAttribute(axis),
    ts.Op.REDUCE_ALL: lambda attribute, axis: attribute.ReduceAllAttribute(axis),
}


def reduced_dims(node: Node) -> list[int]:
    """any.dim(x, dim), any.dims(x, dims), any(x): the dims reduced, normalized; none listed means all."""
    rank = len(shape_of(node.args[0]))
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    if dims is None:
        return list(range(rank))
    dims = [dims] if isinstance(dims, int) else list(dims)
    return sorted({dim % rank for dim in dims}) if dims else list(range(rank))


def _support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    if spec.has("u55"):
        return f"{describe(node)}: Ethos-U55/U65 have no bool reductions; it runs on the CPU"
    return first_reason(
        None if dtype_of(x) == torch.bool else (
            f"{describe(node)}: input {x.name} is {dtype_of(x)}; only bool tensors are reduced (compare first, e.g. x != 0)"
        ),
        rank_reason(node, shape_of(x)),
    )


def _no_annotation(node: Node, config: QuantizationConfig) -> None:
    """Bool tensors are not quantized."""


def bool_reduction_op(
    name: str,
    op: ts.Op,
    *,
    edge_targets: tuple[object, ...],
    aten_targets: tuple[torch._ops.OpOverload, ...],
    test_cases: dict[str, OpTestCase],
    keep_in_edge: tuple[torch._ops.OpOverload, ...] = (),
) -> ArmOp:
    """The ArmOp of one bool reduction, ``op`` being REDUCE_ANY or REDUCE_ALL."""

    def lower(node: Node, ctx: LoweringContext) -> TosaValue:
        value = ctx.value(node.args[0])
        for dim in reduced_dims(node):
            shape = tuple(1 if axis == dim else size for axis, size in enumerate(value.shape))
            output = ctx.graph.add_tensor(f"{node.name}_{name}{dim}", shape, np.dtype(np.bool_))
            attribute = ts.TosaSerializerAttribute()
            _ATTRIBUTES[op](attribute, dim)
            ctx.graph.add_op(op, [value], [output], attribute, axis=dim)
            value = output
        return value if value.shape == shape_of(node) else reshape(ctx.graph, value, shape_of(node), name=node.name)

    return ArmOp(
        name=name,
        edge_targets=edge_targets,
        aten_targets=aten_targets,
        support=_support,
        annotate=_no_annotation,
        lower=lower,
        test_cases=test_cases,
        keep_in_edge=keep_in_edge,
    )
