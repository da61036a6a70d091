"""What amax and amin share: TOSA REDUCE_MAX / REDUCE_MIN over the listed dims.

TOSA reduces one axis at a time and keeps it with size 1; the node's own shape (keepdim or not, 0-d
for a reduction over every dim) comes last, by a RESHAPE. An extremum is one of its inputs, so in the
INT profile REDUCE_MAX / REDUCE_MIN run on the int8 values themselves and the output keeps the input's
grid (the quantizer shares it).

On the U55, Vela 5.2.0's REDUCE_MIN stream is right only for rank 4 along the third axis, with the
result in that same shape (see ``extremum_reduction_op``): there a reduction over contiguous dims
reshapes the input to [1, before, reduced, after], one REDUCE_MIN along axis 2 gives
[1, before, 1, after], and the node is lowered only where that is its result as Vela pads shapes to
rank 4 (leading ones): a keepdim reduction along the third of four dims, or one whose dims before the
reduced ones are all 1 (``x.amin(0)`` of a vector, to 0-d). Every other int8 REDUCE_MIN on the U55 is
computed through REDUCE_MAX, whose U55 stream is right in every shape the op cases hold: the complement
``-1 - c`` of an int8 code reverses its order and stays in int8 (127..-128), so
``min(c) = -1 - max(-1 - c)``, one 256-entry TABLE before and after the REDUCE_MAX (each exact).
int16 codes (a16w8) have no TABLE of that width here and keep the rank-4 rule.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.axis_reduction import reduce
from arm.ops.common.op_test_case import OpTestCase
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.table import table
from arm.ops.common.unary import int8_reason
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


def _contiguous(dims: list[int]) -> bool:
    return dims == list(range(dims[0], dims[0] + len(dims)))


def rank4_view(shape: tuple[int, ...], dims: list[int]) -> tuple[int, int, int, int]:
    """[1, before, reduced, after]: ``shape`` with its contiguous ``dims`` merged into axis 2."""
    first, last = dims[0], dims[-1] + 1
    return (1, math.prod(shape[:first]), math.prod(shape[first:last]), math.prod(shape[last:]))


def _u55_rank4_result(shape: tuple[int, ...], dims: list[int], result_shape: tuple[int, ...]) -> bool:
    """The rank-4 view's reduction [1, before, 1, after] is ``result_shape`` padded to rank 4 with leading ones."""
    if not _contiguous(dims) or len(result_shape) > 4:
        return False
    _, before, _, after = rank4_view(shape, dims)
    return (1,) * (4 - len(result_shape)) + tuple(result_shape) == (1, before, 1, after)


def extremum_support(
    node: Node, spec: TosaSpecification, dims: list[int], result_shape: tuple[int, ...], *, u55_needs_rank4: bool
) -> str | None:
    """Whether REDUCE_MAX / REDUCE_MIN of ``node.args[0]`` over ``dims`` to ``result_shape`` lowers
    (amax/amin, max/min.dim)."""
    x = node.args[0]
    shape = shape_of(x)
    departs_on_u55 = (
        u55_needs_rank4
        and spec.has("u55")
        and not _u55_rank4_result(shape, dims, result_shape)
        and int8_reason(node, spec, [x]) is not None
    )
    return first_reason(
        (
            f"{describe(node)}: on the U55, Vela 5.2.0's command stream for this reduction of shape {shape} over "
            f"dims {dims} to {result_shape} departs from the TOSA reference model on the NPU model (it matches "
            "for one rank-4 reduction along the third axis whose result keeps that shape: keepdim=True); int8 "
            "takes REDUCE_MAX of the complemented codes instead, which needs a TABLE int16 codes have not; it runs "
            "on the CPU"
        )
        if departs_on_u55
        else None,
        profile_reason(node, spec, [x]),
        rank_reason(node, shape),
    )


def lower_extremum(
    node: Node,
    ctx: LoweringContext,
    op: ts.Op,
    dims: list[int],
    result_shape: tuple[int, ...],
    *,
    u55_needs_rank4: bool,
    name: str,
) -> TosaValue:
    """``op`` of ``node.args[0]`` over ``dims``, shaped ``result_shape``. ``u55_needs_rank4`` (REDUCE_MIN):
    on the U55 as one rank-4 reduction along axis 2 where that is the result's shape, else as REDUCE_MAX
    of the int8 codes' complements, complemented back (the module docstring)."""
    on_u55 = u55_needs_rank4 and ctx.spec.has("u55")
    rank4 = on_u55 and _u55_rank4_result(shape_of(node.args[0]), dims, result_shape)
    complemented = on_u55 and not rank4
    value = ctx.value(node.args[0])
    if ctx.spec.is_int:
        # Shared with the input by the quantizer; a foreign annotation may still ask for a rescale.
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    if complemented:
        flipped = table(ctx.graph, value, _COMPLEMENT, name=f"{node.name}_complement", qparams=value.qparams)
        largest = lower_reduction(ctx, flipped, ts.Op.REDUCE_MAX, dims, rank4=False, name=f"{node.name}_{name}")
        smallest = table(ctx.graph, largest, _COMPLEMENT, name=f"{node.name}_{name}_min", qparams=value.qparams)
        value = smallest
    else:
        value = lower_reduction(ctx, value, op, dims, rank4=rank4, name=f"{node.name}_{name}")
    return value if value.shape == result_shape else reshape(ctx.graph, value, result_shape, name=node.name)


# -1 - c for the int8 codes c = -128..127 (TABLE's index order): the order reversed, within int8.
_COMPLEMENT = (-1 - np.arange(-128, 128)).astype(np.int8)


def lower_reduction(
    ctx: LoweringContext, value: TosaValue, op: ts.Op, dims: list[int], *, rank4: bool, name: str
) -> TosaValue:
    """``op`` of ``value`` over ``dims``, each kept with size 1 (``rank4``: as one rank-4 reduction)."""
    if rank4:
        value = reshape(ctx.graph, value, rank4_view(value.shape, dims), name=f"{name}_rank4")
        return reduce(ctx.graph, op, value, 2, name=name)
    for dim in dims:
        value = reduce(ctx.graph, op, value, dim, name=f"{name}{dim}")
    return value


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
    most values differ, by up to 78; rank 4 with keepdim along H or W matches; [1, 12, 10, 1] along
    axis 2 matches with keepdim, departs reshaped to [2, 6] after it), so there the lowering reduces a
    rank-4 view along axis 2, and only where its result needs no reshape in Vela's rank-4 terms.
    """

    def support(node: Node, spec: TosaSpecification) -> str | None:
        return extremum_support(node, spec, listed_dims(node), shape_of(node), u55_needs_rank4=u55_needs_rank4)

    def lower(node: Node, ctx: LoweringContext) -> TosaValue:
        return lower_extremum(
            node, ctx, op, listed_dims(node), shape_of(node), u55_needs_rank4=u55_needs_rank4, name=name
        )

    return ArmOp(
        name=name,
        edge_targets=edge_targets,
        aten_targets=aten_targets,
        support=support,
        annotate=annotate_extremum,
        lower=lower,
        test_cases=test_cases,
    )
