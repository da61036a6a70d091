"""aten.log_softmax / aten._log_softmax -> ``x - max(x) - log(sum(exp(x - max(x))))``.

FP: the max-stabilized exponentials of arm.ops.softmax, LOG of their sum, SUB.

INT: the int32 exponential sum ``S`` of arm.ops.softmax (``S / EXP_FULL_SCALE`` is the real sum), then
``log(S)`` in fixed point, with no float and no division:

* CLZ normalization: ``S = m * 2**-shift`` with ``x = m / 2**31`` in [0.5, 1), so
  ``log(S) = log(x) + (31 - shift) * log(2)``;
* ``log(x) = log(a) + log(x / a)`` for ``a``, x rounded to 8 bits: 16-bit TABLEs hold ``-log(a)`` and
  ``1 / a``, and ``log(x / a) ~ (x - a) / a`` is off by at most ``(1/256)**2 / 2``.

Everything is summed on a 2**-16 grid and one RESCALE writes the output grid, which is observed
(log-probabilities have no fixed range).

int16 input (a16w8): softmax's int16 exponentials (one interpolating int16 TABLE of ``E`` indexed by
the int16 steps below the maximum); ``x - max`` gets as many fraction bits as int32 holds for the
finer int16 step, and the rest is unchanged.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.elementwise import emit
from arm.ops.common.fixed_point import Int32Emitter, normalize
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.softmax import EXP_FULL_SCALE, float_exponentials, shifted_exponentials, softmax_dim
from arm.ops.softmax import support as softmax_support
from arm.ops.common.table import INT8_VALUES
from arm.ops.common.unary import emit_unary
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import QParams
from arm.tosa.rescale import rescale
from arm.tosa.specification import TosaSpecification

# Fraction bits of the int32 sum the output is rescaled from.
_FRACTION_BITS = 16
# 1/a is tabulated as 2**14 / a (a in [0.5, 1]: at most 2**15, within 16 bits).
_INVERSE_FRACTION_BITS = 14
# The mantissa's top eight bits: m / 2**23 in [128, 256].
_TOP_BITS_SHIFT = 23


def annotate_log_softmax(node: Node, config: QuantizationConfig) -> None:
    annotate(node, {node.args[0]: config.activation}, config.activation)


def support(node: Node, spec: TosaSpecification) -> str | None:
    """softmax's rule (int8 or, where the target has int16, int16 input)."""
    return softmax_support(node, spec)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x = ctx.value(node.args[0])
    axis = softmax_dim(node)
    if ctx.spec.is_fp:
        exponentials = float_exponentials(ctx, x, axis, name=node.name)
        log_total = emit_unary(ctx, ts.Op.LOG, ts.TosaSerializerAttribute.LogAttribute, exponentials.total,
                               name=f"{node.name}_log_sum")  # fmt: skip
        return emit(ctx, ts.Op.SUB, ts.TosaSerializerAttribute.SubAttribute, [exponentials.shifted, log_total],
                    name=node.name, shape=x.shape, dtype=x.dtype)  # fmt: skip
    return _lower_int(node.name, ctx, x, axis, ctx.output_qparams(node))


def _lower_int(name: str, ctx: LoweringContext, x: TosaValue, axis: int, output: QParams) -> TosaValue:
    ints = Int32Emitter(ctx.graph, name, x.rank)
    exponentials = shifted_exponentials(ints, x, axis, ctx.spec)
    log_total = _log(ints, exponentials.total)
    one = 1 << _FRACTION_BITS
    # x - max on the 2**-16 grid; the input step gets as many extra fraction bits as int32 holds, so
    # its rounding is negligible even for the fine grids of narrow inputs.
    extra_bits = max(0, 30 - _FRACTION_BITS - math.ceil(math.log2(x.qparams.scale)))
    step = ints.constant(round(x.qparams.scale * 2.0 ** (_FRACTION_BITS + extra_bits)), "input_step")
    shifted = ints.mul(exponentials.steps_below_max, step, "shifted", shift=extra_bits)
    # log(real sum) = log(S) - log(EXP_FULL_SCALE)
    log_real_total = ints.sub(log_total, ints.constant(round(math.log(EXP_FULL_SCALE) * one), "log_scale"),
                              "log_real_sum")  # fmt: skip
    result = ints.sub(shifted, log_real_total, "log_probability")
    return rescale(ctx.graph, result, name=name, scales=[1.0 / (one * output.scale)], output_dtype=output.dtype,
                   input_zp=0, output_zp=output.zero_point, output_qparams=output)  # fmt: skip


def _log(ints: Int32Emitter, value: TosaValue) -> TosaValue:
    """``2**16 * log(value)`` for a positive int32 ``value``."""
    one = 1 << _FRACTION_BITS
    normalized = normalize(ints, value)
    # round(m / 2**23) - 128 in [0, 127] indexes a = (index + 128) / 256; 256 saturates to 255.
    index = rescale(ints.graph, normalized.mantissa, name=f"{ints.prefix}_log_index", scales=[2.0**-_TOP_BITS_SHIFT],
                    output_dtype=np.dtype(np.int8), input_zp=0, output_zp=-128)  # fmt: skip
    top = np.maximum(INT8_VALUES + 128, 128).astype(np.float64)  # negative indices never occur
    minus_log_a = ints.lookup16(index, np.round(-np.log(top / 256) * one), "minus_log_a")
    inverse_a = ints.lookup16(index, np.round(256 / top * 2**_INVERSE_FRACTION_BITS), "inverse_a")
    # A MUL, not a RESCALE: RESCALE's apply_scale_32 limits the input to 2**(shift - 1) = 64 here.
    top_bits = ints.widen(index, "top_bits", zero_point=-128)
    rounded = ints.mul(top_bits, ints.constant(1 << _TOP_BITS_SHIFT, "top_bits_unit"), "rounded_mantissa", shift=0)
    remainder = ints.sub(normalized.mantissa, rounded, "remainder")  # (x - a) * 2**31, |.| <= 2**23
    # (x - a) / a on the 2**-16 grid: remainder * inverse_a / 2**(31 + 14 - 16).
    correction = ints.mul(remainder, inverse_a, "log_correction", shift=31 + _INVERSE_FRACTION_BITS - _FRACTION_BITS)
    log_x = ints.sub(correction, minus_log_a, "log_mantissa")
    log_two = ints.constant(round(math.log(2) * one), "log_two")
    exponent = ints.sub(ints.constant(31, "mantissa_bits"), normalized.shift, "exponent")
    return ints.add(log_x, ints.mul(exponent, log_two, "exponent_log", shift=0), "log_sum")


def log_softmax_last(x: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(x, dim=-1)


def log_softmax_channels(x: torch.Tensor) -> torch.Tensor:
    return torch.log_softmax(x, dim=1)


def _scaled(seed: int, scale: float, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    return tuple(scale * tensor for tensor in random_inputs(seed, *shapes))


TEST_CASES = {
    "logits": OpTestCase(FunctionModule(log_softmax_last), random_inputs(0, (2, 10))),
    "rank4_channels": OpTestCase(FunctionModule(log_softmax_channels), random_inputs(1, (1, 16, 4, 4))),
    "wide_rows": OpTestCase(FunctionModule(log_softmax_last), random_inputs(2, (3, 1000))),
    # A narrow input range: the output grid is fine (~0.002), so log(sum) must be exact to a few 1e-4.
    "flat": OpTestCase(FunctionModule(log_softmax_last), _scaled(3, 0.05, (4, 64))),
    # int16 activations (softmax's int16 TABLE of exp); no int16 on TOSA-1.0+INT (TOSA, VGF).
    "a16w8": OpTestCase(
        FunctionModule(log_softmax_last),
        random_inputs(4, (3, 40)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="log_softmax",
    edge_targets=(exir_ops.edge.aten._log_softmax.default,),
    aten_targets=(torch.ops.aten.log_softmax.int, torch.ops.aten._log_softmax.default),
    support=support,
    annotate=annotate_log_softmax,
    lower=lower,
    test_cases=TEST_CASES,
)
