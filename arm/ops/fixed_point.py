"""int32 fixed-point building blocks for INT lowerings that need more than one rescale (softmax, norms).

TOSA's INT profile has no division or square root. These helpers build them from operators every
Ethos-U runs on int32 (ADD, SUB, MUL with a shift, CLZ, LOGICAL_LEFT_SHIFT, ARITHMETIC_RIGHT_SHIFT),
the way integer softmax kernels do: normalize the operand with CLZ, refine an estimate of the
reciprocal with Newton-Raphson, and undo the normalization with a per-element shift.
"""

from __future__ import annotations

import dataclasses
from typing import Callable, Sequence

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue

_INT32 = np.dtype(np.int32)

# Newton-Raphson on 1/x for x in [0.5, 1) converges from 48/17 - 32/17 * x (the best linear start,
# error <= 1/17) to below int32 resolution in three steps: the error squares each step.
_RECIPROCAL_STEPS = 3
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
        """``round(value * multiplier / 2**shift)``, computed exactly in 64 bits.

        TOSA (apply_scale_32) requires ``multiplier >= 0`` and ``|value| < 2**(shift - 1)``; the result
        must fit int32.
        """
        shift_value = self.graph.add_scalar_const(f"{self.prefix}_{what}_shift", shift, np.int8)
        return self._binary(ts.Op.MUL, ts.TosaSerializerAttribute.MulAttribute, [value, multiplier, shift_value], what)

    def shift_left(self, value: TosaValue, amount: TosaValue, what: str) -> TosaValue:
        return self._binary(
            ts.Op.LOGICAL_LEFT_SHIFT, ts.TosaSerializerAttribute.LogicalLeftShiftAttribute, [value, amount], what
        )

    def shift_right_rounding(self, value: TosaValue, amount: TosaValue, what: str) -> TosaValue:
        def set_attribute(attribute: ts.TosaSerializerAttribute) -> None:
            attribute.ArithmeticRightShiftAttribute(True)

        return self._binary(ts.Op.ARITHMETIC_RIGHT_SHIFT, set_attribute, [value, amount], what)

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


def reciprocal(emitter: Int32Emitter, mantissa: TosaValue) -> TosaValue:
    """``2**28 / x`` (Q3.28) for ``x = mantissa / 2**31`` in [0.5, 1), by Newton-Raphson."""
    one = 1 << RECIPROCAL_FRACTION_BITS
    start_offset = emitter.constant(round(48 / 17 * one), "nr_offset")
    start_slope = emitter.constant(round(32 / 17 * one), "nr_slope")
    estimate = emitter.sub(start_offset, emitter.mul(start_slope, mantissa, "nr_start_term", shift=31), "nr_0")
    one_value = emitter.constant(one, "nr_one")
    for step in range(1, _RECIPROCAL_STEPS + 1):
        # r += r * (1 - x * r): x * r and the correction are Q3.28 like r.
        product = emitter.mul(estimate, mantissa, f"nr_{step}_xr", shift=31)
        error = emitter.sub(one_value, product, f"nr_{step}_error")
        correction = emitter.mul(error, estimate, f"nr_{step}_correction", shift=RECIPROCAL_FRACTION_BITS)
        estimate = emitter.add(estimate, correction, f"nr_{step}")
    return estimate
