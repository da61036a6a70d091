"""Row normalization of int16 activations (a16w8) for layer_norm and group_norm: ``(x - mean) / sqrt(var + eps)``.

The int8 lowering (layer_norm.normalize_rows_int) sums ``x`` and ``x * x`` exactly in int32. int16 codes
do not allow that (one square is up to 2**30), and a fixed pre-shift would lose the rows whose spread is
small against the grid. So each row is scaled by a power of two chosen from its own range, which keeps
the relative precision of the statistics the same for every row. For rows ``x`` [R, N] (int16 codes,
zero points cancel in every difference), with ``n = ceil(log2(N - 1))``:

1. ``S = sum(x)`` and ``c = N * x - S = N * (x - mean)``: exact in int32 (|c| <= (N - 1) * range < 2**(n + 16)),
   and ``sum(c) = 0``.
2. Per row, ``l = min(30 - n - bits(max(x) - min(x)), l_eps)`` and ``c' = round(c * 2**(l - 15))``, so
   ``|c'| <= 2**15`` and a row's largest ``|c'|`` lies in [2**12, 2**15] (unless eps caps l, see 4).
3. ``Q = sum(round(c'**2 / 2**q))`` with ``q = ceil(log2 N) + 2``: below 2**28.
4. ``eps`` on the grid of Q is ``E * 2**(2 l)`` with a compile-time E; ``l_eps`` keeps it below 2**28
   (a row whose spread is far below eps needs no more resolution), so ``D = Q + eps`` fits
   normalize_even. D is floored at the smallest value a row that is not constant can have (2**(22 -
   ceil(log2 N))): a constant row has c = 0 whatever D stands for.
5. ``z = c' * sqrt(N / 2**q) / sqrt(D)``: CLZ, a TABLE and Newton-Raphson give ``M = 2**(30 + B) *
   sqrt(N / 2**q) / sqrt(D)`` per row with about 23 significant bits (arm.ops.common.fixed_point), and
   one MUL of the exact ``c * 2**l`` (not the rounded c') by M gives ``u = z * 2**F`` as int32, with
   ``F = 29 - ceil(log2(sqrt(N - 1)))`` fraction bits.

On the U55 the lowering stays on the CPU (``u55_reason``). ``scale_and_shift_int16`` then applies the per-channel weight and bias in int32 (the int8 lowering's
int16 x int8 DEPTHWISE_CONV2D would round u to 16 bits, a step of the int16 output) and one RESCALE
writes the output grid.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.axis_reduction import reduce
from arm.ops.common.fixed_point import RSQRT_FRACTION_BITS, Int32Emitter, normalize_even, reciprocal_sqrt
from arm.ops.common.node_info import describe
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaGraph, TosaValue, reshape
from arm.tosa.quantization import QParams, is_dequantize, is_quantize
from arm.tosa.rescale import rescale
from arm.tosa.specification import TosaSpecification

# |c| < 2**(n + 16) must fit int32 with the left shift l >= 0 of step 2 (n <= 14).
MAX_NORMALIZED_ELEMENTS_INT16 = 1 << 14
# Step 2 puts a row's c below 2**_SCALED_BITS before the rounding shift by 15.
_SCALED_BITS = 30
# Q and eps each stay below 2**_STATISTIC_BITS, so D < 2**29 (what normalize_even takes).
_STATISTIC_BITS = 28
# M = 2**30 / sqrt(D) in (2**15.5, 2**30] (D >= 1), as in layer_norm's int8 lowering.
_INVERSE_BITS = 30
# u's bound: |z| <= sqrt(N - 1), and |u| < 2**_NORMALIZED_BITS leaves headroom for the affine MUL.
_NORMALIZED_BITS = 29
# The affine step's int32 result stays below 2**_AFFINE_BITS.
_AFFINE_BITS = 30


def quantized_dtype(node: Node) -> torch.dtype | None:
    """The integer type a (de)quantize node reads or writes; None for any other node."""
    if not (is_dequantize(node) or is_quantize(node)):
        return None
    return next((arg for arg in node.args if isinstance(arg, torch.dtype)), None)


def u55_reason(node: Node, spec: TosaSpecification, x: Node) -> str | None:
    """None unless ``x`` is int16 and the target is a U55/U65: there Vela 5.2.0's command stream for this
    lowering departs from the TOSA reference model on the NPU model when one tensor holds rows of very
    different spread (layer_norm's a16w8_offset_rows: the widest row is off by up to 17174 steps)."""
    if spec.is_int and spec.has("u55") and quantized_dtype(x) == torch.int16:
        return (
            f"{describe(node)}: input {x.name} is int16 (a16w8); Vela 5.2.0's U55 command stream for the int16 "
            "row normalization departs from the TOSA reference model on the NPU model, so it runs on the CPU "
            "(quantize it to int8, or target the U85)"
        )
    return None


def _ceil_log2(value: int) -> int:
    return max(0, math.ceil(math.log2(value))) if value > 1 else 0


def fraction_bits(count: int) -> int:
    """F of ``u = z * 2**F``: |z| <= sqrt(N - 1) and |u| stays below 2**_NORMALIZED_BITS."""
    return _NORMALIZED_BITS - math.ceil(math.log2(math.sqrt(max(count - 1, 1))))


def normalize_rows_int16(
    ctx: LoweringContext, x: TosaValue, eps: float, *, name: str, bound: float = math.inf
) -> tuple[TosaValue, int]:
    """Steps 1-5 for int16 rows ``x`` [rows, N]: ``(u, F)``, u the int32 normalized value times 2**F.

    ``bound`` (the largest |z| the output grid can tell apart) is accepted for the int8 path's sake: the
    int32 u holds every z of an int16 row at full precision, so nothing here depends on it."""
    if x.dtype != np.int16 or x.rank != 2:
        raise ValueError(f"{name}: int16 row normalization takes int16 rows [rows, N], got {x.dtype} {x.shape}")
    graph = ctx.graph
    count = x.shape[1]
    ints = Int32Emitter(graph, name, rank=2)
    spread_bits = _ceil_log2(count - 1)
    square_shift = _ceil_log2(count) + 2

    wide = ints.widen(x, "int32")
    total = reduce(graph, ts.Op.REDUCE_SUM, wide, 1, name=f"{name}_sum")
    centered = ints.sub(ints.mul(wide, ints.constant(count, "count"), "count_x", shift=0), total, "centered")

    # Step 2: l from the row's range, capped by l_eps (step 4).
    range_bits = ints.sub(ints.constant(32, "word_bits"), ints.leading_zeros(_row_range(ints, x), "range_clz"),
                          "range_bits")  # fmt: skip
    range_shift = ints.sub(ints.constant(_SCALED_BITS - spread_bits, "scaled_bits"), range_bits, "range_shift")
    eps_grid, eps_shift_cap = _eps_on_square_grid(eps, x.qparams.scale, count, square_shift)
    shift = _minimum(graph, range_shift, ints.constant(eps_shift_cap, "eps_shift_cap"), name=f"{name}_shift")
    shifted = ints.shift_left(centered, shift, "shifted")
    scaled = ints.shift_right_rounding_by(shifted, 15, "scaled")

    # Step 3.
    squares = ints.shift_right_rounding_by(ints.mul(scaled, scaled, "squares", shift=0), square_shift, "squares_scaled")
    square_total = reduce(graph, ts.Op.REDUCE_SUM, squares, 1, name=f"{name}_square_sum")

    # Step 4: eps * 2**(2 l) = eps_grid >> 2 (l_eps - l); shifts beyond 31 leave 0 (TOSA allows 0..31).
    half_drop = ints.sub(ints.constant(eps_shift_cap, "eps_cap"), shift, "eps_drop_half")
    eps_drop = _minimum(graph, ints.add(half_drop, half_drop, "eps_drop"), ints.constant(31, "max_shift"),
                        name=f"{name}_eps_drop_capped")  # fmt: skip
    eps_value = ints.shift_right_rounding(ints.constant(eps_grid, "eps"), eps_drop, "eps_row")
    # A row that is not constant has D >= 2**(22 - ceil(log2 N)) (its largest |c'| is at least 2**12,
    # or eps sets l and is at least 2**26); a constant row has c' = 0, whatever D stands for.
    smallest_bits = 22 - _ceil_log2(count)
    denominator = _maximum(graph, ints.add(square_total, eps_value, "variance_eps"),
                           ints.constant(1 << smallest_bits, "smallest"), name=f"{name}_denominator")  # fmt: skip

    # Step 5: 1/sqrt(D) = y * 2**(half_shift - 1 - RSQRT_FRACTION_BITS - 15.5) (normalize_even,
    # reciprocal_sqrt). M = 2**(30 + B) * sqrt(N / 2**q) / sqrt(D) = y * factor / 2**29 >> (15 - B - half_shift)
    # keeps about 23 bits: B is the largest that keeps M below 2**30 for the smallest D (half_shift
    # <= 15 - B). Then u = (c * 2**l) * M / 2**(45 + B - F): the exact shifted c, not the rounded c'.
    normalized = normalize_even(ints, denominator)
    inverse_sqrt = reciprocal_sqrt(ints, normalized.mantissa)
    extra_bits = 15 - math.ceil((31 - smallest_bits) / 2)
    multiplier_shift = 29
    count_factor = math.sqrt(count / 2**square_shift)
    factor = count_factor * 2.0 ** (multiplier_shift + 15 + _INVERSE_BITS - 1 - RSQRT_FRACTION_BITS - 15.5)
    inverse_scaled = ints.mul(inverse_sqrt, ints.constant(round(factor), "inverse_factor"), "inverse_scaled",
                              shift=multiplier_shift)  # fmt: skip
    row_shift = ints.sub(ints.constant(15 - extra_bits, "inverse_shift_base"), normalized.half_shift,
                         "inverse_shift")  # fmt: skip
    inverse = ints.shift_right_rounding(inverse_scaled, row_shift, "inverse")
    bits = fraction_bits(count)
    return ints.mul(shifted, inverse, "normalized", shift=_INVERSE_BITS + 15 + extra_bits - bits), bits


def _eps_on_square_grid(eps: float, scale: float, count: int, square_shift: int) -> tuple[int, int]:
    """``(eps_grid, l_eps)``: eps on Q's grid for shift l_eps, below 2**_STATISTIC_BITS.

    x - mean = c' * 2**(15 - l) / N codes, so the variance in codes is Q * 2**(q + 30 - 2 l) / N**3, and
    eps (real) is ``E * 2**(2 l)`` units of Q with ``E = eps / scale**2 * N**3 * 2**(-30 - q)``.
    """
    per_unit = max(eps, 1e-30) / scale**2 * count**3 * 2.0 ** (-30 - square_shift)
    largest_shift = _SCALED_BITS - _ceil_log2(count - 1)
    cap = min(largest_shift, math.floor(math.log2(2.0**_STATISTIC_BITS / per_unit) / 2))
    cap = max(cap, 0)
    return int(min(max(round(per_unit * 4.0**cap), 1), 1 << _STATISTIC_BITS)), cap


def _row_range(ints: Int32Emitter, x: TosaValue) -> TosaValue:
    """``max(x) - min(x)`` per row [rows, 1], int32. The rows are reduced transposed to [N, rows]:
    Vela 5.2.0 reduces an outer axis faster than the innermost one (see softmax.row_maximum)."""
    graph = ints.graph
    rows, count = x.shape
    columns = graph.add_tensor(f"{ints.prefix}_columns", (count, rows), x.dtype, x.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.TransposeAttribute([1, 0])
    graph.add_op(ts.Op.TRANSPOSE, [x], [columns], attribute)
    extremes = []
    for op, what in ((ts.Op.REDUCE_MAX, "max"), (ts.Op.REDUCE_MIN, "min")):
        reduced = reduce(graph, op, columns, 0, name=f"{ints.prefix}_columns_{what}")
        extremes.append(ints.widen(reshape(graph, reduced, (rows, 1), name=f"{ints.prefix}_row_{what}"), f"{what}_int32"))
    return ints.sub(*extremes, "range")


def _extremum(graph: TosaGraph, op: ts.Op, lhs: TosaValue, rhs: TosaValue, *, name: str) -> TosaValue:
    shape = tuple(max(dims) for dims in zip(lhs.shape, rhs.shape))
    output = graph.add_tensor(name, shape, lhs.dtype)
    attribute = ts.TosaSerializerAttribute()
    setter = attribute.MinimumAttribute if op == ts.Op.MINIMUM else attribute.MaximumAttribute
    setter(ts.NanPropagationMode.PROPAGATE)
    graph.add_op(op, [lhs, rhs], [output], attribute)
    return output


def _minimum(graph: TosaGraph, lhs: TosaValue, rhs: TosaValue, *, name: str) -> TosaValue:
    return _extremum(graph, ts.Op.MINIMUM, lhs, rhs, name=name)


def _maximum(graph: TosaGraph, lhs: TosaValue, rhs: TosaValue, *, name: str) -> TosaValue:
    return _extremum(graph, ts.Op.MAXIMUM, lhs, rhs, name=name)


def scale_and_shift_int16(
    ctx: LoweringContext,
    value: TosaValue,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    output: QParams,
    fraction_bits: int,
    *,
    name: str,
) -> TosaValue:
    """``value * 2**-F * weight + bias`` onto the output grid for int32 ``value`` [rows, C] and [C] parameters.

    The product is ``MUL(value, |w| * 2**P, shift)`` (TOSA's MUL takes a non-negative multiplier), a
    MUL by each channel's sign when a weight is negative, an ADD of the bias, all on one int32 grid of
    2**-G, and one RESCALE to the output.
    """
    graph = ctx.graph
    rows, channels = value.shape
    ints = Int32Emitter(graph, f"{name}_affine", rank=2)
    weights = np.ones(channels) if weight is None else np.asarray(weight, np.float64).reshape(channels)
    biases = np.zeros(channels) if bias is None else np.asarray(bias, np.float64).reshape(channels)
    largest = float(np.abs(weights).max()) or 1.0
    weight_bits = _AFFINE_BITS - math.ceil(math.log2(largest))
    # The result's real bound: |z| < 2**(_NORMALIZED_BITS - F), times the largest weight, plus the largest bias.
    bound = 2.0 ** (_NORMALIZED_BITS - fraction_bits) * largest + float(np.abs(biases).max())
    grid_bits = math.floor(math.log2(2.0**_AFFINE_BITS / bound))
    result = value
    if weight is not None:
        grid_bits = min(grid_bits, fraction_bits + weight_bits - 2)
        magnitudes = np.round(np.abs(weights) * 2.0**weight_bits).astype(np.int32).reshape(1, channels)
        result = ints.mul(result, graph.add_const(f"{name}_affine_weight", magnitudes), "scaled",
                          shift=fraction_bits + weight_bits - grid_bits)  # fmt: skip
        if (weights < 0).any():
            signs = np.where(weights < 0, -1, 1).astype(np.int32).reshape(1, channels)
            result = ints.mul(result, graph.add_const(f"{name}_affine_sign", signs), "signed", shift=0)
    elif grid_bits < fraction_bits:
        result = ints.shift_right_rounding_by(result, fraction_bits - grid_bits, "aligned")
    else:
        grid_bits = fraction_bits
    if bias is not None:
        biases_on_grid = np.round(biases * 2.0**grid_bits).astype(np.int32).reshape(1, channels)
        result = ints.add(result, graph.add_const(f"{name}_affine_bias", biases_on_grid), "shifted")
    return rescale(graph, result, name=f"{name}_output", scales=[2.0**-grid_bits / output.scale],
                   output_dtype=output.dtype, input_zp=0, output_zp=output.zero_point,
                   output_qparams=output)  # fmt: skip
