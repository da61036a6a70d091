"""Row normalization of int8 activations for layer_norm and group_norm: ``(x - mean) / sqrt(var + eps)``.

For rows ``x`` [R, N] of raw int8 values (zero points cancel in every difference), per row:

1. ``S = sum(x)`` and ``Q = sum(x * x)``: int8 MULs (by 1 and by x) into int32 and REDUCE_SUMs.
2. ``T = N * Q - S**2`` is ``N**2`` times the variance in input steps, exact in int32 (shifted right by
   a compile-time s for large N); ``1 / sqrt(T + eps)`` from an even CLZ normalization, a TABLE start and
   Newton-Raphson (arm.ops.common.fixed_point): a multiplier ``M = G / sqrt(T + eps)`` per row, for a
   compile-time gain G.
3. ``z * G``: the exact form (layer_norm) or the int16 normalized value (group_norm), below.

Two forms of step 3:

- ``normalize_exact`` (layer_norm): ``D = (x * N - S) * 2**e`` is exact in int32, with the row's own
  power of two ``2**e`` (from the row's CLZ normalization) folded into the per-row ``N * 2**e`` and
  ``S * 2**e``, and ``v = round(D * m / 2**R)`` with a per-row multiplier ``m`` of 28-30 bits, so v is
  ``round(z * w / s_out * 2**K)`` with K = 20-22 bits below an output step and y's relative error
  (about 2**-26) the only other one. G carries the output's own scale. For one positive weight (the
  unit weights of a freshly initialized model) the output is ``RESCALE(v + bias, 2**-K)``, a pure
  shift that Vela folds into the ADD (the ADD of a zero where there is no bias: standalone, that
  RESCALE costs 77,656 U85-256 cycles on a [197, 192] layer norm, the ADD 18,912); other weights cost
  a MUL by the per-channel ``w / s_out`` first. The form before (session 7) rounded two terms
  ``x * A`` and ``S * M`` of up to 2**31 each onto a grid of 13-16 bits below a step (cancellation on
  rows of small spread far from zero bounded K) and put 0.003% of a ViT layer norm's outputs and
  0.03-0.09% of deit_tiny's layer-norm segments a step off; this one leaves none on deit_tiny's or
  convnext_atto's (bench/README.md "deit_tiny and convnext numerics, session 8"), for one more
  full-size int32 MUL and ADD: [197, 192] U85-256 86,068 -> 123,788 cycles. On the U55 that MUL costs
  56,736 (208,095 -> 321,242) and put bert above the peer's cycles: the U55 keeps the two-term form
  (``normalize_two_terms``, chosen by ``exact_form``) for group_norm and for layer norms of fewer than
  128 elements a row in fewer than 32 rows (layer_norm's ``exact_form_of_rows``). T is whole where it
  fits in 2**30 (N up to 257; beyond that ``T >> s``), eps keeps 29 bits below a unit of it
  (normalize_even's fraction, two per-row operators), and 1/sqrt(D) takes three Newton-Raphson steps:
  eps rounded to a whole unit moved z by up to 0.5 / T relatively, 1.5e-6 of an output step on one of
  Conformer's layer-norm outputs that lay 8.8e-7 of a step from a half step (bench/README.md "Layer
  norm and softmax ties, session 10"); T rounded to T >> 2 (N = 192) by 1 / (2 T), 6e-7 of a step on a
  deit_tiny output 6.2e-7 of a step from one; two Newton-Raphson steps by up to 2.7e-8, 2.7e-6 of a
  step at 100 steps. What is left is y's Q27 rounding and v's own (2**-(K + 1)): within 6.2e-7 of a
  step of the float64 value on all of Conformer's and deit_tiny's layer-norm outputs (4 inputs each).
  The U55's two-term form keeps eps rounded to a unit and T rounded: its terms round 13-16 bits below
  a step, far coarser.
- ``normalize_rows_int`` (group_norm, and layer_norm with non-uniform weights on the U55):
  ``u = z * 2**F`` narrowed to int16, whose transposes cost half of int32 ones, then
  ``scale_and_shift``: a 1x1 DEPTHWISE_CONV2D of the weights' signs with each weight's magnitude in its
  channel's output RESCALE. u's rounding (2**-F, F about 11 for N = 192, as large as int16 allows for
  the z that still reach the output grid) put 0.2% of a ViT layer norm's outputs a step off the float
  model's, which deep networks amplify: the reason layer_norm moved to the exact form. An int16 value
  cannot do much better (it holds the output range with 7-8 bits below a step), and on the U55 the
  exact form's per-channel int32 MUL and ADD cost 302,592 cycles each on a [197, 192] layer norm (Vela
  5.2.0 splits an int32 operand broadcast along the rows into one operation per row), against 29,376
  for the DEPTHWISE_CONV2D: there non-uniform weights keep this form.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

import numpy as np
import tosa_serializer as ts

from arm.ops.common.axis_reduction import reduce
from arm.ops.common.fixed_point import (
    FRACTION_BITS,
    RSQRT_STEPS,
    EvenNormalized,
    Int32Emitter,
    normalize_even,
    reciprocal_sqrt,
)
from arm.tosa.context import LoweringContext
from arm.tosa.graph import INT48, TosaValue, reshape
from arm.tosa.quantization import QParams
from arm.tosa.rescale import multiplier_and_shift, rescale
from arm.tosa.specification import TosaSpecification

# T = N * Q - S**2 is at most N**2 * 127.5**2 for int8 data; it is shifted right until it and eps
# stay below 2**29 (what normalize_even takes).
_VARIANCE_LIMIT = 1 << 28
# The exact form's T stays below 2**30 (whole for N up to 257), T + eps below 2**31 (normalize_even's
# below_2_31): rounding T to T >> s put a deit_tiny layer-norm output a step off.
_EXACT_VARIANCE_LIMIT = 1 << 30
# The exact form's 1/sqrt(D) takes a third Newton-Raphson step (four per-row operators): after two its
# relative error (up to 2.7e-8) moved outputs near 100 steps by up to 2.7e-6 of a step; after three
# what is left is y's own Q27 rounding, 6e-7 of a step at most on Conformer's and deit_tiny's rows.
_EXACT_RSQRT_STEPS = 3
# group_norm's M = 2**30 / sqrt(T) lies in (0, 2**30]: T >= 1 once eps (at least one unit) is added.
_INVERSE_BITS = 30
# Largest N whose sums (S, Q) the int32 steps hold.
MAX_NORMALIZED_ELEMENTS = 1 << 16
# group_norm's u: finer than any int8 output needs (an output step is at least ~2**-8 of the range).
_MAX_FRACTION_BITS = 15
# A weight whose magnitude is below the largest one times this is rounded onto the int8 weight grid
# instead of getting its own multiplier (which would make its bias overflow int48).
_SMALLEST_WEIGHT_RATIO = 2.0**-12
# The depthwise weight that stands for a weight's sign.
_UNIT_WEIGHT = 127
# normalize_even's half_shift of the smallest denominator, 1 (T = 0 and eps below one unit).
_LARGEST_HALF_SHIFT = 15
# The exact form's row multiplier m = round(y * c / 2**29) lies below 2**30.5: y < 2**28.5 (Q27 of
# 1 / sqrt of a mantissa in [1/8, 1)) and c's multiplier < 2**31.
_ROW_MULTIPLIER_SHIFT = 29
# Vela runs an int32 MUL whose shift exceeds 31 with double rounding (TOSA's MUL rounds once).
_MAX_MUL_SHIFT = 31
# The exact form's largest row multiplier M (at the least spread of distinct values): below 2**28, so
# that M * 2**(15 - half_shift) fits int32 on the way (see _inverse).
_EXACT_INVERSE_BITS = 28
# The two-term form's int32 terms, and both forms' result y = w * z + b, stay below these.
_TERM_LIMIT = 2.0**31 * (1 - 2.0**-10)
_AFFINE_LIMIT = 2.0**30
# Bits of the per-channel int32 weights W = round(w / s_out * 2**H) for the largest |w / s_out|.
_WEIGHT_BITS = 30


def variance_shift(count: int, limit: int = _VARIANCE_LIMIT) -> int:
    """The s of ``T >> s``: the smallest that keeps the largest T of int8 data below ``limit``."""
    largest = count**2 * 127.5**2
    return max(0, math.ceil(math.log2(largest / limit)))


@dataclasses.dataclass(frozen=True)
class _RowStatistics:
    ints: Int32Emitter
    wide: TosaValue  # x as int32 [rows, N]
    total: TosaValue  # S [rows, 1]
    inverse_sqrt: TosaValue  # y = 2**27 / sqrt(mantissa of D) (Q27) [rows, 1]
    half_shift: TosaValue  # D = mantissa * 2**-(2 * half_shift - 2) [rows, 1]
    variance_shift: int  # s: D = (T >> s) + eps


def _row_statistics(
    ctx: LoweringContext, x: TosaValue, eps: float, *, name: str, eps_below_unit: bool = False
) -> _RowStatistics:
    """Steps 1-2 for int8 rows ``x`` [rows, N]: x widened, S, and 1/sqrt(D) as y and half_shift.

    ``eps_below_unit``: eps keeps its part below a unit of ``T >> s`` (normalize_even's fraction, three
    per-row operators); otherwise it is rounded to a whole unit, at least one."""
    graph = ctx.graph
    count = x.shape[1]
    ints = Int32Emitter(graph, name, rank=2)
    # x * 1 widens x to int32 for its sum and for step 3 (an int8 MUL is cheaper than a RESCALE).
    wide = ints.mul(x, graph.add_const(f"{name}_one", np.ones((1, 1), np.int8)), "int32", shift=0)
    total = reduce(graph, ts.Op.REDUCE_SUM, wide, 1, name=f"{name}_sum")
    square_total = reduce(graph, ts.Op.REDUCE_SUM, ints.mul(x, x, "squares", shift=0), 1, name=f"{name}_square_sum")
    s = variance_shift(count, _EXACT_VARIANCE_LIMIT if eps_below_unit else _VARIANCE_LIMIT)
    count_value = ints.constant(count, "count")
    spread = ints.sub(ints.mul(square_total, count_value, "count_square_sum", shift=s),
                      ints.mul(total, total, "sum_squared", shift=s), "spread")  # fmt: skip
    # eps on the grid of T >> s: the variance in input steps is T / N**2.
    eps_units = min(eps / x.qparams.scale**2 * count**2 / 2**s, _VARIANCE_LIMIT)
    if eps_below_unit:
        normalized = _eps_fraction_normalized(ints, spread, eps_units, max((count - 1) // 2**s, 1))
    else:
        eps_value = ints.constant(int(max(round(eps_units), 1)), "eps")
        normalized = normalize_even(ints, ints.add(spread, eps_value, "denominator"))
    steps = _EXACT_RSQRT_STEPS if eps_below_unit else RSQRT_STEPS
    inverse_sqrt = reciprocal_sqrt(ints, normalized.mantissa, steps=steps)
    return _RowStatistics(ints, wide, total, inverse_sqrt, normalized.half_shift, s)


def _eps_fraction_normalized(
    ints: Int32Emitter, spread: TosaValue, eps_units: float, least_spread: int
) -> EvenNormalized:
    """``T + eps`` normalized with eps's fraction below a unit (see normalize_even): the whole units join
    T before the CLZ. An eps below one unit leaves T floored at ``least_spread``, the least T >> s of a
    row of distinct values (which _RowExponents assumes): that moves only constant rows (T = 0, whose z
    is 0 whatever D is) and, where s > 0, rows whose T >> s rounded below it, by one unit as before."""
    whole = math.floor(eps_units)
    fraction = round((eps_units - whole) * 2.0**FRACTION_BITS)
    if fraction == 1 << FRACTION_BITS:
        whole, fraction = whole + 1, 0
    if whole >= 1:
        denominator = ints.add(spread, ints.constant(whole, "eps"), "denominator")
    else:
        denominator = ints.maximum(spread, ints.constant(least_spread, "least_spread"), "denominator")
    return normalize_even(ints, denominator, fraction=fraction, below_2_31=True)


def _inverse(stats: _RowStatistics, factor: float) -> TosaValue:
    """``M = factor * 2**15 / sqrt(D)``, rounded, as int32: 1/sqrt(D) = y * 2**(half_shift - 43.5)
    (normalize_even, reciprocal_sqrt), so M = (y * factor * 2**-13.5) >> (15 - half_shift), rounding.
    The value before the shift is M * 2**(15 - half_shift) <= M * sqrt(D): it must fit int32."""
    ints = stats.ints
    multiplier, shift = multiplier_and_shift(factor * 2.0**-13.5)
    scaled = ints.mul(stats.inverse_sqrt, ints.constant(multiplier, "inverse_factor"), "inverse_scaled", shift=shift)
    row_shift = ints.sub(ints.constant(15, "fifteen"), stats.half_shift, "inverse_shift")
    return ints.shift_right_rounding(scaled, row_shift, "inverse")


# ---- layer_norm: the exact form ---------------------------------------------------------------------


def _half_shift(value: int) -> int:
    """normalize_even's half_shift of a positive ``value`` below 2**29: ceil((clz(value) - 1) / 2)."""
    return math.ceil((32 - value.bit_length() - 1) / 2)


@dataclasses.dataclass(frozen=True)
class _RowExponents:
    """The exact form's per-row powers of two ``2**e`` with ``e = min(half_shift, cap) + offset``.

    half_shift lies in [1, 15]. Where ``x * N * 2**15`` and ``S * 2**15`` fit int32 (N up to 256) e is
    half_shift itself. Otherwise ``cap`` is the half_shift of the least spread a row of distinct values
    has (T is the sum of the squared differences of all pairs, so a row that is not constant has
    T >= N - 1; rows above the cap are constant, where x * N - S = 0 whatever e is), and ``offset`` is
    0 or -1 as the terms at the cap fit int32 (N up to 1024); beyond that rows whose e would be negative
    take e = 0 and shift their multiplier right instead, losing those bits.
    """

    cap: int | None
    offset: int

    @classmethod
    def for_rows(cls, count: int, variance_shift: int) -> "_RowExponents":
        # |x * N - S| <= 256 * N; |x| * N and |S| alone are below 128 * N.
        headroom = math.floor(math.log2((2**31 - 1) / (256 * count)))
        if headroom >= _LARGEST_HALF_SHIFT:
            return cls(None, 0)
        # T >> s rounds each of its two terms: a row of distinct values has T >> s >= (N - 1) / 2**s - 1,
        # and eps adds at least one unit.
        cap = _half_shift(max((count - 1) // 2**variance_shift, 1))
        return cls(cap, min(0, headroom - cap))


def normalize_exact(ctx: LoweringContext, x: TosaValue, eps: float, gain: float, bits: int, *, name: str) -> TosaValue:
    """``v = round(z * gain * 2**bits)`` as int32 for int8 rows ``x`` [rows, N] (bits from
    _exact_output_bits), from the row statistics and three full-size operators.

    ``z = (x * N - S) / sqrt(T)`` and ``1 / sqrt(T) = y * 2**(h - 43.5 - s / 2)`` (y and h from
    _row_statistics). ``D = (x * N - S) * 2**e`` is exact in int32 (one MUL by ``N * 2**e`` and one SUB
    of ``S * 2**e``, both per row), and ``v = round(D * m / 2**R)`` with ``m = round(y * c / 2**29)``, c the
    compile-time gain: m keeps 28-30 bits on every row, whatever its spread, because the row's own power
    of two ``2**(h + offset)`` rides on D, which is exact, instead of shrinking a multiplier shared by
    all rows to the range of the least spread row (the form this replaced kept 17-28 bits of M, and
    put 0.03-0.09% of deit_tiny's layer-norm outputs a step off). The one rounding left is v's own
    (bits below an output step) and y's relative error, about 2**-26.
    """
    stats = _row_statistics(ctx, x, eps, name=name, eps_below_unit=True)
    ints, count = stats.ints, x.shape[1]
    exponents = _RowExponents.for_rows(count, stats.variance_shift)
    exponent = stats.half_shift
    if exponents.cap is not None:
        exponent = ints.minimum(exponent, ints.constant(exponents.cap, "exponent_cap"), "capped_half_shift")
    if exponents.offset:
        exponent = ints.add(exponent, ints.constant(exponents.offset, "exponent_offset"), "row_exponent")
    deficit = None
    if exponents.offset < -1:
        zero = ints.constant(0, "zero")
        below = ints.minimum(exponent, zero, "exponent_below_zero")
        exponent, deficit = ints.sub(exponent, below, "row_exponent_clamped"), ints.sub(zero, below, "exponent_deficit")
    scaled_count = ints.shift_left(ints.constant(count, "count_multiplier"), exponent, "scaled_count")
    scaled_total = ints.shift_left(stats.total, exponent, "scaled_total")
    centered = ints.sub(ints.mul(stats.wide, scaled_count, "scaled_x", shift=0), scaled_total, "centered")
    # v = D * y * c * 2**(h - e) with c = gain * 2**(bits - 43.5 - s / 2) = multiplier * 2**-shift.
    multiplier, shift = multiplier_and_shift(gain * 2.0 ** (bits - 43.5 - stats.variance_shift / 2))
    product_shift = shift - _ROW_MULTIPLIER_SHIFT + exponents.offset
    # Vela runs an int32 MUL with a shift above 31 with double rounding: m gives up bits instead.
    row_multiplier_shift = _ROW_MULTIPLIER_SHIFT + max(0, product_shift - _MAX_MUL_SHIFT)
    product_shift = min(product_shift, _MAX_MUL_SHIFT)
    if product_shift < 0:
        raise ValueError(f"{name}: the layer norm's gain {gain} leaves no shift for its product")
    row_multiplier = ints.mul(stats.inverse_sqrt, ints.constant(multiplier, "gain"), "row_multiplier",
                              shift=row_multiplier_shift)  # fmt: skip
    if deficit is not None:
        row_multiplier = ints.shift_right_rounding(row_multiplier, deficit, "row_multiplier_reduced")
    return ints.mul(centered, row_multiplier, "normalized", shift=product_shift)


def _exact_output_bits(count: int, gain: float, bias_steps: float) -> int:
    """K of ``v = z * gain * 2**K``: ``v + bias`` must fit int32 for every |z| <= sqrt(N - 1)."""
    value = math.sqrt(max(count - 1, 1)) * gain + bias_steps
    return math.floor(math.log2(_AFFINE_LIMIT / value))


def _least_spread(count: int) -> float:
    """A T below that of any row of distinct int8 values (N - 1, one value a step off the others),
    with room for ``T >> s`` rounding it down: rows below it are constant, where M does not matter."""
    return max((count - 1) / 2, 1.0)


def _two_term_output_bits(count: int, gain: float, bias_steps: float) -> int:
    """K of ``v = z * gain * 2**K``: the two terms (|x| <= 128, |S| <= 128 * N, M at most its clamp at
    the least spread) and ``v + bias`` must fit int32."""
    term = 128 * count * gain / math.sqrt(_least_spread(count))
    value = math.sqrt(max(count - 1, 1)) * gain + bias_steps
    return math.floor(min(math.log2(_TERM_LIMIT / term), math.log2(_AFFINE_LIMIT / value)))


def normalize_two_terms(
    ctx: LoweringContext, x: TosaValue, eps: float, gain: float, bits: int, *, name: str
) -> TosaValue:
    """``v = round(z * gain * 2**bits)`` as int32 for int8 rows ``x`` [rows, N] (bits from
    _two_term_output_bits), from the row statistics and one full-size MUL and SUB: the U55's form
    (see ``ExactForm``), session 7's on every target.

    ``v = x * A / 2**(r - a) - S * M / 2**r`` with ``M = gain * 2**(bits + r) / sqrt(T + eps)`` and
    ``A = N * M / 2**a``. Each term must fit int32 alone, and both are largest where M is, on a row of
    equal values (whose spread is eps alone); there x * N - S = 0 whatever M is, so M is clamped to its
    value at the least spread of distinct values, which bounds the terms (and fixes ``bits``). r puts
    that clamp at 2**_EXACT_INVERSE_BITS (or lower where s is small: see _inverse), the most bits M can
    keep. Each term rounds onto the 2**-bits grid (13-16 bits below an output step), which with the
    output RESCALE's own rounding put 8 of 302,592 outputs of a ViT layer norm a step off.
    """
    stats = _row_statistics(ctx, x, eps, name=name)
    ints, count = stats.ints, x.shape[1]
    least = _least_spread(count)
    # M * 2**(15 - half_shift) <= M * sqrt(D) (see normalize_even) must fit int32 in _inverse.
    clamp_bits = min(_EXACT_INVERSE_BITS, 30 - math.log2(math.sqrt(least) * 2.0 ** (-stats.variance_shift / 2)))
    row_shift = max(0, math.floor(clamp_bits - bits - math.log2(gain / math.sqrt(least))))
    numerator = gain * 2.0 ** (bits + row_shift)
    clamp = math.floor(numerator / math.sqrt(least))
    # M = numerator / sqrt(D * 2**s) = (numerator * 2**(-15 - s/2)) * 2**15 / sqrt(D).
    unclamped = _inverse(stats, numerator * 2.0 ** (-15 - stats.variance_shift / 2))
    inverse = ints.minimum(unclamped, ints.constant(clamp, "inverse_limit"), "inverse_clamped")
    count_shift = max(0, math.ceil(math.log2(count * clamp)) - 30)
    scaled_count = ints.mul(inverse, ints.constant(count, "count_multiplier"), "scaled_count", shift=count_shift)
    offset = ints.mul(stats.total, inverse, "offset", shift=row_shift)
    product = ints.mul(stats.wide, scaled_count, "scaled_x", shift=row_shift - count_shift)
    return ints.sub(product, offset, "normalized")


@dataclasses.dataclass(frozen=True)
class ExactForm:
    """One way to compute ``v = round(z * gain * 2**K)``: ``output_bits(N, gain, largest bias in steps)``
    gives K, ``normalize(ctx, rows, eps, gain, K, name=)`` v."""

    output_bits: Callable[[int, float, float], int]
    normalize: Callable[..., TosaValue]


# The U55 keeps the two-term form for group_norm and for layer norms of few short rows
# (layer_norm.exact_form_of_rows): the exact form's second full-size int32 MUL costs 56,736 U55-128
# cycles on a [197, 192] layer norm (208,095 -> 321,242 in all) and took bert's U55-128 cycles from
# 266,576 to 276,816, above the peer's 268,265. The U85 runs the exact form at 86,068 -> 123,788.
EXACT_FORM = ExactForm(_exact_output_bits, normalize_exact)
TWO_TERM_FORM = ExactForm(_two_term_output_bits, normalize_two_terms)
_EXACT_FORMS = {False: EXACT_FORM, True: TWO_TERM_FORM}


def exact_form(spec: TosaSpecification) -> ExactForm:
    """The form of the target: the exact one but on the U55 (see _EXACT_FORMS)."""
    return _EXACT_FORMS[spec.has("u55")]


def has_uniform_weight(weight: np.ndarray | None) -> bool:
    """One positive weight for every channel (the unit weights of an initialized model): it folds into
    the exact form's row multiplier, with no per-channel MUL."""
    if weight is None:
        return True
    weights = weight.reshape(-1)
    return bool(weights[0] > 0 and np.all(weights == weights[0]))


def _weighted(
    ctx: LoweringContext,
    ints: Int32Emitter,
    x: TosaValue,
    weight: np.ndarray | None,
    weights: np.ndarray,
    eps: float,
    output: QParams,
    largest_bias: float,
    weight_shape: tuple[int, ...],
    *,
    name: str,
    rows_as: tuple[int, ...] | None = None,
    form: ExactForm | None = None,
) -> tuple[TosaValue, int]:
    """``w * z / s_out * 2**K`` in int32 and its K, for int8 rows ``x`` in ``form`` (by default the
    target's, ``exact_form``).

    One positive weight goes into M's gain; other weights (``weights``, laid out as ``weight_shape``
    against the rows seen ``rows_as``) are a MUL of ``v = z * 2**F`` by ``W = w / s_out * 2**H`` with a
    rounding shift (TOSA's int32 MUL takes signed operands)."""
    count = x.shape[1]
    form = form or exact_form(ctx.spec)
    if has_uniform_weight(weight):
        gain = float(weights[0]) / output.scale
        bits = form.output_bits(count, gain, largest_bias)
        value = form.normalize(ctx, x, eps, gain, bits, name=name)
        return (value if rows_as is None else reshape(ctx.graph, value, rows_as, name=f"{name}_channels")), bits
    fraction_bits = form.output_bits(count, 1.0, 0.0)
    normalized = form.normalize(ctx, x, eps, 1.0, fraction_bits, name=name)
    if rows_as is not None:
        normalized = reshape(ctx.graph, normalized, rows_as, name=f"{name}_channels")
    steps = weights / output.scale
    largest_steps = float(np.abs(steps).max())
    weight_bits = _WEIGHT_BITS - math.ceil(math.log2(largest_steps)) if largest_steps > 0 else _WEIGHT_BITS
    value_bound = math.sqrt(max(count - 1, 1)) * largest_steps + largest_bias
    bits = min(math.floor(math.log2(_AFFINE_LIMIT / value_bound)), fraction_bits + weight_bits)
    int_weights = np.round(steps * 2.0**weight_bits).astype(np.int32).reshape(weight_shape)
    value = ints.mul(normalized, ctx.graph.add_const(f"{name}_affine_weight", int_weights), "scaled",
                     shift=fraction_bits + weight_bits - bits)  # fmt: skip
    return value, bits


def layer_norm_exact(
    ctx: LoweringContext,
    x: TosaValue,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    eps: float,
    output: QParams,
    shape: tuple[int, ...],
    *,
    name: str,
    form: ExactForm | None = None,
) -> TosaValue:
    """``w * z + b`` onto the output grid for int8 rows ``x`` [rows, N] and [N] weight and bias, as a
    tensor of ``shape`` named ``name``: the layer's own tensor, which arm.report.bisect probes (the
    int32 value is reshaped, which costs nothing, rather than the result after the RESCALE). ``form``:
    how v is computed (by default the target's, ``exact_form``).

    ``y = (w * z + b) / s_out * 2**K`` in int32, then ``RESCALE(y, 2**-K)`` with the output zero point.
    One positive weight (unit weights included) goes into M's gain; other weights are a MUL of
    ``v = z * 2**F`` by ``W = w / s_out * 2**H`` with a rounding shift (TOSA's int32 MUL takes signed
    operands). The bias, where there is one, is an ADD on y's grid.
    """
    count = x.shape[1]
    weights = np.ones(count) if weight is None else weight.reshape(count)
    bias_steps = None if bias is None or not np.any(bias) else bias.reshape(count) / output.scale
    largest_bias = 0.0 if bias_steps is None else float(np.abs(bias_steps).max())
    ints = Int32Emitter(ctx.graph, f"{name}_affine", rank=2)
    value, bits = _weighted(ctx, ints, x, weight, weights, eps, output, largest_bias, (1, count), name=name,
                            form=form)  # fmt: skip
    # The bias is an ADD on y's grid. Without one the U85 still gets an ADD (of zero): Vela folds the
    # RESCALE below into an ADD, not into a MUL (77,656 U85-256 cycles as an operator of its own on a
    # [197, 192] layer norm, against 18,912 for the ADD); on the U55 the two cost the same.
    if bias_steps is not None or ctx.spec.has("u85"):
        int_biases = (np.zeros((1, 1)) if bias_steps is None else np.round(bias_steps * 2.0**bits).reshape(1, count))
        value = ints.add(value, ctx.graph.add_const(f"{name}_affine_bias", int_biases.astype(np.int32)), "shifted")
    if tuple(shape) != value.shape:
        value = reshape(ctx.graph, value, shape, name=f"{name}_int32")
    # A pure power of two: Vela folds it into the ADD before it (on the U55 into no MUL either).
    return rescale(ctx.graph, value, name=name, scales=[2.0**-bits], output_dtype=output.dtype,
                   input_zp=0, output_zp=output.zero_point, output_qparams=output)  # fmt: skip


# ---- group_norm: the int16 normalized value u -------------------------------------------------------


def _count_bits(count: int) -> int:
    return math.ceil(math.log2(count)) if count > 1 else 0


def _fraction_bits(count: int, bound: float = math.inf) -> int:
    """F of ``u = z * 2**F``: u must fit int16 for every |z| up to ``bound``, and |z| <= sqrt(N - 1)."""
    largest = min(math.sqrt(max(count - 1, 1)), bound)
    # x * A and S * M (each up to 2**(37 + ceil(log2 N) - 30 + F) before their shifts) stay in int32.
    headroom = 23 - _count_bits(count)
    return min(math.floor(math.log2(32767 / largest)), _MAX_FRACTION_BITS, headroom)


def unsaturated_bound(weight: np.ndarray | None, bias: np.ndarray | None, count: int, output: QParams) -> float:
    """The largest |z| whose output ``z * w_c + b_c`` lies on the output grid for some channel c.

    Beyond it every channel's output saturates, so u may saturate there too: a u clamped to int16 still
    lands beyond the grid on the same side (w_c * u * 2**-F + b_c keeps its sign of z), and both
    round to the same end code. Every bit F gains halves u's rounding error. Weights near 0 (a bound
    as large as sqrt(N - 1)) leave F where it was.
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


def normalize_rows_int(
    ctx: LoweringContext, x: TosaValue, eps: float, *, name: str, bound: float = math.inf
) -> tuple[TosaValue, int]:
    """Steps 1-3 for int8 rows ``x`` [rows, N]: ``(u, F)``, u the int16 normalized value times 2**F.

    ``bound``: the largest |z| that must not saturate u (beyond it every output saturates); the
    default keeps every z.
    """
    stats = _row_statistics(ctx, x, eps, name=name)
    ints, count = stats.ints, x.shape[1]
    # M = 2**30 / sqrt(D * 2**s), below 2**30.
    inverse = _inverse(stats, 2.0 ** (_INVERSE_BITS - 15 - stats.variance_shift / 2))
    fraction_bits = _fraction_bits(count, bound)
    # u = x * N * M / 2**(30 - F) - S * M / 2**(30 - F); A = N * M / 2**count_bits stays below 2**30.
    count_bits = _count_bits(count)
    x_shift = _INVERSE_BITS - fraction_bits - count_bits
    scaled_count = ints.mul(inverse, ints.constant(count, "count_multiplier"), "scaled_count", shift=count_bits)
    offset = ints.mul(stats.total, inverse, "offset", shift=_INVERSE_BITS - fraction_bits)
    product = ints.mul(stats.wide, scaled_count, "scaled_x", shift=x_shift)
    normalized_value = rescale(ctx.graph, ints.sub(product, offset, "centered"), name=f"{name}_normalized",
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


# ---- group_norm: the exact form -------------------------------------------------------------------


def group_norm_exact(
    ctx: LoweringContext,
    x: TosaValue,
    weight: np.ndarray | None,
    bias: np.ndarray | None,
    eps: float,
    output: QParams,
    channels_shape: tuple[int, int, int],
    *,
    name: str,
) -> TosaValue:
    """``w_c * z + b_c`` onto the output grid for int8 group rows ``x`` [N * G, C / G * HW] and [C]
    weight and bias, as an int8 tensor of ``channels_shape`` [N, C, HW] named ``name``.

    layer_norm_exact's steps with the channel on the middle axis: a group's row is C / G whole
    channels, so reshaping the int32 ``v`` to [N, C, HW] costs nothing, and the per-channel weight and
    bias are [1, C, 1] int32 operands broadcast over the positions (no transposes, where the int16 form
    moved u channels-last for its DEPTHWISE_CONV2D and back). One positive weight goes into M's gain.
    """
    channels = channels_shape[1]
    weights = np.ones(channels) if weight is None else weight.reshape(channels)
    bias_steps = None if bias is None or not np.any(bias) else bias.reshape(channels) / output.scale
    largest_bias = 0.0 if bias_steps is None else float(np.abs(bias_steps).max())
    ints = Int32Emitter(ctx.graph, f"{name}_affine", rank=3)
    value, bits = _weighted(ctx, ints, x, weight, weights, eps, output, largest_bias, (1, channels, 1),
                            name=name, rows_as=channels_shape)  # fmt: skip
    if bias_steps is not None:
        int_biases = np.round(bias_steps * 2.0**bits).astype(np.int32)
        # One bias for every channel is one value broadcast, which Vela adds without splitting the ADD.
        shape = (1, 1, 1) if np.all(int_biases == int_biases[0]) else (1, channels, 1)
        int_biases = int_biases[: math.prod(shape)].reshape(shape)
        value = ints.add(value, ctx.graph.add_const(f"{name}_affine_bias", int_biases), "shifted")
    # A pure power of two: Vela folds it into the SUB, MUL or ADD before it.
    return rescale(ctx.graph, value, name=name, scales=[2.0**-bits], output_dtype=output.dtype,
                   input_zp=0, output_zp=output.zero_point, output_qparams=output)  # fmt: skip
