"""aten.group_norm -> layer_norm's row normalization on [N * G, C / G * HW], then a per-channel scale and shift.

Each group's channels and positions are contiguous in NCHW, so the groups are the rows of one
reshape, normalized as layer_norm.py normalizes its rows. FP: REDUCE_SUM, RSQRT and friends
(layer_norm.lower_float), then MUL and ADD with the weight and bias broadcast over [N, C, HW].

INT (int8): layer_norm's exact int32 form (arm.ops.common.int8_normalization.group_norm_exact): the
row statistics, ``v = z * 2**K`` in int32 with one full-size MUL and SUB, reshaped (for free) to
[N, C, HW], the weight and bias as [1, C, 1] int32 operands (one positive weight folds into the row
multiplier, one bias is a single broadcast value), one power-of-two RESCALE. The int16 ``u`` it
replaced put 0.955% of a [1, 32, 6, 6] group norm's outputs a step off the quantized module; it also
needed a channels-last transpose for its DEPTHWISE_CONV2D, so the exact form is cheaper on the U85
(bench/README.md "Group norm's exact form, session 8"). The U55 takes it too, per-channel weights and biases
included (session 10): there the int16 form put 0.5-3.4% of the outputs 1-3 steps off the quantized module
(``affine_wide``, ``conv_trunk``), the exact form none, for 1% fewer to 17% more NPU cycles (its full-size
int32 MUL and ADD cost 4 cycles an element on the U55-128 whatever the operand's broadcast;
bench/README.md "U55 departures and fuzzing, session 10").
int16 input (a16w8): layer_norm's int16 rows, an int32 ``u`` and the weight and bias applied in int32
(arm.ops.common.int16_normalization), through the same reshapes and transposes.
"""

from __future__ import annotations

import numpy as np
import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.common.support import first_reason, profile_reason, rank_reason
from arm.ops.common.unary import fp_add, fp_mul
from arm.ops.common.int16_normalization import u55_reason
from arm.ops.common.int8_normalization import group_norm_exact
from arm.ops.layer_norm import int_normalization, lower_float, normalized_count_reason
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.layout import transpose
from arm.tosa.specification import TosaSpecification

_SWAP_LAST_TWO = (0, 2, 1)


def _groups(node: Node) -> int:
    """native_group_norm(x, w, b, N, C, HxW, group, eps) on the edge; group_norm(x, group, ...) in ATen."""
    return node.args[6] if node.target == exir_ops.edge.aten.native_group_norm.default else node.args[1]


def _group_size(node: Node) -> int:
    batch, channels, *spatial = shape_of(node.args[0])
    return channels // _groups(node) * int(np.prod(spatial, dtype=np.int64))


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    return first_reason(
        profile_reason(node, spec, [x]),
        rank_reason(node, shape_of(x)),
        normalized_count_reason(node, spec, x, _group_size(node)),
        u55_reason(node, spec, x),
    )


def annotate_group_norm(node: Node, config: QuantizationConfig) -> None:
    """Only the activation is quantized; weight and bias stay float and become constants of the lowering."""
    annotate(node, {node.args[0]: config.activation}, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x_node, weight_node, bias_node = node.args[:3]
    eps = node.args[7]
    x = ctx.value(x_node)
    batch, channels, *spatial = x.shape
    positions = int(np.prod(spatial, dtype=np.int64))
    groups = _groups(node)
    rows = reshape(ctx.graph, x, (batch * groups, channels // groups * positions), name=f"{node.name}_groups")
    weight, bias = (
        None if arg is None else ctx.real_constant(arg).astype(np.float64) for arg in (weight_node, bias_node)
    )
    if ctx.spec.is_fp:
        normalized = lower_float(ctx, rows, None, None, eps, name=f"{node.name}_norm")
        result = reshape(ctx.graph, normalized, (batch, channels, positions), name=f"{node.name}_channels")
        result = _float_affine(ctx, result, weight, bias, name=node.name)
        return reshape(ctx.graph, result, x.shape, name=node.name)
    if np.dtype(x.dtype) == np.int8:  # the exact form on every target (see the module)
        result = group_norm_exact(ctx, rows, weight, bias, eps, ctx.output_qparams(node), (batch, channels, positions),
                                  name=f"{node.name}_exact")  # fmt: skip
        return reshape(ctx.graph, result, x.shape, name=node.name)
    steps = int_normalization(x)  # int8 or int16 (a16w8) rows
    normalized, fraction_bits = steps.normalize_rows(ctx, rows, eps, name=f"{node.name}_norm")
    per_channel = reshape(ctx.graph, normalized, (batch, channels, positions), name=f"{node.name}_channels")
    if positions > 1:
        per_channel = transpose(ctx.graph, per_channel, _SWAP_LAST_TWO, name=f"{node.name}_channels_last")
    flat = reshape(ctx.graph, per_channel, (batch * positions, channels), name=f"{node.name}_positions")
    affine = steps.scale_and_shift(ctx, flat, weight, bias, ctx.output_qparams(node), fraction_bits,
                                   name=f"{node.name}_affine")  # fmt: skip
    result = reshape(ctx.graph, affine, (batch, positions, channels), name=f"{node.name}_positions_out")
    if positions > 1:
        result = transpose(ctx.graph, result, _SWAP_LAST_TWO, name=f"{node.name}_channels_first")
    return reshape(ctx.graph, result, x.shape, name=node.name)


def _float_affine(
    ctx: LoweringContext, value: TosaValue, weight: np.ndarray | None, bias: np.ndarray | None, *, name: str
) -> TosaValue:
    """``value * weight + bias`` with [C] parameters broadcast over [N, C, HW]."""
    channels = value.shape[1]
    if weight is not None:
        constant = ctx.graph.add_const(f"{name}_weight", weight.reshape(1, channels, 1).astype(value.dtype))
        value = fp_mul(ctx, value, constant, name=f"{name}_scaled")
    if bias is not None:
        constant = ctx.graph.add_const(f"{name}_bias", bias.reshape(1, channels, 1).astype(value.dtype))
        value = fp_add(ctx, value, constant, name=f"{name}_shifted")
    return value


class _GroupNorm(torch.nn.Module):
    """A group norm whose weight and bias (drawn from the seeded generator) are not the trivial 1 and 0."""

    def __init__(self, groups: int, channels: int, *, affine: bool = True):
        super().__init__()
        self.norm = torch.nn.GroupNorm(groups, channels, affine=affine)
        if affine:
            with torch.no_grad():
                self.norm.weight.copy_(1.0 + 0.5 * torch.randn(channels))
                self.norm.bias.copy_(0.5 * torch.randn(channels))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


class _UniformGroupNorm(torch.nn.Module):
    """A group norm whose weight is 0.8 and bias 0.25 in every channel."""

    def __init__(self, groups: int, channels: int):
        super().__init__()
        self.norm = torch.nn.GroupNorm(groups, channels)
        with torch.no_grad():
            self.norm.weight.fill_(0.8)
            self.norm.bias.fill_(0.25)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm(x)


class _ConvTrunk(torch.nn.Module):
    """A U-Net-style block: a convolution, a group norm (per-channel weight and bias) and SiLU, then a second group
    norm of other groups. (Two convolutions and a residual put the quantized model itself 5 steps off the float
    one, past the harness's float bound.)"""

    def __init__(self):
        super().__init__()
        self.conv, self.norm1, self.norm2 = torch.nn.Conv2d(3, 16, 3, padding=1), _GroupNorm(4, 16), _GroupNorm(8, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.norm2(torch.nn.functional.silu(self.norm1(self.conv(x))))


TEST_CASES = {
    "groups2_affine": OpTestCase(seeded(0, _GroupNorm, 2, 8), random_inputs(0, (1, 8, 4, 4))),
    # Rank 3 (a sequence), batch 2, a group per channel (instance norm), no affine parameters.
    "instance_rank3_no_affine": OpTestCase(seeded(1, _GroupNorm, 6, 6, affine=False), random_inputs(1, (2, 6, 10))),
    # One weight and one bias for every channel (0.8 and 0.25), 288 elements per group: the weight goes
    # into the row multiplier and the bias is one broadcast value, so the U55 takes the exact form too.
    "uniform_weight_bias": OpTestCase(
        seeded(3, _UniformGroupNorm, 4, 32), random_inputs(3, (1, 32, 6, 6)), differing_from_quantized=0.0
    ),
    # Per-channel weights and biases, 288 elements per group: the int16 u put 0.955% of these outputs a
    # step off the quantized module (measured on tosa_INT and the U55), the exact form none, the U55 too.
    "affine_wide": OpTestCase(seeded(4, _GroupNorm, 4, 32), random_inputs(4, (1, 32, 6, 6)), differing_from_quantized=0.0),
    # Group norms of a convolution trunk (per-channel affine, 4 and 8 groups): with the int16 form on the U55, 8 of
    # these 1024 outputs were 1-3 steps off the quantized module (a two-block trunk: 35), the exact form none.
    "conv_trunk": OpTestCase(
        seeded(10, _ConvTrunk), random_inputs(10, (1, 3, 8, 8)), differing_from_quantized=0.0,
        targets=("tosa_INT", "u55_INT", "u85_INT"),
    ),
    # int16 activations: layer_norm's int16 rows (arm.ops.common.int16_normalization); no int16 on
    # TOSA-1.0+INT (TOSA, VGF).
    "a16w8_groups2": OpTestCase(
        seeded(2, _GroupNorm, 2, 4),
        random_inputs(2, (1, 4, 3, 3)),
        cpu_targets=("tosa_INT", "u55_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="group_norm",
    # to_edge turns group_norm into this three-result op; arm/ops/getitem.py selects result 0.
    edge_targets=(exir_ops.edge.aten.native_group_norm.default,),
    aten_targets=(torch.ops.aten.group_norm.default,),
    support=support,
    annotate=annotate_group_norm,
    lower=lower,
    test_cases=TEST_CASES,
)
