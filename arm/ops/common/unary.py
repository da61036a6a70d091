"""Shared pieces of the one-input elementwise ops (activations, exp, log, neg, ...).

Support, the default annotation, the INT lowering through a lookup table and the float emitters
they share.

In the INT profile every one of these ops is a function of an int8 input, so one 256-entry TABLE
computes it exactly as the quantized PyTorch module does (dequantize, float function, quantize),
whatever the function. That is also the best graph for the NPU: one TABLE is a single elementwise
pass with a lookup on the U55 and the U85, where a decomposition (hardswish: add, two clamps, mul,
div) would need a rescale and an int32 intermediate per step. int16 inputs (a16w8) get TOSA's
513-entry interpolating int16 TABLE (common/table.py), which Vela 5.2.0 runs on the U55 and the U85.
"""

from __future__ import annotations

from typing import Callable, Sequence

import numpy as np
import torch
import tosa_serializer as ts
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import FixedQParamsQuantizationSpec, QuantizationSpecBase

from arm.ops.common import registry
from arm.ops.common.elementwise import AttributeSetter, emit
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.table import function_table
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import is_dequantize, is_quantize, output_quantize
from arm.tosa.specification import TosaSpecification


def unary_support(node: Node, spec: TosaSpecification) -> str | None:
    """The profile and rank rules, applied to the first argument only (the others are scalars), and
    in the INT profile an input and output of one width that the target has a TABLE for."""
    return first_reason(
        profile_reason(node, spec, [node.args[0]]),
        rank_reason(node, shape_of(node)),
        table_reason(node, spec),
    )


def table_reason(node: Node, spec: TosaSpecification) -> str | None:
    """None unless the node's input and output are quantized to different widths (int8 and int16),
    which no one TABLE maps between."""
    if not spec.is_int:
        return None
    widths = {_quantized_dtype(node.args[0]), _quantized_dtype(output_quantize(node, registry.is_fused_activation))}
    widths.discard(None)
    if len(widths) > 1:
        return (
            f"{describe(node)}: input and output are quantized to {' and '.join(sorted(map(str, widths)))}; "
            "a TABLE keeps one width (quantize both alike)"
        )
    return None


def _quantized_dtype(node: Node | None) -> torch.dtype | None:
    if node is None or not (is_dequantize(node) or is_quantize(node)):
        return None
    return next((arg for arg in node.args if isinstance(arg, torch.dtype)), None)


def int8_reason(node: Node, spec: TosaSpecification, inputs: Sequence[Node]) -> str | None:
    """None unless an input is quantized to another integer type than int8 (int16 activations)."""
    for tensor in inputs if spec.is_int else ():
        dtype = next((arg for arg in tensor.args if isinstance(arg, torch.dtype)), None)
        if is_dequantize(tensor) and dtype != torch.int8:
            return (
                f"{describe(node)}: input {tensor.name} is {dtype}; this op is lowered for int8 only "
                "(quantize its input to int8)"
            )
    return None


def annotate_unary(node: Node, config: QuantizationConfig, output: QuantizationSpecBase | None = None) -> None:
    """An observed input and an output (observed too, unless ``output`` fixes its grid) of the config's width."""
    if isinstance(output, FixedQParamsQuantizationSpec) and config.activation.dtype == torch.int16:
        output = as_int16(output)
    annotate(node, {node.args[0]: config.activation}, output or config.activation)


def fixed_int8_output(scale: float, zero_point: int) -> FixedQParamsQuantizationSpec:
    """An int8 output grid known in advance (sigmoid, tanh), used instead of an observer.

    Such functions have a known range, so observing it would only lose the values a calibration set
    happens not to reach and clip the saturated ones.
    """
    return FixedQParamsQuantizationSpec(
        dtype=torch.int8,
        scale=scale,
        zero_point=zero_point,
        quant_min=-128,
        quant_max=127,
        qscheme=torch.per_tensor_affine,
    )


def as_int16(spec: FixedQParamsQuantizationSpec) -> FixedQParamsQuantizationSpec:
    """The int16 grid for a fixed int8 one: symmetric (TOSA's int16 operators take zero point 0) and
    covering the same real range."""
    low = (spec.quant_min - spec.zero_point) * spec.scale
    high = (spec.quant_max + 1 - spec.zero_point) * spec.scale
    return FixedQParamsQuantizationSpec(
        dtype=torch.int16,
        scale=max(abs(low), abs(high)) / 32768,
        zero_point=0,
        quant_min=-32767,
        quant_max=32767,
        qscheme=torch.per_tensor_symmetric,
    )


def lower_table(node: Node, ctx: LoweringContext, function: Callable[[torch.Tensor], torch.Tensor]) -> TosaValue:
    """INT: ``node`` as a TABLE of ``function`` (a float32 torch function) from its input's grid to its own."""
    value = ctx.quantized_value(node.args[0])
    return function_table(ctx.graph, value, on_float32(function), ctx.output_qparams(node), name=node.name)


def on_float32(function: Callable[[torch.Tensor], torch.Tensor]) -> Callable[[np.ndarray], np.ndarray]:
    """``function`` on numpy reals, evaluated in float32 as the quantized module evaluates it."""

    def evaluate(real: np.ndarray) -> np.ndarray:
        with torch.no_grad():
            return function(torch.from_numpy(real.astype(np.float32))).numpy().astype(np.float64)

    return evaluate


def emit_unary(
    ctx: LoweringContext, op: ts.Op, set_attribute: AttributeSetter, value: TosaValue, *, name: str
) -> TosaValue:
    """A float operator of one input, e.g. SIGMOID or EXP, with the input's shape and dtype."""
    return emit(ctx, op, set_attribute, [value], name=name, shape=value.shape, dtype=value.dtype)


def float_constant(
    ctx: LoweringContext, value: float, rank: int, *, name: str, dtype: np.dtype = np.dtype(np.float32)
) -> TosaValue:
    """A float scalar at ``rank`` (all dims 1), so TOSA broadcasts it against a rank-``rank`` tensor;
    ``dtype`` is the tensor's it meets (TOSA operands share one float type)."""
    return ctx.graph.add_const(name, np.full((1,) * rank, value, dtype=dtype))


def fp_add(ctx: LoweringContext, lhs: TosaValue, rhs: TosaValue, *, name: str) -> TosaValue:
    return _binary(ctx, ts.Op.ADD, ts.TosaSerializerAttribute.AddAttribute, [lhs, rhs], name=name)


def fp_mul(ctx: LoweringContext, lhs: TosaValue, rhs: TosaValue, *, name: str) -> TosaValue:
    shift = ctx.graph.add_scalar_const(f"{name}_shift", 0, np.int8)
    return _binary(ctx, ts.Op.MUL, ts.TosaSerializerAttribute.MulAttribute, [lhs, rhs, shift], name=name)


def _binary(
    ctx: LoweringContext, op: ts.Op, set_attribute: AttributeSetter, inputs: Sequence[TosaValue], *, name: str
) -> TosaValue:
    """A float binary operator; the first input's shape is the result's (the second broadcasts)."""
    shape = tuple(max(a, b) for a, b in zip(inputs[0].shape, inputs[1].shape))
    return emit(ctx, op, set_attribute, list(inputs), name=name, shape=shape, dtype=inputs[0].dtype)
