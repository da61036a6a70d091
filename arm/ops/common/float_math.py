"""Float arithmetic on TOSA tensors that reads like the formula it computes.

The TOSA 1.0 FP profile has EXP, LOG, SIN, COS, ERF, FLOOR, CEIL, POW, RECIPROCAL, RSQRT and the
arithmetic operators, but no tan, sinh, atan, erfinv, round, ... Those become short compositions
(``m.mul(m.sub(m.exp(x), m.exp(m.neg(x))), 0.5)`` for sinh), written with this builder so that each
op file states its formula and nothing else. Numbers stand for constants of the builder's float type
(float32, or float16/bfloat16 for a half-precision node) broadcast at the tensor's rank; every operator gets a name derived from the node's, so the graph stays readable.
"""

from __future__ import annotations

import math
from typing import Sequence, Union

import numpy as np
import tosa_serializer as ts

from arm.ops.common.elementwise import AttributeSetter
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue

Operand = Union[TosaValue, float]

_FLOAT32 = np.dtype(np.float32)

# atan(z) = z * P(z^2) on [0, 1]: P of degree 8, fitted by least squares in relative error on 4001
# Chebyshev nodes and rounded to float32; evaluated in float32 it is within 1e-7 of atan.
_ATAN_COEFFICIENTS = (
    1.0,
    -0.3333311975002289,
    0.19993293285369873,
    -0.14207756519317627,
    0.10654015094041824,
    -0.07527754455804825,
    0.04293067008256912,
    -0.016197986900806427,
    0.002878729486837983,
)
_BOOL = np.dtype(np.bool_)


class FloatMath:
    """Emits elementwise operators of one float type (``dtype``) into ``ctx.graph``; ``name`` prefixes
    their tensors.

    All operands share one rank (``rank``); tensors of different shapes broadcast as TOSA does. TOSA
    operators take operands of one float type, so constants are made in ``dtype`` too.
    """

    def __init__(self, ctx: LoweringContext, name: str, rank: int, dtype: np.dtype = _FLOAT32):
        self._ctx = ctx
        self._name = name
        self._rank = rank
        self._dtype = np.dtype(dtype)
        self._constants: dict[float, TosaValue] = {}

    # Operands -----------------------------------------------------------------------------------

    def constant(self, value: float) -> TosaValue:
        """A number in the builder's float type at its rank (all dims 1); one tensor per distinct value."""
        key = float(np.asarray(value, dtype=self._dtype).astype(np.float32))
        if key not in self._constants:
            data = np.full((1,) * self._rank, key, dtype=self._dtype)
            self._constants[key] = self._ctx.graph.add_const(f"{self._name}_const", data)
        return self._constants[key]

    def _value(self, operand: Operand) -> TosaValue:
        return operand if isinstance(operand, TosaValue) else self.constant(operand)

    # One input ----------------------------------------------------------------------------------

    def exp(self, x: Operand) -> TosaValue:
        return self._unary(ts.Op.EXP, ts.TosaSerializerAttribute.ExpAttribute, x, "exp")

    def log(self, x: Operand) -> TosaValue:
        return self._unary(ts.Op.LOG, ts.TosaSerializerAttribute.LogAttribute, x, "log")

    def sin(self, x: Operand) -> TosaValue:
        return self._unary(ts.Op.SIN, ts.TosaSerializerAttribute.SinAttribute, x, "sin")

    def cos(self, x: Operand) -> TosaValue:
        return self._unary(ts.Op.COS, ts.TosaSerializerAttribute.CosAttribute, x, "cos")

    def erf(self, x: Operand) -> TosaValue:
        return self._unary(ts.Op.ERF, ts.TosaSerializerAttribute.ErfAttribute, x, "erf")

    def floor(self, x: Operand) -> TosaValue:
        return self._unary(ts.Op.FLOOR, ts.TosaSerializerAttribute.FloorAttribute, x, "floor")

    def ceil(self, x: Operand) -> TosaValue:
        return self._unary(ts.Op.CEIL, ts.TosaSerializerAttribute.CeilAttribute, x, "ceil")

    def abs(self, x: Operand) -> TosaValue:
        return self._unary(ts.Op.ABS, ts.TosaSerializerAttribute.AbsAttribute, x, "abs")

    def reciprocal(self, x: Operand) -> TosaValue:
        return self._unary(ts.Op.RECIPROCAL, ts.TosaSerializerAttribute.ReciprocalAttribute, x, "reciprocal")

    def rsqrt(self, x: Operand) -> TosaValue:
        return self._unary(ts.Op.RSQRT, ts.TosaSerializerAttribute.RsqrtAttribute, x, "rsqrt")

    def sigmoid(self, x: Operand) -> TosaValue:
        return self._unary(ts.Op.SIGMOID, ts.TosaSerializerAttribute.SigmoidAttribute, x, "sigmoid")

    def sqrt(self, x: Operand) -> TosaValue:
        # 1/rsqrt(x) rather than x * rsqrt(x): at 0 that is 1/inf = 0, not 0 * inf = NaN.
        return self.reciprocal(self.rsqrt(x))

    def neg(self, x: Operand) -> TosaValue:
        return self.mul(x, -1.0)

    # Two inputs ---------------------------------------------------------------------------------

    def add(self, lhs: Operand, rhs: Operand) -> TosaValue:
        return self._binary(ts.Op.ADD, ts.TosaSerializerAttribute.AddAttribute, lhs, rhs, "add")

    def sub(self, lhs: Operand, rhs: Operand) -> TosaValue:
        return self._binary(ts.Op.SUB, ts.TosaSerializerAttribute.SubAttribute, lhs, rhs, "sub")

    def mul(self, lhs: Operand, rhs: Operand) -> TosaValue:
        # MUL's shift operand applies to int32 only; float graphs pass 0.
        shift = self._ctx.graph.add_scalar_const(f"{self._name}_shift", 0, np.int8)
        return self._binary(ts.Op.MUL, ts.TosaSerializerAttribute.MulAttribute, lhs, rhs, "mul", extra=[shift])

    def div(self, lhs: Operand, rhs: Operand) -> TosaValue:
        return self.mul(lhs, self.reciprocal(rhs))

    def pow(self, base: Operand, exponent: Operand) -> TosaValue:
        return self._binary(ts.Op.POW, ts.TosaSerializerAttribute.PowAttribute, base, exponent, "pow")

    def maximum(self, lhs: Operand, rhs: Operand) -> TosaValue:
        return self._binary(ts.Op.MAXIMUM, _propagate_nan(ts.TosaSerializerAttribute.MaximumAttribute), lhs, rhs, "max")

    def minimum(self, lhs: Operand, rhs: Operand) -> TosaValue:
        return self._binary(ts.Op.MINIMUM, _propagate_nan(ts.TosaSerializerAttribute.MinimumAttribute), lhs, rhs, "min")

    def greater(self, lhs: Operand, rhs: Operand) -> TosaValue:
        """``lhs > rhs`` as a bool tensor."""
        attribute = ts.TosaSerializerAttribute.GreaterAttribute
        return self._binary(ts.Op.GREATER, attribute, lhs, rhs, "greater", dtype=_BOOL)

    def greater_equal(self, lhs: Operand, rhs: Operand) -> TosaValue:
        attribute = ts.TosaSerializerAttribute.GreaterEqualAttribute
        return self._binary(ts.Op.GREATER_EQUAL, attribute, lhs, rhs, "greater_equal", dtype=_BOOL)

    def select(self, condition: TosaValue, if_true: Operand, if_false: Operand) -> TosaValue:
        """``if_true`` where ``condition`` holds, else ``if_false`` (both broadcast)."""
        inputs = [condition, self._value(if_true), self._value(if_false)]
        return self._emit(ts.Op.SELECT, ts.TosaSerializerAttribute.SelectAttribute, inputs, "select", self._dtype)

    # Compositions -------------------------------------------------------------------------------

    def polynomial(self, x: Operand, coefficients: Sequence[float]) -> TosaValue:
        """``c[0] + c[1] x + c[2] x^2 + ...`` by Horner's rule (one MUL and one ADD per degree)."""
        *lower, highest = coefficients
        result: Operand = highest
        for coefficient in reversed(lower):
            result = self.add(self.mul(result, x), coefficient)
        return self._value(result)

    def atan(self, x: Operand) -> TosaValue:
        """atan to within 1e-7: odd, and atan(x) = pi/2 - atan(1/x) brings |x| > 1 into [0, 1], where
        a polynomial in x^2 holds it."""
        magnitude = self.abs(x)
        beyond_one = self.greater(magnitude, 1.0)
        z = self.select(beyond_one, self.reciprocal(magnitude), magnitude)
        atan_z = self.mul(z, self.polynomial(self.mul(z, z), _ATAN_COEFFICIENTS))
        return self.copysign(self.select(beyond_one, self.sub(math.pi / 2, atan_z), atan_z), self._value(x))

    def copysign(self, magnitude: Operand, sign_of: TosaValue) -> TosaValue:
        """``magnitude`` (non-negative) with the sign of ``sign_of``: odd functions from their x >= 0 half."""
        return self.select(self.greater(0.0, sign_of), self.neg(magnitude), magnitude)

    # Emitters -----------------------------------------------------------------------------------

    def _unary(self, op: ts.Op, set_attribute: AttributeSetter, x: Operand, tag: str) -> TosaValue:
        return self._emit(op, set_attribute, [self._value(x)], tag, self._dtype)

    def _binary(
        self,
        op: ts.Op,
        set_attribute: AttributeSetter,
        lhs: Operand,
        rhs: Operand,
        tag: str,
        *,
        dtype: np.dtype | None = None,
        extra: Sequence[TosaValue] = (),
    ) -> TosaValue:
        inputs = [self._value(lhs), self._value(rhs), *extra]
        return self._emit(op, set_attribute, inputs, tag, self._dtype if dtype is None else dtype)

    def _emit(
        self, op: ts.Op, set_attribute: AttributeSetter, inputs: list[TosaValue], tag: str, dtype: np.dtype
    ) -> TosaValue:
        tensors = [value for value in inputs if value.rank == self._rank]
        shape = tuple(max(dims) for dims in zip(*(value.shape for value in tensors)))
        output = self._ctx.graph.add_tensor(f"{self._name}_{tag}", shape, dtype)
        attribute = ts.TosaSerializerAttribute()
        set_attribute(attribute)
        self._ctx.graph.add_op(op, inputs, [output], attribute)
        return output


def _propagate_nan(set_attribute: AttributeSetter) -> AttributeSetter:
    """MAXIMUM and MINIMUM take a NaN mode; torch's maximum/minimum propagate NaN."""
    return lambda attribute: set_attribute(attribute, ts.NanPropagationMode.PROPAGATE)
