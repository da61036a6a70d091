"""int32 fixed-point building blocks for INT lowerings that need more than one rescale (softmax, norms).

TOSA's INT profile has no division or square root. These helpers build them from operators every
Ethos-U runs on int32 (ADD, SUB, MUL with a shift, CLZ, LOGICAL_LEFT_SHIFT, ARITHMETIC_RIGHT_SHIFT,
int8 TABLE), the way integer softmax kernels do: normalize the operand with CLZ, refine an estimate
of the reciprocal (square root) with Newton-Raphson, and undo the normalization with a per-element
shift. Lowerings use them on per-row statistics, where they cost little; the lookups that produce
full-size tensors (``lookup14``, ``lookup_steps``) give int16 results, which Ethos-U elementwise
operators move at half the cost of int32 ones.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np
import tosa_serializer as ts

from arm.ops.common.table import INT8_VALUES, table
from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.rescale import rescale

_INT32 = np.dtype(np.int32)
_INT16 = np.dtype(np.int16)
# The largest value ``lookup14`` holds: two seven-bit halves in int8 table bytes.
LOOKUP14_MAX = (1 << 14) - 1

# Newton-Raphson on 1/x for x in [0.5, 1) starts from 48/17 - 32/17 * x (the best linear start,
# error <= 1/17); the error squares each step: 3.5e-3, 1.2e-5, then 1.4e-10, below Q28's own rounding.
# Two steps leave 16 good bits, three all 28 (each step is four more per-row operators).
RECIPROCAL_STEPS = 3
# Results of ``reciprocal_sqrt`` are Q27: 1/sqrt(x) for x in [1/8, 1) is below 2.83, and its square
# (computed on the way) must fit int32 too.
RSQRT_FRACTION_BITS = 27
# A 256-entry table of 1/sqrt on the top bits starts Newton-Raphson within 0.8%; the relative error
# after a step is about 1.5 times its square: 1e-4, then 1.5e-8.
RSQRT_STEPS = 2
# Results of ``reciprocal`` are Q3.28: 1/x lies in (1, 2], and estimates may overshoot 2 slightly;
# the headroom keeps every MUL operand inside TOSA's apply_scale_32 range.
RECIPROCAL_FRACTION_BITS = 28


@dataclasses.dataclass
class Int32Emitter:
    """Adds int32 operators to ``graph``, naming each ``{prefix}_{what}``.

    ``rank`` is the rank of the tensors computed with; constants get that rank with all dims 1, so
    TOSA's equal-rank broadcasting applies.
    """

    graph: TosaGraph
    prefix: str
    rank: int

    def constant(self, value: int, what: str) -> TosaValue:
        return self.graph.add_const(f"{self.prefix}_{what}", np.full((1,) * self.rank, value, _INT32))

    def add(self, lhs: TosaValue, rhs: TosaValue, what: str) -> TosaValue:
        return self._binary(ts.Op.ADD, ts.TosaSerializerAttribute.AddAttribute, [lhs, rhs], what)

    def sub(self, lhs: TosaValue, rhs: TosaValue, what: str) -> TosaValue:
        return self._binary(ts.Op.SUB, ts.TosaSerializerAttribute.SubAttribute, [lhs, rhs], what)

    def mul(self, value: TosaValue, multiplier: TosaValue, what: str, *, shift: int) -> TosaValue:
        """``round(value * multiplier / 2**shift)``, computed exactly in 64 bits, as int32.

        Both inputs have one type; int8 and int16 ones take ``shift=0``. TOSA (apply_scale_32) requires ``multiplier >= 0`` and ``|value| < 2**(shift - 1)``; the result
        must fit int32.
        """
        shift_value = self.graph.add_scalar_const(f"{self.prefix}_{what}_shift", shift, np.int8)
        return self._binary(ts.Op.MUL, ts.TosaSerializerAttribute.MulAttribute, [value, multiplier, shift_value], what)

    def minimum(self, lhs: TosaValue, rhs: TosaValue, what: str) -> TosaValue:
        def set_attribute(attribute: ts.TosaSerializerAttribute) -> None:
            attribute.MinimumAttribute(ts.NanPropagationMode.PROPAGATE)

        return self._binary(ts.Op.MINIMUM, set_attribute, [lhs, rhs], what)

    def maximum(self, lhs: TosaValue, rhs: TosaValue, what: str) -> TosaValue:
        def set_attribute(attribute: ts.TosaSerializerAttribute) -> None:
            attribute.MaximumAttribute(ts.NanPropagationMode.PROPAGATE)

        return self._binary(ts.Op.MAXIMUM, set_attribute, [lhs, rhs], what)

    def intdiv(self, dividend: TosaValue, divisor: TosaValue, what: str) -> TosaValue:
        """``dividend / divisor`` truncated towards zero; the divisor must be nonzero everywhere."""
        return self._binary(ts.Op.INTDIV, ts.TosaSerializerAttribute.IntDivAttribute, [dividend, divisor], what)

    def shift_left(self, value: TosaValue, amount: TosaValue, what: str) -> TosaValue:
        return self._binary(
            ts.Op.LOGICAL_LEFT_SHIFT, ts.TosaSerializerAttribute.LogicalLeftShiftAttribute, [value, amount], what
        )

    def shift_right_rounding(self, value: TosaValue, amount: TosaValue, what: str) -> TosaValue:
        def set_attribute(attribute: ts.TosaSerializerAttribute) -> None:
            attribute.ArithmeticRightShiftAttribute(True)

        return self._binary(ts.Op.ARITHMETIC_RIGHT_SHIFT, set_attribute, [value, amount], what)

    def shift_right_rounding_by(self, value: TosaValue, amount: int, what: str) -> TosaValue:
        return self.shift_right_rounding(value, self.constant(amount, f"{what}_amount"), what)

    def lookup16(self, index: TosaValue, values: np.ndarray, what: str) -> TosaValue:
        """``values[index + 128]`` as int32 for an int8 ``index`` and 256 values in [0, 65535].

        Two int8 TABLEs give the high and low byte (U55/U65 have no int16 TABLE); the bytes are
        stored offset by -128 and the RESCALEs to int32 add it back.
        """
        values = np.asarray(values, dtype=np.int64)
        if values.shape != (256,) or values.min() < 0 or values.max() > 0xFFFF:
            raise ValueError(f"{self.prefix}_{what}: a 16-bit lookup needs 256 values in [0, 65535]")
        high = table(self.graph, index, ((values >> 8) - 128).astype(np.int8), name=f"{self.prefix}_{what}_high",
                     qparams=None)  # fmt: skip
        low = table(self.graph, index, ((values & 0xFF) - 128).astype(np.int8), name=f"{self.prefix}_{what}_low",
                    qparams=None)  # fmt: skip
        return self.add(self.widen(high, f"{what}_high_int32", scale=256.0, zero_point=-128),
                        self.widen(low, f"{what}_low_int32", zero_point=-128), what)  # fmt: skip

    def lookup14(self, index: TosaValue, values: np.ndarray, what: str, *, wide: bool = False) -> TosaValue:
        """``values[index + 128]`` as int16 (int32 if ``wide``) for an int8 ``index`` and 256 values in
        [0, LOOKUP14_MAX].

        Two int8 TABLEs hold the value's top seven bits (negated) and its low seven bits; two int8 MULs
        (by -128 and by 1) widen them to int32 and one ADD sums them into an int16, which Vela runs as
        three full-size operations (``lookup16`` takes five int32 ones). The MULs keep the ADD's inputs
        unscaled: Vela 5.2.0's U55 ADD that folds unequal input RESCALEs into an int16 result departs
        from the TOSA reference model on our NPU model.
        """
        values = np.asarray(values, dtype=np.int64)
        if values.shape != (256,) or values.min() < 0 or values.max() > LOOKUP14_MAX:
            raise ValueError(f"{self.prefix}_{what}: a 14-bit lookup needs 256 values in [0, {LOOKUP14_MAX}]")
        ones = (1,) * self.rank
        minus_high = table(self.graph, index, (-(values >> 7)).astype(np.int8), name=f"{self.prefix}_{what}_high",
                           qparams=None)  # fmt: skip
        low = table(self.graph, index, (values & 0x7F).astype(np.int8), name=f"{self.prefix}_{what}_low", qparams=None)
        high_part = self.mul(minus_high, self.graph.add_const(f"{self.prefix}_{what}_minus_128", np.full(ones, -128, np.int8)),
                             f"{what}_high_int32", shift=0)  # fmt: skip
        low_part = self.mul(low, self.graph.add_const(f"{self.prefix}_{what}_one", np.full(ones, 1, np.int8)),
                            f"{what}_low_int32", shift=0)  # fmt: skip
        combined = self.add(high_part, low_part, f"{what}_int32")
        if wide:
            return combined
        return rescale(self.graph, combined, name=f"{self.prefix}_{what}", scales=[1.0], output_dtype=_INT16,
                       input_zp=0, output_zp=0)  # fmt: skip

    def lookup_steps(self, steps: TosaValue, values: np.ndarray, what: str, *, below_range: int | None = None) -> TosaValue:
        """``values[steps + 255]`` as int16 for int32 ``steps`` in [-255, 0] and 256 int16 values.

        One int16 TABLE (TOSA's 513-entry interpolating table): ``128 * steps`` lands exactly on entry
        ``steps + 256``, with no interpolation, and the int32 result (the entry times 128) is narrowed
        back. For targets with an int16 TABLE (not U55/U65), where it replaces the two int8 TABLEs of
        ``lookup14``.
        """
        values = np.asarray(values, dtype=np.int64)
        if values.shape != (256,) or values.min() < -(1 << 15) or values.max() >= 1 << 15:
            raise ValueError(f"{self.prefix}_{what}: a steps lookup needs 256 int16 values")
        # Entries 257..512 are never read; they repeat the nearest used entry. Entry 0 is read by steps
        # of -256 and below: ``below_range`` when given (a masked softmax's hidden keys), else values[0].
        first = values[:1] if below_range is None else np.array([below_range])
        entries = np.concatenate([first, values, np.full(256, values[-1])]).astype(np.int16)
        index = rescale(self.graph, steps, name=f"{self.prefix}_{what}_index", scales=[128.0], output_dtype=_INT16,
                        input_zp=0, output_zp=0)  # fmt: skip
        looked_up = self.graph.add_tensor(f"{self.prefix}_{what}_table", steps.shape, _INT32)
        attribute = ts.TosaSerializerAttribute()
        attribute.TableAttribute()
        self.graph.add_op(ts.Op.TABLE, [index, self.graph.add_const(f"{self.prefix}_{what}_entries", entries)],
                          [looked_up], attribute, elementwise_unary=True)  # fmt: skip
        return rescale(self.graph, looked_up, name=f"{self.prefix}_{what}", scales=[2.0**-7], output_dtype=_INT16,
                       input_zp=0, output_zp=0)  # fmt: skip

    def widen(self, value: TosaValue, what: str, *, scale: float = 1.0, zero_point: int = 0) -> TosaValue:
        """RESCALE to int32: ``(value - zero_point) * scale``."""
        return rescale(self.graph, value, name=f"{self.prefix}_{what}", scales=[scale], output_dtype=_INT32,
                       input_zp=zero_point, output_zp=0)  # fmt: skip

    def leading_zeros(self, value: TosaValue, what: str) -> TosaValue:
        return self._op(ts.Op.CLZ, ts.TosaSerializerAttribute.ClzAttribute, [value], value.shape, what)

    def _binary(
        self,
        op: ts.Op,
        set_attribute: Callable[[ts.TosaSerializerAttribute], None],
        inputs: list[TosaValue],
        what: str,
    ) -> TosaValue:
        shape = tuple(max(dims) for dims in zip(inputs[0].shape, inputs[1].shape))
        return self._op(op, set_attribute, inputs, shape, what)

    def _op(
        self,
        op: ts.Op,
        set_attribute: Callable[[ts.TosaSerializerAttribute], None],
        inputs: Sequence[TosaValue],
        shape: tuple[int, ...],
        what: str,
    ) -> TosaValue:
        output = self.graph.add_tensor(f"{self.prefix}_{what}", shape, _INT32)
        attribute = ts.TosaSerializerAttribute()
        set_attribute(attribute)
        self.graph.add_op(op, list(inputs), [output], attribute)
        return output


@dataclasses.dataclass(frozen=True)
class Normalized:
    """A positive int32 ``value`` as ``mantissa * 2**-shift``, mantissa in [2**30, 2**31)."""

    mantissa: TosaValue
    shift: TosaValue


def normalize(emitter: Int32Emitter, value: TosaValue) -> Normalized:
    """Shifts each (positive) element left until its top bit sits just below the sign bit."""
    leading_zeros = emitter.leading_zeros(value, "clz")
    shift = emitter.sub(leading_zeros, emitter.constant(1, "sign_bit"), "normalize_shift")
    return Normalized(emitter.shift_left(value, shift, "normalized"), shift)


def reciprocal(emitter: Int32Emitter, mantissa: TosaValue, *, steps: int = RECIPROCAL_STEPS) -> TosaValue:
    """``2**28 / x`` (Q3.28) for ``x = mantissa / 2**31`` in [0.5, 1), by ``steps`` of Newton-Raphson."""
    one = 1 << RECIPROCAL_FRACTION_BITS
    start_offset = emitter.constant(round(48 / 17 * one), "nr_offset")
    start_slope = emitter.constant(round(32 / 17 * one), "nr_slope")
    estimate = emitter.sub(start_offset, emitter.mul(start_slope, mantissa, "nr_start_term", shift=31), "nr_0")
    one_value = emitter.constant(one, "nr_one")
    for step in range(1, steps + 1):
        # r += r * (1 - x * r): x * r and the correction are Q3.28 like r.
        product = emitter.mul(estimate, mantissa, f"nr_{step}_xr", shift=31)
        error = emitter.sub(one_value, product, f"nr_{step}_error")
        correction = emitter.mul(error, estimate, f"nr_{step}_correction", shift=RECIPROCAL_FRACTION_BITS)
        estimate = emitter.add(estimate, correction, f"nr_{step}")
    return estimate


@dataclasses.dataclass(frozen=True)
class EvenNormalized:
    """A positive int32 ``value`` as ``mantissa * 2**-(2 * half_shift - 2)``.

    The shift is even so its square root is a whole power of two; the mantissa lies in [2**28, 2**31).
    """

    mantissa: TosaValue
    half_shift: TosaValue


# ``normalize_even``'s fraction is a Q29 constant: the MUL that scales it by ``2**(2 * half_shift)``
# then shifts by 31, the int32 MUL's largest single-rounding shift (see int8_normalization's _MAX_MUL_SHIFT).
FRACTION_BITS = 29


def normalize_even(
    emitter: Int32Emitter, value: TosaValue, *, fraction: int = 0, below_2_31: bool = False
) -> EvenNormalized:
    """Like ``normalize``, but shifting by an even amount: 2 * ceil(s / 2) - 2 for the odd-or-even s
    that ``normalize`` would use.

    ``value`` is below 2**29 (s >= 2: a left shift), or with ``below_2_31`` any positive int32: then
    the mantissa is ``round(value * 2**(2 * half_shift) / 4)``, one MUL by a per-row power of two with a
    shift of 2, which is the left shift for values below 2**30 and divides the values above it (s = 0,
    half_shift 0) by 4, rounding away 2**-29 of them at most. That lets a layer norm normalize its
    integer variance T whole where T fits in 2**30 (N up to 257 for int8 data) instead of rounding it
    to ``T >> s`` first: on deit_tiny's 192-wide rows that rounding (s = 2) moved a normalized value
    by 1.4e-8 of itself, 6e-7 of an output step, and put one of its layer-norm outputs a step off.

    ``fraction`` (a Q29 constant in [0, 2**29), only with ``below_2_31``) is added to ``value`` below
    its integer unit: ``round(fraction * 2**(2 * half_shift - 2 - 29))`` joins the mantissa, two more
    per-row operators. The shift comes from ``value`` alone, and the mantissa stays below 2**30 +
    2**28. A layer norm's eps in units of its integer variance is such a fraction: rounding it to a
    whole unit moved a normalized value by up to 1.5e-6 of an output step, enough to round it the
    other way than the quantized model's float at one of Conformer's 8,192 layer-norm outputs.
    """
    leading_zeros = emitter.leading_zeros(value, "clz")
    shift = emitter.sub(leading_zeros, emitter.constant(1, "sign_bit"), "normalize_shift")
    half_shift = emitter.shift_right_rounding_by(shift, 1, "half_shift")  # ceil(shift / 2)
    doubled = emitter.add(half_shift, half_shift, "doubled_half_shift")
    if not below_2_31:
        if fraction:
            raise ValueError(f"{emitter.prefix}: normalize_even takes a fraction only with below_2_31")
        even_shift = emitter.sub(doubled, emitter.constant(2, "two"), "even_shift")
        return EvenNormalized(emitter.shift_left(value, even_shift, "even_normalized"), half_shift)
    scale = emitter.shift_left(emitter.constant(1, "one"), doubled, "shift_scale")  # 2**(2 * half_shift)
    mantissa = emitter.mul(value, scale, "even_normalized", shift=2)
    if fraction:
        if not 0 < fraction < 1 << FRACTION_BITS:
            raise ValueError(f"{emitter.prefix}: normalize_even's fraction {fraction} is not a Q29 value in [0, 1)")
        below_unit = emitter.mul(emitter.constant(fraction, "fraction"), scale, "fraction_scaled", shift=31)
        mantissa = emitter.add(mantissa, below_unit, "even_normalized_fraction")
    return EvenNormalized(mantissa, half_shift)


def reciprocal_sqrt(emitter: Int32Emitter, mantissa: TosaValue, *, steps: int = RSQRT_STEPS) -> TosaValue:
    """``2**27 / sqrt(x)`` (Q27) for ``x = mantissa / 2**31`` in [1/8, 1): a TABLE on the top eight
    bits starts ``steps`` of Newton-Raphson, ``y = y * (3 - x * y**2) / 2``, four per-row operators each."""
    graph = emitter.graph
    one = 1 << RSQRT_FRACTION_BITS
    # mantissa / 2**23 is in [32, 256]: offset by -128 it indexes an int8 table (256 saturates to 255).
    index = rescale(
        graph, mantissa, name=f"{emitter.prefix}_rsqrt_index", scales=[2.0**-23], output_dtype=np.dtype(np.int8),
        input_zp=0, output_zp=-128,
    )  # fmt: skip
    # Table entries are 64 / sqrt(top / 256) - 128, in [-64, 53]; indices below 32 never occur.
    top = np.maximum(INT8_VALUES + 128, 32).astype(np.float64)
    entries = (np.round(64.0 / np.sqrt(top / 256.0)) - 128).astype(np.int8)
    start = table(graph, index, entries, name=f"{emitter.prefix}_rsqrt_start", qparams=None)
    # The start u = entry + 128 is y / 2**21 (Q6), widened by an int8 MUL and an ADD: a RESCALE by 2**21
    # with the table's zero point cost Vela 5.2.0 six operators (an ADD and a MUL for each use).
    ones = np.ones((1,) * emitter.rank, np.int8)
    start_value = emitter.mul(start, graph.add_const(f"{emitter.prefix}_rsqrt_start_one", ones), "rsqrt_start_int32",
                              shift=0)  # fmt: skip
    start_q6 = emitter.add(start_value, emitter.constant(128, "rsqrt_start_offset"), "rsqrt_0")
    three = emitter.constant(3 * one, "rsqrt_three")
    # The first step on u: y**2 / 2**27 = u**2 * 2**15 and y * f / 2**28 = u * f / 2**7, the same integers.
    start_shift = RSQRT_FRACTION_BITS - 6
    square = emitter.mul(start_q6, start_q6, "rsqrt_1_square", shift=0)
    product = emitter.mul(square, mantissa, "rsqrt_1_xyy", shift=31 - (2 * start_shift - RSQRT_FRACTION_BITS))
    factor = emitter.sub(three, product, "rsqrt_1_factor")
    estimate = emitter.mul(start_q6, factor, "rsqrt_1", shift=RSQRT_FRACTION_BITS + 1 - start_shift)
    for step in range(2, steps + 1):
        square = emitter.mul(estimate, estimate, f"rsqrt_{step}_square", shift=RSQRT_FRACTION_BITS)
        product = emitter.mul(square, mantissa, f"rsqrt_{step}_xyy", shift=31)
        factor = emitter.sub(three, product, f"rsqrt_{step}_factor")  # (3 - x y^2), Q27
        # y * (3 - x y^2) / 2: the extra shift bit is the halving.
        estimate = emitter.mul(estimate, factor, f"rsqrt_{step}", shift=RSQRT_FRACTION_BITS + 1)
    return estimate
