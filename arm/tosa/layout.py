"""Data layout: the TOSA graph keeps PyTorch's NCHW at its edges, convolutions run in NHWC.

Every layout change of the lowering is a TRANSPOSE made here with one of the two permutations
below, so a later pass can find back-to-back NHWC->NCHW->NHWC pairs by their perms and cancel them.
"""

from __future__ import annotations

import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue

NCHW_TO_NHWC = (0, 2, 3, 1)
NHWC_TO_NCHW = (0, 3, 1, 2)


def transpose(graph: TosaGraph, value: TosaValue, perms: tuple[int, ...], *, name: str) -> TosaValue:
    output = graph.add_tensor(name, tuple(value.shape[p] for p in perms), value.dtype, value.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.TransposeAttribute(list(perms))
    graph.add_op(ts.Op.TRANSPOSE, [value], [output], attribute)
    return output


def to_nhwc(graph: TosaGraph, value: TosaValue) -> TosaValue:
    """Names the result ``<value>_to_nhwc``."""
    _require_rank4(value)
    return transpose(graph, value, NCHW_TO_NHWC, name=f"{value.name}_to_nhwc")


def to_nchw(graph: TosaGraph, value: TosaValue, *, name: str) -> TosaValue:
    """``name`` is the tensor name the NCHW result should carry (usually the FX node's name)."""
    _require_rank4(value)
    return transpose(graph, value, NHWC_TO_NCHW, name=name)


def _require_rank4(value: TosaValue) -> None:
    if value.rank != 4:
        raise ValueError(f"layout change of {value.name} needs a rank-4 tensor, got shape {value.shape}")
