"""What amax and amin share: TOSA REDUCE_MAX / REDUCE_MIN over the listed dims.

TOSA reduces one axis at a time and keeps it with size 1; the node's own shape (keepdim or not) comes
last, by a RESHAPE. An extremum is one of its inputs, so in the INT profile REDUCE_MAX / REDUCE_MIN run
on the int8 values themselves and the output keeps the input's grid (the quantizer shares it).
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.axis_reduction import reduce
from arm.ops.common.op_test_case import OpTestCase
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def listed_dims(node: Node) -> list[int]:
    """amax / amin(x, dim=[], keepdim): the dims listed, normalized; none listed means all."""
    rank = len(shape_of(node.args[0]))
    dims = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", [])
    return sorted({dim % rank for dim in dims}) if dims else list(range(rank))


def extremum_support(
    node: Node, spec: TosaSpecification, result_shape: tuple[int, ...], *, u55_needs_rank4: bool
) -> str | None:
    """Whether REDUCE_MAX / REDUCE_MIN of ``node.args[0]`` to ``result_shape`` lowers (amax/amin, max/min.dim)."""
    x = node.args[0]
    shape = shape_of(x)
    departs_on_u55 = u55_needs_rank4 and spec.has("u55") and (len(shape) != 4 or len(result_shape) != 4)
    return first_reason(
        None if result_shape else f"{describe(node)}: a 0-d result is not lowered; reduce with keepdim=True",
        (
            f"{describe(node)}: on the U55, Vela 5.2.0's command stream for this reduction of shape {shape} to "
            f"{result_shape} departs from the TOSA reference model on the NPU model (rank 4 with keepdim=True "
            "matches); it runs on the CPU"
        )
        if departs_on_u55
        else None,
        profile_reason(node, spec, [x]),
        rank_reason(node, shape),
    )


def annotate_extremum(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def extremum_reduction_op(
    name: str,
    op: ts.Op,
    *,
    edge_targets: tuple[object, ...],
    aten_targets: tuple[torch._ops.OpOverload, ...],
    test_cases: dict[str, OpTestCase],
    u55_needs_rank4: bool = False,
) -> ArmOp:
    """The ArmOp of one extremum reduction, ``op`` being REDUCE_MAX or REDUCE_MIN.

    ``u55_needs_rank4``: on the U55 the command stream departs unless input and output are rank 4
    (REDUCE_MIN of [1, 6, 10] or [2, 6, 10] along any axis, or of [1, 3, 6, 10] along W without keepdim:
    most values differ, by up to 78; rank 4 with keepdim along H or W matches), so other nodes stay on
    the CPU there.
    """

    def support(node: Node, spec: TosaSpecification) -> str | None:
        return extremum_support(node, spec, shape_of(node), u55_needs_rank4=u55_needs_rank4)

    def lower(node: Node, ctx: LoweringContext) -> TosaValue:
        value = ctx.value(node.args[0])
        if ctx.spec.is_int:
            # Shared with the input by the quantizer; a foreign annotation may still ask for a rescale.
            value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
        for dim in listed_dims(node):
            value = reduce(ctx.graph, op, value, dim, name=f"{node.name}_{name}{dim}")
        shape = shape_of(node)
        return value if value.shape == shape else reshape(ctx.graph, value, shape, name=node.name)

    return ArmOp(
        name=name,
        edge_targets=edge_targets,
        aten_targets=aten_targets,
        support=support,
        annotate=annotate_extremum,
        lower=lower,
        test_cases=test_cases,
    )
