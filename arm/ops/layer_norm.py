"""aten.layer_norm -> mean, variance, reciprocal square root, scale and shift over the trailing dims.

Both profiles flatten the normalized dims to one axis of N elements ([rows, N]) and reduce along it.

FP: REDUCE_SUM for the mean and the variance, RSQRT, MUL and ADD with the (flattened) weight and bias.

INT (int8 in and out). On an Ethos-U the full-size operators cost cycles in proportion to their
element count and width while per-row ones are nearly free, so the full-size work is five int8/int16
operators and all exact arithmetic on the statistics happens per row. With ``x`` the raw int8 values
(zero points cancel in every difference):

1. ``S = sum(x)`` and ``Q = sum(x * x)``: int8 MULs (by 1 and by x) into int32 and REDUCE_SUMs.
2. Per row: ``T = N * Q - S**2`` is ``N**2`` times the variance in input steps, exact in int32
   (shifted right by a compile-time s for large N); ``M = 2**30 / sqrt(T + eps)`` from an even CLZ
   normalization, a TABLE start and Newton-Raphson (arm.ops.common.fixed_point), then
   ``A = N * M`` and ``B = S * M`` on the grid of ``u``.
3. ``u = x * A - B = 2**F * (N * x - S) / sqrt(T)``, the normalized value with F fraction bits, as
   int16: one MUL and one SUB (Vela folds the RESCALEs around them). F is as large as int16 allows
   for the z = u / 2**F that can still reach the output grid (beyond it every output saturates, and
   so may u): its rounding is the one error of the lowering that deep networks amplify.
4. The weight and bias are a 1x1 DEPTHWISE_CONV2D over the N channels (int16 x int8 into int48):
   each weight's magnitude goes into its channel's output RESCALE multiplier and only its sign
   (times 127) into the int8 weight, so the weights keep their float precision.

INT with int16 activations (a16w8): arm.ops.common.int16_normalization, the statistics of each row
scaled by a power of two chosen from the row's range, and the weight and bias applied in int32.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.axis_reduction import reduce
from arm.ops.common.elementwise import emit
from arm.ops.common.fixed_point import RSQRT_FRACTION_BITS, Int32Emitter, normalize_even, reciprocal_sqrt
from arm.ops.common.int16_normalization import (
    MAX_NORMALIZED_ELEMENTS_INT16,
    normalize_rows_int16,
    quantized_dtype,
    scale_and_shift_int16,
    u55_reason,
)
from arm.ops.common.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.unary import fp_add, fp_mul
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import INT48, TosaValue, reshape
from arm.tosa.quantization import QParams
from arm.tosa.rescale import rescale
from arm.tosa.specification import TosaSpecification

# T = N * Q - S**2 is at most N**2 * 127.5**2 for int8 data; it is shifted right until it and eps
# stay below 2**29 (what normalize_even takes).
_VARIANCE_LIMIT = 1 << 28
# M = 2**30 / sqrt(T) lies in (0, 2**30]: T >= 1 once eps (at least one unit) is added.
_INVERSE_BITS = 30
# A weight whose magnitude is below the largest one times this is rounded onto the int8 weight grid
# instead of getting its own multiplier (which would make its bias overflow int48).
_SMALLEST_WEIGHT_RATIO = 2.0**-12
# The depthwise weight that stands for a weight's sign.
_UNIT_WEIGHT = 127
# Largest N whose sums (S, Q) the int32 steps hold.
MAX_NORMALIZED_ELEMENTS = 1 << 16
# Finer than any int8 output needs (an output step is at least ~2**-8 of the normalized range).
_MAX_FRACTION_BITS = 15


def _normalized_count(node: Node) -> int:
    return math.prod(node.args[1])


def _weight_and_bias(node: Node) -> tuple[Node | None, Node | None]:
    weight = node.args[2] if len(node.args) > 2 else None
    bias = node.args[3] if len(node.args) > 3 else None
    return weight, bias


def _eps(node: Node) -> float:
    # aten.layer_norm(x, shape, w, b, eps, cudnn) and native_layer_norm(x, shape, w, b, eps) agree here.
    return node.args[4] if len(node.args) > 4 else 1e-5


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    return first_reason(
        profile_reason(node, spec, [x]),
        rank_reason(node, shape_of(x)),
        normalized_count_reason(node, spec, x, _normalized_count(node)),
        u55_reason(node, spec, x),
    )


def normalized_count_reason(node: Node, spec: TosaSpecification, x: Node, count: int) -> str | None:
    """None unless the integer lowering cannot hold a row of ``count`` elements of ``x``'s width in int32."""
    limit = MAX_NORMALIZED_ELEMENTS_INT16 if quantized_dtype(x) == torch.int16 else MAX_NORMALIZED_ELEMENTS
    if spec.is_int and count > limit:
        return (
            f"{describe(node)}: normalizing over {count} elements exceeds the {limit} the integer lowering of "
            f"{quantized_dtype(x)} holds in int32; use the FP profile"
        )
    return None


def annotate_layer_norm(node: Node, config: QuantizationConfig) -> None:
    """Only the activation is quantized; weight and bias stay float and become int32 constants."""
    annotate(node, {node.args[0]: config.activation}, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x = ctx.value(node.args[0])
    count = _normalized_count(node)
    rows = x.shape[: x.rank - len(node.args[1])]
    flat = reshape(ctx.graph, x, (math.prod(rows), count), name=f"{node.name}_rows")
    weight, bias = (
        None if arg is None else ctx.real_constant(arg).reshape(1, count).astype(np.float64)
        for arg in _weight_and_bias(node)
    )
    if ctx.spec.is_fp:
        normalized = lower_float(ctx, flat, weight, bias, _eps(node), name=node.name)
    else:
        normalized = _lower_int(ctx, flat, weight, bias, _eps(node), ctx.output_qparams(node), name=node.name)
    return reshape(ctx.graph, normalized, x.shape, name=node.name)


def lower_float(
    ctx: LoweringContext, x: TosaValue, weight: np.ndarray | None, bias: np.ndarray | None, eps: float, *, name: str
) -> TosaValue:
    graph = ctx.graph
    inverse_count = graph.add_const(f"{name}_inverse_count", np.full((1, 1), 1.0 / x.shape[1], x.dtype))
    mean = fp_mul(ctx, reduce(graph, ts.Op.REDUCE_SUM, x, 1, name=f"{name}_sum"), inverse_count, name=f"{name}_mean")
    centered = emit(ctx, ts.Op.SUB, ts.TosaSerializerAttribute.SubAttribute, [x, mean],
                    name=f"{name}_centered", shape=x.shape, dtype=x.dtype)  # fmt: skip
    squares = fp_mul(ctx, centered, centered, name=f"{name}_squares")
    variance = fp_mul(ctx, reduce(graph, ts.Op.REDUCE_SUM, squares, 1, name=f"{name}_square_sum"), inverse_count,
                      name=f"{name}_variance")  # fmt: skip
    eps_value = graph.add_const(f"{name}_eps", np.full((1, 1), eps, x.dtype))
    shifted = fp_add(ctx, variance, eps_value, name=f"{name}_variance_eps")
    inverse_std = emit(ctx, ts.Op.RSQRT, ts.TosaSerializerAttribute.RsqrtAttribute, [shifted],
                       name=f"{name}_inverse_std", shape=shifted.shape, dtype=x.dtype)  # fmt: skip
    result = fp_mul(ctx, centered, inverse_std, name=f"{name}_normalized")
    if weight is not None:
        result = fp_mul(ctx, result, graph.add_const(f"{name}_weight", weight.astype(x.dtype)), name=f"{name}_scaled")
    if bias is not None:
        result = fp_add(ctx, result, graph.add_const(f"{name}_bias", bias.astype(x.dtype)), name=f"{name}_shifted")
    return result


def _variance_shift(count: int) -> int:
    """The s of ``T >> s``: the smallest that keeps the largest T of int8 data below _VARIANCE_LIMIT."""
    largest = count**2 * 127.5**2
    return max(0, math.ceil(math.log2(largest / _VARIANCE_LIMIT)))


def _fraction_bits(count: int, bound: float = math.inf) -> int:
    """F of ``u = z * 2**F``: u must fit int16 for every |z| up to ``bound``, and |z| <= sqrt(N - 1)."""
    largest = min(math.sqrt(max(count - 1, 1)), bound)
    # x * A and S * M (each up to 2**(37 + ceil(log2 N) - 30 + F) before their shifts) stay in int32.
    headroom = 23 - _count_bits(count)
    return min(math.floor(math.log2(32767 / largest)), _MAX_FRACTION_BITS, headroom)


def _count_bits(count: int) -> int:
    return math.ceil(math.log2(count)) if count > 1 else 0


def _unsaturated_bound(weight: np.ndarray | None, bias: np.ndarray | None, count: int, output: QParams) -> float:
    """The largest |z| whose output ``z * w_c + b_c`` lies on the output grid for some channel c.

    Beyond it every channel's output saturates, so u may saturate there too: a u clamped to int16 still
    lands beyond the grid on the same side (w_c * u * 2**-F + b_c keeps its sign of z), and both
    round to the same end code. Every bit F gains halves u's rounding error, which is what moves an
    output across a rounding boundary of the float model's: a ViT's layer norm (N = 192, unit weights,
    197 tokens) had 0.44% of its outputs a step off the quantized module at F = 11 (sqrt(N - 1) must
    fit), and 0.09% with F from the output grid; deit_tiny's 25 layer norms amplify each such step.
    Weights near 0 (a bound as large as sqrt(N - 1)) leave F where it was.
    """
    limits = np.iinfo(output.dtype)
    low = (limits.min - output.zero_point) * output.scale
    high = (limits.max - output.zero_point) * output.scale
    weights = np.ones(count) if weight is None else np.abs(weight.reshape(count))
    biases = np.zeros(count) if bias is None else bias.reshape(count)
    # One output step of slack: a z just past a channel's edge still rounds onto the grid's end code.
    reach = np.maximum(np.abs(high - biases), np.abs(low - biases)) + output.scale
    # A channel of weight 0 outputs its bias whatever z is: it sets no bound.
    bounds = np.divide(reach, weights, out=np.zeros(count), where=weights > 0)
    return float(bounds.max()) if bounds.max() > 0 else math.inf


def _lower_int(
    ctx: LoweringContext,
    x: TosaValue,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    eps: float,
    output: QParams,
    *,
    name: str,
) -> TosaValue:
    steps = int_normalization(x)
    bound = _unsaturated_bound(weight, bias, x.shape[1], output)
    normalized_value, fraction_bits = steps.normalize_rows(ctx, x, eps, name=name, bound=bound)
    return steps.scale_and_shift(ctx, normalized_value, weight, bias, output, fraction_bits, name=name)


def normalize_rows_int(
    ctx: LoweringContext, x: TosaValue, eps: float, *, name: str, bound: float = math.inf
) -> tuple[TosaValue, int]:
    """Steps 1-3 for int8 rows ``x`` [rows, N]: ``(u, F)``, u the int16 normalized value times 2**F.

    ``bound``: the largest |z| that must not saturate u (see _unsaturated_bound); the default keeps
    every z. Shared with group_norm, which normalizes each group's elements as one row.
    """
    graph = ctx.graph
    count = x.shape[1]
    ints = Int32Emitter(graph, name, rank=2)
    # x * 1 widens x to int32 for its sum and for step 3 (an int8 MUL is cheaper than a RESCALE).
    wide = ints.mul(x, graph.add_const(f"{name}_one", np.ones((1, 1), np.int8)), "int32", shift=0)
    total = reduce(graph, ts.Op.REDUCE_SUM, wide, 1, name=f"{name}_sum")
    square_total = reduce(graph, ts.Op.REDUCE_SUM, ints.mul(x, x, "squares", shift=0), 1, name=f"{name}_square_sum")
    s = _variance_shift(count)
    count_value = ints.constant(count, "count")
    spread = ints.sub(ints.mul(square_total, count_value, "count_square_sum", shift=s),
                      ints.mul(total, total, "sum_squared", shift=s), "spread")  # fmt: skip
    # eps on the grid of T >> s: the variance in input steps is T / N**2.
    eps_units = eps / x.qparams.scale**2 * count**2 / 2**s
    eps_value = ints.constant(int(min(max(round(eps_units), 1), _VARIANCE_LIMIT)), "eps")
    normalized = normalize_even(ints, ints.add(spread, eps_value, "denominator"))
    inverse_sqrt = reciprocal_sqrt(ints, normalized.mantissa)
    # 1/sqrt(D) = y * 2**(half_shift - 1) * 2**(-27 - 15.5) (see normalize_even and reciprocal_sqrt), so
    # M = 2**30 / sqrt(D * 2**s) = y * 2**(half_shift - 13.5 - s/2): one MUL by a constant and a
    # rounding right shift by 15 - half_shift >= 0 (D >= 1 means half_shift <= 15).
    multiplier_shift = 29
    factor = 2.0 ** (multiplier_shift + 15 + _INVERSE_BITS - 1 - RSQRT_FRACTION_BITS - 15.5 - s / 2)
    scaled = ints.mul(inverse_sqrt, ints.constant(round(factor), "inverse_factor"), "inverse_scaled",
                      shift=multiplier_shift)  # fmt: skip
    row_shift = ints.sub(ints.constant(15, "fifteen"), normalized.half_shift, "inverse_shift")
    inverse = ints.shift_right_rounding(scaled, row_shift, "inverse")  # M, below 2**30
    fraction_bits = _fraction_bits(count, bound)
    # u = x * N * M / 2**(30 - F) - S * M / 2**(30 - F); A = N * M / 2**count_bits stays below 2**30.
    count_bits = _count_bits(count)
    x_shift = _INVERSE_BITS - fraction_bits - count_bits
    scaled_count = ints.mul(inverse, count_value, "scaled_count", shift=count_bits)
    offset = ints.mul(total, inverse, "offset", shift=_INVERSE_BITS - fraction_bits)
    product = ints.mul(wide, scaled_count, "scaled_x", shift=x_shift)
    normalized_value = rescale(graph, ints.sub(product, offset, "centered"), name=f"{name}_normalized",
                               scales=[1.0], output_dtype=np.dtype(np.int16), input_zp=0, output_zp=0)  # fmt: skip
    return normalized_value, fraction_bits


def scale_and_shift(
    ctx: LoweringContext,
    value: TosaValue,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    output: QParams,
    fraction_bits: int,
    *,
    name: str,
) -> TosaValue:
    """``value * 2**-F * weight + bias`` onto the output grid: a 1x1 DEPTHWISE_CONV2D and a RESCALE."""
    graph = ctx.graph
    rows, count = value.shape
    weights = np.ones(count) if weight is None else weight.reshape(count)
    biases = np.zeros(count) if bias is None else bias.reshape(count)
    largest = float(np.abs(weights).max()) or 1.0
    magnitudes = np.maximum(np.abs(weights), largest * _SMALLEST_WEIGHT_RATIO)
    int8_weights = np.round(_UNIT_WEIGHT * weights / magnitudes).astype(np.int8)
    # One accumulator unit of channel c is worth magnitude_c / 127 * 2**-F of the real output.
    units = magnitudes / _UNIT_WEIGHT * 2.0**-fraction_bits
    channels = reshape(graph, value, (1, 1, rows, count), name=f"{name}_channels")
    operands = [
        channels,
        graph.add_const(f"{name}_weight", int8_weights.reshape(1, 1, count, 1)),
        graph.add_const(f"{name}_bias", np.round(biases / units).astype(INT48)),
        graph.add_scalar_const(f"{name}_input_zp", 0, np.int16),
        graph.add_scalar_const(f"{name}_weight_zp", 0, np.int8),
    ]
    accumulator = graph.add_tensor(f"{name}_affine", channels.shape, INT48)
    attribute = ts.TosaSerializerAttribute()
    attribute.DepthwiseConv2dAttribute(pad=[0, 0, 0, 0], stride=[1, 1], dilation=[1, 1], local_bound=False,
                                       acc_type=ts.DType.INT48)  # fmt: skip
    graph.add_op(ts.Op.DEPTHWISE_CONV2D, operands, [accumulator], attribute)
    result = rescale(graph, accumulator, name=f"{name}_output", scales=list(units / output.scale),
                     output_dtype=output.dtype, input_zp=0, output_zp=output.zero_point,
                     output_qparams=output)  # fmt: skip
    return reshape(graph, result, (rows, count), name=f"{name}_rows_out")


@dataclasses.dataclass(frozen=True)
class IntNormalization:
    """The INT lowering's two halves for one input width: ``normalize_rows(ctx, rows, eps, name=, bound=)``
    gives ``(u, F)``, ``scale_and_shift(ctx, u, weight, bias, output, F, name=)`` the output."""

    normalize_rows: Callable[..., tuple[TosaValue, int]]
    scale_and_shift: Callable[..., TosaValue]


# By the input's integer type: int8 sums exactly (above), int16 (a16w8) scales each row by its range.
_INT_NORMALIZATIONS = {
    np.dtype(np.int8): IntNormalization(normalize_rows_int, scale_and_shift),
    np.dtype(np.int16): IntNormalization(normalize_rows_int16, scale_and_shift_int16),
}


def int_normalization(x: TosaValue) -> IntNormalization:
    """The INT lowering for rows of ``x``'s integer type (group_norm shares it)."""
    return _INT_NORMALIZATIONS[np.dtype(x.dtype)]


class _LayerNorm(torch.nn.Module):
    """A layer norm whose weight and bias (drawn from the seeded generator) are not the trivial 1 and 0."""

    def __init__(self, shape: tuple[int, ...], *, affine: bool = True):
        super().__init__()
        self.norm = torch.nn.LayerNorm(shape, elementwise_affine=affine)
        if affine:
            with torch.no_grad():
                self.norm.weight.copy_(1.0 + 0.5 * torch.randn(shape))
                self.norm.bias.copy_(0.5 * torch.randn(shape))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


def _offset(seed: int, offset: float, scale: float, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    return tuple(offset + scale * tensor for tensor in random_inputs(seed, *shapes))


TEST_CASES = {
    "tokens": OpTestCase(seeded(0, _LayerNorm, (64,)), random_inputs(0, (1, 10, 64))),
    "vit_width": OpTestCase(seeded(1, _LayerNorm, (192,)), random_inputs(1, (1, 17, 192))),
    "no_affine": OpTestCase(seeded(2, _LayerNorm, (32,), affine=False), random_inputs(2, (4, 32))),
    "last_two_dims": OpTestCase(seeded(3, _LayerNorm, (6, 8)), random_inputs(3, (2, 3, 6, 8))),
    # Rows far from zero with little spread: the mean must cancel exactly before the variance.
    "offset_rows": OpTestCase(seeded(4, _LayerNorm, (48,)), _offset(4, 3.0, 0.3, (5, 48))),
    # A ViT's layer norm as initialized (unit weights, zero bias): the normalized value's precision
    # decides how often an output rounds the other way than the float model's. With F fixed by
    # sqrt(N - 1) 21 of these 4608 outputs did (0.46%), and deit_tiny drifted from its quantized model
    # (cosine 0.9825); F from the output grid leaves 1.
    "vit_unit_weights": OpTestCase(
        seeded(5, torch.nn.LayerNorm, (192,)), random_inputs(5, (1, 24, 192)), differing_from_quantized=0.001
    ),
    # int16 activations (arm.ops.common.int16_normalization); no int16 on TOSA-1.0+INT (TOSA, VGF). Rows
    # of small spread far from zero and a constant row test the per-row range shift and eps; the
    # calibration row widens the grid, as a residual stream's other tokens would.
    "a16w8_offset_rows": OpTestCase(
        seeded(6, _LayerNorm, (24,)),
        (torch.cat([_offset(6, 1.0, 0.02, (3, 24))[0], torch.full((1, 24), -2.0), random_inputs(8, (1, 24))[0]]),),
        calibration=[_offset(7, 0.0, 1.0, (4, 24))],
        cpu_targets=("tosa_INT", "u55_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="layer_norm",
    # to_edge turns layer_norm into this three-result op; arm/ops/getitem.py selects result 0.
    edge_targets=(exir_ops.edge.aten.native_layer_norm.default,),
    aten_targets=(torch.ops.aten.layer_norm.default,),
    support=support,
    annotate=annotate_layer_norm,
    lower=lower,
    test_cases=TEST_CASES,
)
