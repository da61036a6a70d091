"""aten.prelu (``nn.PReLU``): x where x >= 0, else the channel's slope times x.

FP: MAXIMUM(x, 0) + slope * MINIMUM(x, 0). One of the two terms is exactly zero, so the sum is x or
slope * x rounded once, as PyTorch computes it, with no comparison, bool tensor or SELECT.

INT: one slope (``nn.PReLU()``) is a function of the int8 code: one TABLE, exact. Slopes per channel
(dim 1) are int32 arithmetic on the zero-point-free code ``a = q - zp``, which every target runs:

    v = a * 2**k + MINIMUM(a, 0) * (W_c - 2**k),   W_c = round(slope_c * 2**k)

is ``a * 2**k`` for a >= 0 and ``a * W_c`` below, and one RESCALE by s_x / (s_out * 2**k) rounds it
onto the output grid. The positive side is exactly the RESCALE of ``a`` by s_x / s_out; the slopes
carry 20-21 bits (k is as large as int32 allows for 9-bit codes), so the negative side is within
about 1e-4 of an output step of the quantized module's float product.

Kept whole through to_edge, which would write it as gt, mul and where: a bool intermediate and a
SELECT in the INT profile, which the U55 lacks.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.elementwise import emit
from arm.ops.common.fixed_point import Int32Emitter
from arm.ops.common.op_test_case import OpTestCase, random_inputs
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.unary import annotate_unary, fp_add, fp_mul, lower_table, table_reason
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import rescale
from arm.tosa.specification import TosaSpecification

# |a * 2**k| and |a * W_c| must fit int32 for every int8 code distance |a| <= 255 (9 bits), and so
# must the MINIMUM(a, 0) * (W_c - 2**k) on the way: 2**k * max(1, |slope|) stays below 2**22.
_PRODUCT_BITS = 22


def _slope_shape(node: Node) -> tuple[int, ...]:
    """The slope's shape broadcast against x: all ones, with the channels along dim 1."""
    rank = len(shape_of(node.args[0]))
    count = math.prod(shape_of(node.args[1]))
    if count == 1:
        return (1,) * rank
    return tuple(count if axis == 1 else 1 for axis in range(rank))


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, weight = node.args[:2]
    shape = shape_of(x)
    count = math.prod(shape_of(weight))
    if count != 1 and (len(shape) < 2 or shape[1] != count):
        return f"{describe(node)}: {count} slopes for input of shape {shape}; give one slope or one per channel (dim 1)"
    if spec.is_fp:
        return first_reason(profile_reason(node, spec, [x, weight]), rank_reason(node, shape))
    if weight.op != "placeholder":
        return (
            f"{describe(node)}: slope {weight.name} is computed in the model; the INT profile takes constant "
            "slopes (an nn.PReLU parameter)"
        )
    if count > 1 and _quantized_input_dtype(x) == torch.int16:
        return (
            f"{describe(node)}: per-channel slopes of an int16 (a16w8) input are not lowered (its code "
            "distances leave too few bits for the slopes in int32); quantize its input to int8"
        )
    return first_reason(profile_reason(node, spec, [x]), rank_reason(node, shape), table_reason(node, spec))


def _quantized_input_dtype(x: Node) -> torch.dtype | None:
    return next((arg for arg in x.args if isinstance(arg, torch.dtype)), None)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, weight = node.args[:2]
    if ctx.spec.is_fp:
        return _lower_fp(node, ctx)
    slopes = ctx.real_constant(weight).astype(np.float64).reshape(_slope_shape(node))
    if slopes.size == 1:
        slope = torch.from_numpy(slopes.astype(np.float32).reshape(1))
        return lower_table(node, ctx, lambda real: torch.nn.functional.prelu(real, slope))
    return _lower_per_channel(node, ctx, slopes)


def _lower_fp(node: Node, ctx: LoweringContext) -> TosaValue:
    x, weight = node.args[:2]
    value = ctx.value(x)
    slope = reshape(ctx.graph, ctx.value(weight), _slope_shape(node), name=f"{node.name}_slope")
    zero = ctx.graph.add_const(f"{node.name}_zero", np.zeros((1,) * value.rank, dtype=value.dtype))
    positive = _extremum(ctx, ts.Op.MAXIMUM, value, zero, name=f"{node.name}_positive")
    negative = _extremum(ctx, ts.Op.MINIMUM, value, zero, name=f"{node.name}_negative")
    return fp_add(ctx, positive, fp_mul(ctx, negative, slope, name=f"{node.name}_sloped"), name=node.name)


def _extremum(ctx: LoweringContext, op: ts.Op, value: TosaValue, zero: TosaValue, *, name: str) -> TosaValue:
    set_attribute = (
        ts.TosaSerializerAttribute.MaximumAttribute if op == ts.Op.MAXIMUM else ts.TosaSerializerAttribute.MinimumAttribute
    )
    return emit(
        ctx,
        op,
        lambda attribute: set_attribute(attribute, ts.NanPropagationMode.PROPAGATE),
        [value, zero],
        name=name,
        shape=value.shape,
        dtype=value.dtype,
    )


def slope_bits(slopes: np.ndarray) -> int:
    """k of the module docstring: the most fraction bits for which 2**k * max(1, |slope|) < 2**22."""
    largest = max(1.0, float(np.abs(slopes).max()))
    return _PRODUCT_BITS - math.floor(math.log2(largest)) - 1


def _lower_per_channel(node: Node, ctx: LoweringContext, slopes: np.ndarray) -> TosaValue:
    code = ctx.quantized_value(node.args[0])
    source, output = code.qparams, ctx.output_qparams(node)
    k = slope_bits(slopes)
    emitter = Int32Emitter(ctx.graph, node.name, code.rank)
    distance = emitter.widen(code, "distance", zero_point=source.zero_point)
    scaled = emitter.widen(code, "scaled", scale=2.0**k, zero_point=source.zero_point)
    below_zero = emitter.minimum(distance, emitter.constant(0, "zero"), "below_zero")
    extra = ctx.graph.add_const(f"{node.name}_slope_minus_one", (np.round(slopes * 2.0**k) - 2**k).astype(np.int32))
    sloped = emitter.add(scaled, emitter.mul(below_zero, extra, "extra", shift=0), "sloped")
    return rescale(
        ctx.graph,
        sloped,
        name=node.name,
        scales=[source.scale / (output.scale * 2.0**k)],
        output_dtype=output.dtype,
        input_zp=0,
        output_zp=output.zero_point,
        output_qparams=output,
    )


class _PReLU(torch.nn.Module):
    """``nn.PReLU`` with the given slopes (its default is 0.25 for every channel)."""

    def __init__(self, slopes: list[float]) -> None:
        super().__init__()
        self.activation = torch.nn.PReLU(len(slopes))
        with torch.no_grad():
            self.activation.weight.copy_(torch.tensor(slopes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.activation(x)


TEST_CASES = {
    "one_slope": OpTestCase(_PReLU([0.25]), random_inputs(0, (4, 10))),
    # Slopes of either sign, above one and zero: the int32 form has no order to rely on. Both cases
    # must round every element as the quantized module does (no element a step off).
    "per_channel_4d": OpTestCase(
        _PReLU([0.25, -0.5, 1.75, 0.0]), random_inputs(1, (1, 4, 6, 6)), differing_from_quantized=0.0
    ),
    "per_channel_3d": OpTestCase(_PReLU([0.01, 3.0, -0.2]), random_inputs(2, (2, 3, 8)), differing_from_quantized=0.0),
}

OP = ArmOp(
    name="prelu",
    edge_targets=(exir_ops.edge.aten.prelu.default,),
    aten_targets=(torch.ops.aten.prelu.default,),
    support=support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.prelu.default,),
)
