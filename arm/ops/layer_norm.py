"""aten.layer_norm -> mean, variance, reciprocal square root, scale and shift over the trailing dims.

Both profiles flatten the normalized dims to one axis of N elements ([rows, N]) and reduce along it.

FP: REDUCE_SUM for the mean and the variance, RSQRT, MUL and ADD with the (flattened) weight and bias.

INT (int8 in and out, int32 in between; raw input steps ``q - zero_point`` throughout):

1. ``c = N * q - sum(q)`` is N times the deviation from the mean, exact in int32.
2. ``V = sum((c >> k)**2)``, with the compile-time shift k keeping V below 2**29 for any int8 data,
   plus ``eps`` on the same grid, is ``D``: the variance up to a constant factor.
3. ``1 / sqrt(D)`` comes from an even CLZ normalization, a TABLE start and Newton-Raphson
   (arm.ops.fixed_point); one MUL by ``c`` then gives the normalized value on a fixed grid.
4. The weight is an int32 MUL (relative to its largest magnitude), the bias an int32 ADD on the
   same grid, and one RESCALE writes the int8 output.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.axis_reduction import reduce
from arm.ops.elementwise import emit
from arm.ops.fixed_point import RSQRT_FRACTION_BITS, Int32Emitter, normalize_even, reciprocal_sqrt
from arm.ops.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.registry import ArmOp
from arm.ops.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.unary import fp_add, fp_mul, int8_reason
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.quantization import QParams
from arm.tosa.rescale import rescale
from arm.tosa.specification import TosaSpecification

# |q - mean| of int8 data is at most 255 steps.
_MAX_DEVIATION = 255
# V = sum((c >> k)**2) stays below this, so D's normalizing shift is at least 2 (see normalize_even).
_VARIANCE_LIMIT = 1 << 28
# The weight, relative to its largest magnitude, as a Q15 int32 multiplier.
_WEIGHT_FRACTION_BITS = 15
# Bound for the normalized value plus bias before the final RESCALE, clear of int32 overflow.
_SUM_LIMIT = 2.0**30.9
# Largest N whose N * q and squared deviations (after the shift k) the int32 steps hold.
MAX_NORMALIZED_ELEMENTS = 1 << 16


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
    count = _normalized_count(node)
    return first_reason(
        profile_reason(node, spec, [x]),
        int8_reason(node, spec, [x]),
        rank_reason(node, shape_of(x)),
        (
            f"{describe(node)}: normalizing over {count} elements exceeds the {MAX_NORMALIZED_ELEMENTS} the "
            "integer lowering holds in int32; use the FP profile"
            if spec.is_int and count > MAX_NORMALIZED_ELEMENTS
            else None
        ),
    )


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
        normalized = _lower_float(ctx, flat, weight, bias, _eps(node), name=node.name)
    else:
        normalized = _lower_int(ctx, flat, weight, bias, _eps(node), ctx.output_qparams(node), name=node.name)
    return reshape(ctx.graph, normalized, x.shape, name=node.name)


def _lower_float(
    ctx: LoweringContext, x: TosaValue, weight: np.ndarray | None, bias: np.ndarray | None, eps: float, *, name: str
) -> TosaValue:
    graph = ctx.graph
    inverse_count = graph.add_const(f"{name}_inverse_count", np.full((1, 1), 1.0 / x.shape[1], np.float32))
    mean = fp_mul(ctx, reduce(graph, ts.Op.REDUCE_SUM, x, 1, name=f"{name}_sum"), inverse_count, name=f"{name}_mean")
    centered = emit(ctx, ts.Op.SUB, ts.TosaSerializerAttribute.SubAttribute, [x, mean],
                    name=f"{name}_centered", shape=x.shape, dtype=np.float32)  # fmt: skip
    squares = fp_mul(ctx, centered, centered, name=f"{name}_squares")
    variance = fp_mul(ctx, reduce(graph, ts.Op.REDUCE_SUM, squares, 1, name=f"{name}_square_sum"), inverse_count,
                      name=f"{name}_variance")  # fmt: skip
    eps_value = graph.add_const(f"{name}_eps", np.full((1, 1), eps, np.float32))
    shifted = fp_add(ctx, variance, eps_value, name=f"{name}_variance_eps")
    inverse_std = emit(ctx, ts.Op.RSQRT, ts.TosaSerializerAttribute.RsqrtAttribute, [shifted],
                       name=f"{name}_inverse_std", shape=shifted.shape, dtype=np.float32)  # fmt: skip
    result = fp_mul(ctx, centered, inverse_std, name=f"{name}_normalized")
    if weight is not None:
        result = fp_mul(ctx, result, graph.add_const(f"{name}_weight", weight.astype(np.float32)), name=f"{name}_scaled")
    if bias is not None:
        result = fp_add(ctx, result, graph.add_const(f"{name}_bias", bias.astype(np.float32)), name=f"{name}_shifted")
    return result


def _deviation_shift(count: int) -> int:
    """The k of ``c >> k``: the smallest that keeps count * (255 * count / 2**k)**2 below 2**28."""
    worst = _MAX_DEVIATION * count
    k = 0
    while count * math.ceil(worst / 2**k) ** 2 >= _VARIANCE_LIMIT:
        k += 1
    return k


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
    graph = ctx.graph
    count = x.shape[1]
    ints = Int32Emitter(graph, name, rank=2)
    raw = rescale(graph, x, name=f"{name}_int32", scales=[1.0], output_dtype=np.dtype(np.int32),
                  input_zp=x.qparams.zero_point, output_zp=0)  # fmt: skip
    total = reduce(graph, ts.Op.REDUCE_SUM, raw, 1, name=f"{name}_sum")
    deviation = ints.sub(ints.mul(raw, ints.constant(count, "count"), "scaled", shift=0), total, "deviation")
    k = _deviation_shift(count)
    reduced = ints.shift_right_rounding_by(deviation, k, "deviation_reduced") if k else deviation
    squares = ints.mul(reduced, reduced, "squares", shift=0)
    # eps on the grid of V: variance in raw steps is V * 2**(2k) / count**3.
    eps_units = eps / x.qparams.scale**2 * count**3 / 2 ** (2 * k)
    eps_value = ints.constant(int(min(max(round(eps_units), 1), _VARIANCE_LIMIT)), "eps")
    denominator = ints.add(reduce(graph, ts.Op.REDUCE_SUM, squares, 1, name=f"{name}_square_sum"), eps_value,
                           "denominator")  # fmt: skip
    normalized = normalize_even(ints, denominator)
    # 1/sqrt(D) = y * 2**(half_shift - 1) * 2**(-27 - 15.5); folding 2**(half_shift - 16) into y keeps
    # the product with c in int32 (half_shift <= 15 because D >= 1).
    inverse_sqrt = reciprocal_sqrt(ints, normalized.mantissa)
    rounding = ints.sub(ints.constant(16, "sixteen"), normalized.half_shift, "rsqrt_shift")
    scaled_inverse = ints.shift_right_rounding(inverse_sqrt, rounding, "rsqrt_scaled")
    product_shift = max(0, k - 2)
    # z = product * sqrt(count) * 2**(product_shift - 27.5 - k), |z| <= sqrt(count): |product| < 2**29.5.
    product = ints.mul(deviation, scaled_inverse, "normalized", shift=product_shift)
    unit = math.sqrt(count) * 2.0 ** (product_shift - RSQRT_FRACTION_BITS - 0.5 - k)
    if weight is not None:
        largest = float(np.abs(weight).max()) or 1.0
        unit *= largest
        extra = _headroom_shift(0.0 if bias is None else float(np.abs(bias).max()) / unit)
        multipliers = np.round(weight / largest * 2**_WEIGHT_FRACTION_BITS).astype(np.int32)
        product = ints.mul(product, graph.add_const(f"{name}_weight", multipliers), "weighted",
                           shift=_WEIGHT_FRACTION_BITS + extra)  # fmt: skip
        unit *= 2**extra
    elif bias is not None:
        extra = _headroom_shift(float(np.abs(bias).max()) / unit)
        if extra:
            product = ints.shift_right_rounding_by(product, extra, "unweighted")
            unit *= 2**extra
    if bias is not None:
        product = ints.add(product, graph.add_const(f"{name}_bias", np.round(bias / unit).astype(np.int32)), "biased")
    return rescale(graph, product, name=f"{name}_output", scales=[unit / output.scale], output_dtype=output.dtype,
                   input_zp=0, output_zp=output.zero_point, output_qparams=output)  # fmt: skip


def _headroom_shift(bias_units: float) -> int:
    """Right shift that keeps the normalized value (< 2**29.5) plus the bias below _SUM_LIMIT."""
    return max(0, math.ceil(math.log2((2.0**29.5 + bias_units) / _SUM_LIMIT)))


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
