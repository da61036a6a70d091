"""aten.pow: x ** c (Tensor_Scalar), c ** x (Scalar) and x ** y (Tensor_Tensor).

With one tensor, pow is a one-input function: one TABLE in the INT profile. In FP, integer exponents
up to 8 multiply (x * x, as torch does for x ** 2), 0.5 is a square root, and the rest is TOSA POW,
which like torch gives NaN for a negative base with a fractional exponent. x ** y is POW in FP; its
two quantized inputs have no single-table form, so in the INT profile it stays on the CPU.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.float_math import FloatMath
from arm.ops.common.float_unary import FloatFunction, lower_function_table
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, in_float_type, random_inputs
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.unary import annotate_unary, int8_reason
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, numpy_dtype_of, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

_TENSOR_SCALAR = exir_ops.edge.aten.pow.Tensor_Scalar
_SCALAR = exir_ops.edge.aten.pow.Scalar
_TENSOR_TENSOR = exir_ops.edge.aten.pow.Tensor_Tensor
# Exponents from 1 to this multiply out: at most 3 squarings and 3 products.
_MAX_MULTIPLIED_EXPONENT = 8


def power(m: FloatMath, x: TosaValue, exponent: float) -> TosaValue:
    """x ** exponent for a number ``exponent``."""
    if exponent == 0:
        return _ones_like(m, x)
    if float(exponent).is_integer() and 0 < abs(exponent) <= _MAX_MULTIPLIED_EXPONENT:
        product = _integer_power(m, x, int(abs(exponent)))
        return product if exponent > 0 else m.reciprocal(product)
    if exponent == 0.5:
        return m.sqrt(x)
    return m.pow(x, float(exponent))


def _integer_power(m: FloatMath, x: TosaValue, n: int) -> TosaValue:
    """x ** n by repeated squaring."""
    result, square = None, x
    while n:
        if n & 1:
            result = square if result is None else m.mul(result, square)
        n >>= 1
        if n:
            square = m.mul(square, square)
    return result


def _ones_like(m: FloatMath, x: TosaValue) -> TosaValue:
    """x ** 0: 1 everywhere, NaN and infinities included (as torch), so not x * 0 + 1 (NaN there) and not
    POW (undefined at 0 ** 0). A SELECT of 1 or 1 takes x's shape from its condition."""
    return m.select(m.greater_equal(x, x), 1.0, 1.0)


_POWER = FloatFunction(power)


def support(node: Node, spec: TosaSpecification) -> str | None:
    if node.target in (_TENSOR_SCALAR, torch.ops.aten.pow.Tensor_Scalar):
        return _POWER.support(node, spec)
    if node.target in (_SCALAR, torch.ops.aten.pow.Scalar):
        return _scalar_base_support(node, spec)
    if spec.is_int:
        return (
            f"{describe(node)}: x ** y of two quantized tensors has no single-table form in {spec}; "
            "it runs on the CPU (an exponent that is a number lowers as a TABLE)"
        )
    return first_reason(profile_reason(node, spec), rank_reason(node, shape_of(node)))


def _scalar_base_support(node: Node, spec: TosaSpecification) -> str | None:
    base, exponent = node.args[:2]
    return first_reason(
        profile_reason(node, spec, [exponent]),
        rank_reason(node, shape_of(node)),
        int8_reason(node, spec, [exponent]),
        None if base > 0 else f"{describe(node)}: base {base} is not positive; c ** x needs c > 0 here",
    )


def annotate_pow(node: Node, config: QuantizationConfig) -> None:
    if node.target == torch.ops.aten.pow.Tensor_Scalar:
        annotate_unary(node, config)
    elif node.target == torch.ops.aten.pow.Scalar:
        annotate(node, {node.args[1]: config.activation}, config.activation)
    # x ** y stays float: the INT profile leaves it on the CPU.


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if node.target == _TENSOR_SCALAR:
        return _POWER.lower(node, ctx)
    math = FloatMath(ctx, node.name, len(shape_of(node)), numpy_dtype_of(node))
    if node.target == _SCALAR:
        base, exponent = node.args[:2]
        if ctx.spec.is_int:
            return lower_function_table(node, ctx, exponent, lambda tensor: torch.pow(base, tensor))
        return math.pow(float(base), ctx.value(exponent))
    rank = len(shape_of(node))
    return math.pow(*(ctx.value(arg, rank=rank) for arg in node.args[:2]))


def square(x: torch.Tensor) -> torch.Tensor:
    return x**2


def reciprocal(x: torch.Tensor) -> torch.Tensor:
    return x**-1


def inverse_cube(x: torch.Tensor) -> torch.Tensor:
    return x**-3


def fractional(x: torch.Tensor) -> torch.Tensor:
    return x**1.7


def zeroth(x: torch.Tensor) -> torch.Tensor:
    return x**0


def two_to_the(x: torch.Tensor) -> torch.Tensor:
    return 2.0**x


def positive(seed: int, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    """Inputs in [0.5, 4]: a fractional or negative power is defined and its slope bounded."""
    return tuple(0.5 + x.abs() for x in random_inputs(seed, *shapes))


TEST_CASES = {
    "square": OpTestCase(FunctionModule(square), random_inputs(0, (1, 4, 8, 8))),
    # In [1, 4.5], where 1 / x falls gently enough for the harness's bound on a quantized input.
    "reciprocal": OpTestCase(FunctionModule(reciprocal), tuple(1.0 + x.abs() for x in random_inputs(1, (4, 30)))),
    "fractional": OpTestCase(FunctionModule(fractional), positive(2, (4, 30))),
    # The peer's exp_zero: ones of x's shape (INT: a TABLE whose every entry is 1), zeros in x included.
    "zeroth": OpTestCase(FunctionModule(zeroth), (random_inputs(7, (1, 2, 3, 7))[0].relu(),)),
    "scalar_base": OpTestCase(FunctionModule(two_to_the), random_inputs(3, (4, 30))),
    "tensor_exponent": OpTestCase(
        FunctionModule(torch.pow),
        (*positive(4, (4, 30)), *random_inputs(5, (1, 30))),
        cpu_targets=("tosa_INT", "u55_INT", "u85_INT", "vgf_INT"),
    ),
    # x ** -3 in bfloat16, near 0.1 (results near 1000): computed in float32 and rounded once.
    "bfloat16_inverse_cube": in_float_type(
        OpTestCase(FunctionModule(inverse_cube), tuple(0.1 + 0.02 * x.abs() for x in random_inputs(6, (5, 10)))),
        torch.bfloat16,
    ),
}

OP = ArmOp(
    name="pow",
    edge_targets=(_TENSOR_SCALAR, _SCALAR, _TENSOR_TENSOR),
    aten_targets=(torch.ops.aten.pow.Tensor_Scalar, torch.ops.aten.pow.Scalar, torch.ops.aten.pow.Tensor_Tensor),
    support=support,
    annotate=annotate_pow,
    lower=lower,
    test_cases=TEST_CASES,
)
