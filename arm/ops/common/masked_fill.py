"""Replacing masked elements by one number: what masked_fill, tril and triu share.

FP: SELECT(mask, fill, x), so a -inf fill (attention masks) stays -inf and x's infinities are never
multiplied by 0. INT: the output keeps x's grid (the quantizer shares it), the fill becomes its code
on that grid, saturated as the quantized module saturates it. A constant mask (a causal mask, tril's
triangle) is arithmetic on the zero-point-free codes, ``(q - zp) * keep + (fill_code - zp) * mask`` in
int32 and one RESCALE of scale 1, which every target runs (the U55 has no SELECT); a mask computed at
run time takes a SELECT of the codes.
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.elementwise import emit
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import from_int32, requantize, to_int32


def fill_masked(
    ctx: LoweringContext, node: Node, x: Node, mask: Node | np.ndarray, fill: float, *, name: str
) -> TosaValue:
    """``x`` with the elements where ``mask`` (a bool node, or a constant array) is true replaced by ``fill``."""
    shape = shape_of(node)
    rank = len(shape)
    if isinstance(mask, Node) and ctx.is_constant(mask):
        mask = ctx.constant(mask).numpy()
    if ctx.spec.is_fp:
        condition = _mask_value(ctx, mask, rank, name=f"{name}_mask")
        filler = ctx.graph.add_const(f"{name}_fill", np.full((1,) * rank, fill, np.float32))
        return _select(ctx, [condition, filler, ctx.value(x, rank=rank)], shape, np.dtype(np.float32), name=name)
    output = ctx.output_qparams(node)
    value = requantize(ctx.graph, ctx.value(x, rank=rank), name=f"{name}_rescaled", output=output)
    info = np.iinfo(output.dtype)
    code = int(np.clip(np.round(fill / output.scale) + output.zero_point, info.min, info.max))
    if isinstance(mask, Node):
        condition = _mask_value(ctx, mask, rank, name=f"{name}_mask")
        filler = ctx.graph.add_const(f"{name}_fill", np.full((1,) * rank, code, output.dtype))
        return _select(ctx, [condition, filler, value], shape, output.dtype, name=name).with_qparams(output)
    return _fill_constant_mask(ctx, value, mask, code, name=name)


def _mask_value(ctx: LoweringContext, mask: Node | np.ndarray, rank: int, *, name: str) -> TosaValue:
    if isinstance(mask, Node):
        return ctx.value(mask, rank=rank)
    return ctx.graph.add_const(name, mask.reshape((1,) * (rank - mask.ndim) + mask.shape).astype(np.bool_))


def _select(ctx: LoweringContext, inputs: list[TosaValue], shape: tuple[int, ...], dtype: np.dtype, *, name: str) -> TosaValue:
    return emit(ctx, ts.Op.SELECT, ts.TosaSerializerAttribute.SelectAttribute, inputs, name=name, shape=shape, dtype=dtype)


def _fill_constant_mask(ctx: LoweringContext, value: TosaValue, mask: np.ndarray, code: int, *, name: str) -> TosaValue:
    """(q - zp) * keep + (code - zp) * mask in int32, back onto value's own grid (scale 1: exact)."""
    qparams = value.qparams
    mask = mask.reshape((1,) * (value.rank - mask.ndim) + mask.shape).astype(np.int32)
    codes = to_int32(ctx.graph, value, name=f"{name}_codes", scale=1.0)
    kept = ctx.graph.add_tensor(f"{name}_kept", value.shape, np.int32)
    attribute = ts.TosaSerializerAttribute()
    attribute.MulAttribute()
    operands = [codes, ctx.graph.add_const(f"{name}_keep", 1 - mask), ctx.graph.add_scalar_const(f"{name}_shift", 0, np.int8)]
    ctx.graph.add_op(ts.Op.MUL, operands, [kept], attribute)
    result = kept
    if code != qparams.zero_point and mask.any():
        result = ctx.graph.add_tensor(f"{name}_filled", value.shape, np.int32)
        attribute = ts.TosaSerializerAttribute()
        attribute.AddAttribute()
        filler = ctx.graph.add_const(f"{name}_fill", (code - qparams.zero_point) * mask)
        ctx.graph.add_op(ts.Op.ADD, [kept, filler], [result], attribute)
    return from_int32(ctx.graph, result, name=name, accumulator_scales=[qparams.scale], output=qparams)
