"""The family of one-input float functions (sin, tan, sinh, atan, erfinv, round, elu, ...) as Arm ops.

Each such op is three facts: the edge operator, an FP formula over TOSA's float operators (or why
there is none), and its test cases. Everything else is shared and lives here:

* INT: one int8 TABLE that evaluates the operator itself (the aten overload of the node, with the
  node's scalar arguments) on the 256 dequantized input codes and quantizes the results onto the
  output grid. That is what the quantized PyTorch module computes, so the table is exact by
  construction, whatever the function; it runs as one lookup pass on the U55 and the U85.
* FP: the formula, written with ``FloatMath`` and called as ``formula(m, x, *scalar_args, **kwargs)``
  with the node's own scalar arguments (elu's alpha, pow's exponent), so the file reads like the math.

An op file is then ``OP = float_function_op(name=..., edge=..., formula=..., test_cases=...)``.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np
import torch
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import QuantizationSpecBase

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import OpTestCase
from arm.ops.common.support import describe, first_reason
from arm.ops.common import registry
from arm.ops.common.table import INT16_TABLE_MAX_ERROR_STEPS, function_table, int16_table_error_steps
from arm.ops.common.unary import annotate_unary, on_float32, unary_support
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.cast import cast
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import QParams, is_dequantize, output_quantize
from arm.tosa.specification import TosaSpecification

_FLOAT32 = np.dtype(np.float32)

# (m, x, *scalar_args, **kwargs) -> the result: the FP form of the op.
Formula = Callable[..., TosaValue]
# The node's scalar arguments -> a reason the formula does not hold for them, or None.
ArgumentRule = Callable[..., "str | None"]


@dataclasses.dataclass(frozen=True)
class FloatFunction:
    """How one float function lowers; see the module docstring.

    Attributes:
        formula: the FP lowering, or None when TOSA has no practical float form (``fp_missing`` says why).
        fp_missing: why the FP profile leaves the op on the CPU, when ``formula`` is None.
        arguments: rejects scalar arguments the lowering does not handle (both profiles).
        output: a fixed int8 output grid (bounded functions), instead of an observed one.
    """

    formula: Formula | None
    fp_missing: str = ""
    arguments: ArgumentRule | None = None
    output: QuantizationSpecBase | None = None

    def support(self, node: Node, spec: TosaSpecification) -> str | None:
        return first_reason(
            unary_support(node, spec),
            self._argument_reason(node),
            self._profile_reason(node, spec),
            _int16_table_reason(node, spec),
        )

    def _argument_reason(self, node: Node) -> str | None:
        if self.arguments is None:
            return None
        reason = self.arguments(*node.args[1:], **node.kwargs)
        return None if reason is None else f"{describe(node)}: {reason}"

    def _profile_reason(self, node: Node, spec: TosaSpecification) -> str | None:
        if spec.is_fp and self.formula is None:
            return (
                f"{describe(node)}: {spec} has no float form of this function ({self.fp_missing}); "
                "it runs on the CPU"
            )
        return None

    def annotate(self, node: Node, config: QuantizationConfig) -> None:
        annotate_unary(node, config, self.output)

    def lower(self, node: Node, ctx: LoweringContext) -> TosaValue:
        if ctx.spec.is_int:
            return lower_node_table(node, ctx)
        x = ctx.value(node.args[0])
        if x.dtype == _FLOAT32:
            math = FloatMath(ctx, node.name, len(shape_of(node)), x.dtype)
            return self.formula(math, x, *node.args[1:], **node.kwargs)
        # float16/bfloat16: the formula in float32 and one rounding at the end, as PyTorch computes these
        # functions for the half types; a formula of several operators in the half type rounds after each
        # (x ** -3 in bfloat16 was 4 units off at 1000, beyond the peer's tolerance).
        wide = cast(ctx.graph, x, _FLOAT32, name=f"{node.name}_float32_input")
        math = FloatMath(ctx, f"{node.name}_float32", len(shape_of(node)), _FLOAT32)
        result = self.formula(math, wide, *node.args[1:], **node.kwargs)
        return cast(ctx.graph, result, x.dtype, name=node.name)


def _int16_table_reason(node: Node, spec: TosaSpecification) -> str | None:
    """None unless the input is int16 (a16w8) and the interpolating int16 TABLE misses the function by
    more than INT16_TABLE_MAX_ERROR_STEPS somewhere (a function that jumps: ceil, floor, round, sign)."""
    dequantize = node.args[0]
    output = output_quantize(node, registry.is_fused_activation)
    if not spec.is_int or not is_dequantize(dequantize) or output is None or torch.int16 not in dequantize.args:
        return None
    grid_in, grid_out = (QParams((float(q.args[1]),), int(q.args[2]), np.dtype(np.int16)) for q in (dequantize, output))
    operator = aten_overload(node.target)
    function = on_float32(lambda tensor: operator(tensor, *node.args[1:], **node.kwargs))
    error = int16_table_error_steps(function, grid_in, grid_out)
    if error <= INT16_TABLE_MAX_ERROR_STEPS:
        return None
    return (
        f"{describe(node)}: its int16 (a16w8) TABLE, which interpolates between entries 128 input codes apart, "
        f"would be {error} output steps off the function (it jumps, or turns too steeply, between entries); it "
        "runs on the CPU "
        "(quantize it to int8 for one exact int8 TABLE)"
    )


def lower_node_table(node: Node, ctx: LoweringContext) -> TosaValue:
    """INT: ``node`` as one TABLE of its own operator, from its input's int8 grid to its output's."""
    operator = aten_overload(node.target)
    return lower_function_table(
        node, ctx, node.args[0], lambda tensor: operator(tensor, *node.args[1:], **node.kwargs)
    )


def lower_function_table(
    node: Node, ctx: LoweringContext, tensor: Node, function: Callable[[torch.Tensor], torch.Tensor]
) -> TosaValue:
    """INT: ``node`` as one TABLE of ``function`` of its one tensor input ``tensor``."""
    value = ctx.quantized_value(tensor)
    return function_table(ctx.graph, value, on_float32(function), ctx.output_qparams(node), name=node.name)


def aten_overload(target: object) -> torch._ops.OpOverload:
    """The ATen overload behind an edge operator (edge ops wrap one), or ``target`` itself."""
    return getattr(target, "_op", target)


def float_function_op(
    *,
    name: str,
    edge: object | None,
    aten: torch._ops.OpOverload,
    function: FloatFunction,
    test_cases: dict[str, OpTestCase],
    keep_in_edge: bool = False,
) -> ArmOp:
    """The ``ArmOp`` of a one-input float function; ``keep_in_edge`` for ops to_edge would decompose
    (celu, logit), so they reach the lowering whole (only ops with a decomposition: a kept op that
    ends up rejected is decomposed again for the CPU).
    ``edge`` is None for an op that to_edge turns into another one's operator (selu into elu): its
    file annotates the ATen form and holds the cases; the other op lowers it."""
    return ArmOp(
        name=name,
        edge_targets=() if edge is None else (edge,),
        aten_targets=(aten,),
        support=function.support,
        annotate=function.annotate,
        lower=function.lower,
        test_cases=test_cases,
        keep_in_edge=(aten,) if keep_in_edge else (),
    )


def on_int8_grid(seed: int, shape: tuple[int, ...], step: float, low: float | None = None) -> tuple[torch.Tensor]:
    """``low + step * k`` for k in 0..255 (both ends present; ``low`` a multiple of ``step``, at most 0,
    since observers always include 0; by default the grid is centred on 0), so an int8 observer picks
    exactly this grid and quantizing the inputs loses nothing.

    For functions with jumps (floor, round, sign) an input half a step from a jump would otherwise
    land on its other side, a whole unit away from the float module; on the grid the INT result is
    the float function rounded onto the output grid. Pick ``step`` so no multiple but 0 is an integer
    (or a half, for round).
    """
    generator = torch.Generator().manual_seed(seed)
    codes = torch.randint(0, 256, shape, generator=generator)
    codes.view(-1)[:2] = torch.tensor([0, 255])
    first_code = -128 if low is None else round(low / step)
    return ((codes + first_code).to(torch.float32) * step,)
