"""aten.batch_norm (inference) -> a per-channel scale and shift.

A batch norm right after a convolution never gets here in the INT profile: pt2e's prepare folds it into
the convolution's weights and bias (the ``conv_bn`` cases check that). What remains is a standalone
``y = x * a + b`` per channel, with ``a = weight / sqrt(var + eps)`` and ``b = bias - mean * a``:

* FP: MUL and ADD with [1, C, 1, ...] constants.
* INT: the quantized model rounds ``k (q - zp) + c`` once, with ``k = a s_in / s_out`` and
  ``c = b / s_out`` per channel. A 1x1 DEPTHWISE_CONV2D (weight +-127, int32 bias) could hold ``c``
  only on its accumulator's grid ``|k| / 127``: up to 0.4% of a step off, enough to round 1 in 2,000
  outputs the other way (MobileOne's identity branches, 13 in a row, took that to 125 steps at the
  logits). So ``(q - zp) |k|`` is a per-channel RESCALE onto a grid 2**p finer (int32, its 31-bit
  multipliers leave ~255 |k| 2**-31 of a step), the sign a MUL by +-1 (only when some ``a`` is
  negative), ``c`` an int32 ADD on that grid, and one RESCALE by 2**-p rounds the sum: within
  ~1e-7 of a step of the real value.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.integer_arithmetic import Int32Ops
from arm.ops.common.op_test_case import OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.unary import fp_add, fp_mul, int8_reason
from arm.quantizer.annotation import annotate_with_fused_activation
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.layout import to_nchw, to_nhwc, transpose
from arm.tosa.rescale import rescale
from arm.tosa.specification import TosaSpecification

_INT32 = np.dtype(np.int32)
# The fine grid's sums (|k| * 255 + |c|) * 2**p stay below 2**30; 2**24 is already finer than the
# RESCALE multipliers' own precision.
_SUM_LIMIT = 2.0**30
_MAX_FRACTION_BITS = 24


def _is_aten(node: Node) -> bool:
    return node.target == torch.ops.aten.batch_norm.default


def _eps(node: Node) -> float:
    """aten.batch_norm(x, w, b, mean, var, training, momentum, eps, cudnn); the edge op drops training."""
    return node.args[7] if _is_aten(node) else node.args[6]


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, weight, bias, running_mean, running_var = node.args[:5]
    training = _is_aten(node) and node.args[5]
    rank = len(shape_of(x))
    return first_reason(
        f"{describe(node)}: training-mode batch norm (batch statistics) is not lowered" if training else None,
        (
            f"{describe(node)}: running statistics are missing; only inference batch norm is lowered"
            if running_mean is None or running_var is None
            else None
        ),
        f"{describe(node)}: input rank {rank} has no channel dim" if rank < 2 else None,
        rank_reason(node, shape_of(x)),
        profile_reason(node, spec, [x]),
        int8_reason(node, spec, [x]),
    )


def annotate_batch_norm(node: Node, config: QuantizationConfig) -> None:
    """Standalone batch norms only: prepare_pt2e has already folded those that follow a convolution."""
    annotate_with_fused_activation(node, {node.args[0]: config.activation}, config.activation)


def channel_affine(node: Node, ctx: LoweringContext) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel (a, b) with batch_norm(x) == x * a + b along dim 1, in float64."""
    _, weight, bias, running_mean, running_var = node.args[:5]
    eps = _eps(node)
    mean = ctx.constant(running_mean).double().numpy()
    variance = ctx.constant(running_var).double().numpy()
    gamma = np.ones_like(mean) if weight is None else ctx.constant(weight).double().numpy()
    beta = np.zeros_like(mean) if bias is None else ctx.constant(bias).double().numpy()
    scale = gamma / np.sqrt(variance + eps)
    return scale, beta - mean * scale


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    scale, shift = channel_affine(node, ctx)
    x = ctx.value(node.args[0])
    if ctx.spec.is_fp:
        channel_shape = [1] * x.rank
        channel_shape[1] = -1
        scale_value = ctx.graph.add_const(f"{node.name}_scale", scale.astype(x.dtype).reshape(channel_shape))
        shift_value = ctx.graph.add_const(f"{node.name}_shift", shift.astype(x.dtype).reshape(channel_shape))
        scaled = fp_mul(ctx, x, scale_value, name=f"{node.name}_scaled")
        return fp_add(ctx, scaled, shift_value, name=node.name)
    return _lower_int(node, ctx, x, scale, shift)


def _lower_int(node: Node, ctx: LoweringContext, x: TosaValue, scale: np.ndarray, shift: np.ndarray) -> TosaValue:
    """round(k (q - zp) + c) per channel on a 2**p grid (module docstring), channels last."""
    output = ctx.output_qparams(node)
    slope = scale * x.qparams.scale / output.scale
    # An offset beyond every code's reach saturates the channel whatever its size: clipped, it fits int32.
    reach = np.abs(slope) * 255 + 512
    offset = np.clip(shift / output.scale, -reach, reach)
    bits = fine_grid_bits(slope, offset)
    channels_last = _to_channels_last(ctx, x, name=f"{node.name}_channels_last")
    magnitude = np.abs(slope) * 2.0**bits
    # A zero slope keeps a valid (positive) RESCALE and a sign of 0.
    scaled = rescale(
        ctx.graph, channels_last, name=f"{node.name}_scaled", scales=list(np.where(magnitude > 0, magnitude, 1.0)),
        output_dtype=_INT32, input_zp=x.qparams.zero_point, output_zp=0,
    )  # fmt: skip
    ops = Int32Ops(ctx, f"{node.name}_fine", 4)
    channel_shape = (1, 1, 1, len(slope))
    if np.any(slope <= 0):
        signs = ctx.graph.add_const(f"{node.name}_signs", np.sign(slope).astype(np.int32).reshape(channel_shape))
        scaled = ops.mul(scaled, signs)
    offsets = np.round(offset * 2.0**bits).astype(np.int32).reshape(channel_shape)
    total = ops.add(scaled, ctx.graph.add_const(f"{node.name}_offsets", offsets))
    result = rescale(
        ctx.graph, total, name=f"{node.name}_nhwc", scales=[2.0**-bits], output_dtype=np.dtype(output.dtype),
        input_zp=0, output_zp=output.zero_point, output_qparams=output,
    )  # fmt: skip
    return _from_channels_last(ctx, result, x.shape, name=node.name)


def fine_grid_bits(slope: np.ndarray, offset: np.ndarray) -> int:
    """The fraction bits p of the int32 grid: every ``|slope| * 255 + |offset|`` times 2**p below 2**30."""
    largest = float(np.max(np.abs(slope)) * 255 + np.max(np.abs(offset)) + 1)
    return max(0, min(math.floor(math.log2(_SUM_LIMIT / largest)), _MAX_FRACTION_BITS))


def _to_channels_last(ctx: LoweringContext, x: TosaValue, *, name: str) -> TosaValue:
    """NCHW -> NHWC for rank 4; other ranks become [1, rows, 1, C] with C the (last) channel dim."""
    if x.rank == 4:
        return to_nhwc(ctx.graph, x)
    if x.rank > 2:
        x = transpose(ctx.graph, x, _channels_last_perms(x.rank), name=f"{name}_transposed")
    return reshape(ctx.graph, x, (1, math.prod(x.shape[:-1]), 1, x.shape[-1]), name=name)


def _from_channels_last(ctx: LoweringContext, value: TosaValue, shape: tuple[int, ...], *, name: str) -> TosaValue:
    if len(shape) == 4:
        return to_nchw(ctx.graph, value, name=name)
    if len(shape) == 2:
        return reshape(ctx.graph, value, shape, name=name)
    perms = _channels_last_perms(len(shape))
    channels_last_shape = tuple(shape[p] for p in perms)
    value = reshape(ctx.graph, value, channels_last_shape, name=f"{name}_channels_last_shape")
    inverse = tuple(perms.index(dim) for dim in range(len(shape)))
    return transpose(ctx.graph, value, inverse, name=name)


def _channels_last_perms(rank: int) -> tuple[int, ...]:
    return (0, *range(2, rank), 1)


class _BatchNorm(torch.nn.Module):
    """A batch norm with non-trivial running statistics and affine parameters drawn from ``seed``."""

    def __init__(self, seed: int, channels: int, dims: int = 2, *, conv: bool = False, relu: bool = False):
        super().__init__()
        generator = torch.Generator().manual_seed(seed)
        with torch.random.fork_rng():
            torch.manual_seed(seed)
            self.conv = torch.nn.Conv2d(channels, channels, 3, padding=1) if conv else None
        self.norm = {1: torch.nn.BatchNorm1d, 2: torch.nn.BatchNorm2d}[dims](channels)
        with torch.no_grad():
            self.norm.running_mean.copy_(torch.randn(channels, generator=generator) * 0.5)
            self.norm.running_var.copy_(torch.rand(channels, generator=generator) * 2 + 0.25)
            self.norm.weight.copy_(torch.randn(channels, generator=generator))
            self.norm.bias.copy_(torch.randn(channels, generator=generator) * 0.5)
        self.relu = relu
        self.eval()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.norm(self.conv(x) if self.conv is not None else x)
        return torch.relu(y) if self.relu else y


TEST_CASES = {
    "rank4": OpTestCase(_BatchNorm(0, 8), random_inputs(0, (1, 8, 6, 6))),
    "rank4_batch2_relu": OpTestCase(_BatchNorm(1, 16, relu=True), random_inputs(1, (2, 16, 4, 5))),
    "rank2": OpTestCase(_BatchNorm(2, 12, dims=1), random_inputs(2, (4, 12))),
    "rank3": OpTestCase(_BatchNorm(3, 6, dims=1), random_inputs(3, (2, 6, 10))),
    # MobileOne's identity branch: 9,216 values, of which the depthwise form's bias (on a grid of |k| / 127)
    # rounded 0.1% the other way. Within ~1e-7 of a step, no value may be.
    "rank4_every_value_exact": OpTestCase(
        _BatchNorm(6, 16), random_inputs(6, (1, 16, 24, 24)), differing_from_quantized=0.0
    ),
    # Folded into the convolution by prepare_pt2e (INT); lowered as conv then scale and shift (FP).
    "conv_bn": OpTestCase(_BatchNorm(4, 8, conv=True), random_inputs(4, (1, 8, 8, 8))),
    "conv_bn_relu": OpTestCase(_BatchNorm(5, 8, conv=True, relu=True), random_inputs(5, (1, 8, 8, 8))),
}

OP = ArmOp(
    name="batch_norm",
    # to_edge turns inference batch_norm into this three-result op; arm/ops/getitem.py selects result 0.
    edge_targets=(exir_ops.edge.aten._native_batch_norm_legit_no_training.default,),
    aten_targets=(torch.ops.aten.batch_norm.default,),
    support=support,
    annotate=annotate_batch_norm,
    lower=lower,
    test_cases=TEST_CASES,
)
