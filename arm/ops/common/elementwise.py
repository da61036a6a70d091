"""Shared pieces of the binary elementwise ops (add, sub, mul): support, annotation, operands."""

from __future__ import annotations

from typing import Callable

import numpy as np
import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason, tensor_args
from arm.quantizer.annotation import annotate_with_fused_activation
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import is_dequantize
from arm.tosa.rescale import add_sub_common_scale, from_int32, to_int32
from arm.tosa.specification import TosaSpecification

# An unbound attribute setter of tosa_serializer, e.g. ``ts.TosaSerializerAttribute.AddAttribute``.
AttributeSetter = Callable[[ts.TosaSerializerAttribute], None]


def binary_support(node: Node, spec: TosaSpecification) -> str | None:
    alpha = node.kwargs.get("alpha", 1)
    return first_reason(
        profile_reason(node, spec),
        None
        if alpha == 1 or spec.is_fp or alpha > 0
        else f"{describe(node)}: alpha={alpha} is lowered in the INT profile when positive only (it scales the "
        "operand's RESCALE); scale the operand instead",
        None if len(tensor_args(node)) == 2 else f"{describe(node)}: expected two tensor operands",
        rank_reason(node, shape_of(node)),
    )


def annotate_binary(node: Node, config: QuantizationConfig) -> None:
    inputs = {arg: config.activation for arg in tensor_args(node)}
    annotate_with_fused_activation(node, inputs, config.activation)


def operands(node: Node, ctx: LoweringContext) -> tuple[TosaValue, TosaValue]:
    """Both operands at the output's rank (TOSA broadcasts only between equal ranks)."""
    rank = len(shape_of(node))
    if ctx.spec.is_fp:
        lhs, rhs = (ctx.value(arg, rank=rank) for arg in node.args[:2])
        return lhs, rhs
    # A float constant beside an int16 (a16w8) operand is quantized to int16 too.
    int16 = any(isinstance(arg, Node) and is_dequantize(arg) and torch.int16 in arg.args for arg in node.args[:2])
    width = np.dtype(np.int16 if int16 else np.int8)
    lhs, rhs = (ctx.quantized_value(arg, rank=rank, dtype=width) for arg in node.args[:2])
    return lhs, rhs


def emit(
    ctx: LoweringContext,
    op: ts.Op,
    set_attribute: AttributeSetter,
    inputs: list[TosaValue | str],
    *,
    name: str,
    shape: tuple[int, ...],
    dtype: np.dtype,
) -> TosaValue:
    """Adds one single-output operator and returns its output tensor."""
    output = ctx.graph.add_tensor(name, shape, dtype)
    attribute = ts.TosaSerializerAttribute()
    set_attribute(attribute)
    ctx.graph.add_op(op, inputs, [output], attribute)
    return output


def lower_add_sub(node: Node, ctx: LoweringContext, op: ts.Op, set_attribute: AttributeSetter) -> TosaValue:
    """ADD/SUB; in the INT profile both int8 operands move to one int32 grid, the result back to int8."""
    lhs, rhs = operands(node, ctx)
    shape = shape_of(node)
    alpha = node.kwargs.get("alpha", 1)
    if ctx.spec.is_fp and alpha != 1:
        return _with_alpha(ctx, node, op, set_attribute, lhs, rhs, float(alpha))
    if ctx.spec.is_fp:
        return emit(ctx, op, set_attribute, [lhs, rhs], name=node.name, shape=shape, dtype=lhs.dtype)
    # The int32 grid is 2**-22 (the U55: 2**-20; int16 on either side: 2**-15) of twice the larger input
    # step: exact for the larger, the finest RESCALE allows for the other (arm/tosa/rescale.py). alpha (positive in
    # INT: support) scales the second operand's step, so alpha * y costs no operator of its own.
    rhs_scale = rhs.qparams.scale * float(alpha)
    common_scale = add_sub_common_scale(lhs, rhs, rhs_scale=rhs_scale, for_u55=ctx.spec.has("u55"))
    lhs32 = to_int32(ctx.graph, lhs, name=f"{node.name}_lhs_int32", scale=lhs.qparams.scale / common_scale)
    rhs32 = to_int32(ctx.graph, rhs, name=f"{node.name}_rhs_int32", scale=rhs_scale / common_scale)
    int32 = np.dtype(np.int32)
    result32 = emit(ctx, op, set_attribute, [lhs32, rhs32], name=f"{node.name}_int32", shape=shape, dtype=int32)
    return from_int32(
        ctx.graph, result32, name=node.name, accumulator_scales=[common_scale], output=ctx.output_qparams(node)
    )


def _with_alpha(
    ctx: LoweringContext,
    node: Node,
    op: ts.Op,
    set_attribute: AttributeSetter,
    lhs: TosaValue,
    rhs: TosaValue,
    alpha: float,
) -> TosaValue:
    """``lhs op alpha * rhs`` (add/sub with alpha): a MUL by alpha, then the ADD/SUB, both in the operands'
    type. For float16/bfloat16 that is how PyTorch's CPU kernel computes a short tensor (alpha * b
    rounded to the half type, then the sum rounded once); its vectorized path for long ones fuses the
    two in float32 and can differ by an ulp either way."""
    factor = ctx.graph.add_const(f"{node.name}_alpha", np.full((1,) * rhs.rank, alpha, dtype=rhs.dtype))
    shift = ctx.graph.add_scalar_const(f"{node.name}_alpha_shift", 0, np.int8)
    scaled = emit(ctx, ts.Op.MUL, ts.TosaSerializerAttribute.MulAttribute, [rhs, factor, shift],
                  name=f"{node.name}_scaled", shape=rhs.shape, dtype=rhs.dtype)  # fmt: skip
    return emit(ctx, op, set_attribute, [lhs, scaled], name=node.name, shape=shape_of(node), dtype=lhs.dtype)
