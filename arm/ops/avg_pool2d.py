"""aten.avg_pool2d -> TOSA AVG_POOL2D in NHWC (count_include_pad: an explicit PAD of zeros first).

ceil_mode=True: the last window may hang past the end padding; PyTorch counts none of that overhang,
so it is AVG_POOL2D's own padding (left out of the count), whether count_include_pad or not.
divisor_override replaces the count: AVG_POOL2D's result is scaled by count / divisor, which is one
factor only where every window counts the whole kernel (no excluded padding, no overhang).

Quantized windows of an even count that tile the input (no padding, stride = kernel) take the exact
form of arm/ops/common/ties_to_even.py: an average on a half step of the shared grid rounds to even
as in the quantized model (AVG_POOL2D rounds it up; a 2x2 pool was a step off on 1 in 8 outputs).
"""

from __future__ import annotations

import dataclasses

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import EVERY_TARGET, FunctionModule, OpTestCase, random_inputs
from arm.ops.common.pooling import PoolWindow, lower_pool, u55_reason
from arm.ops.common.tie_inputs import half_step_windows
from arm.ops.common.ties_to_even import lower_pooled_average
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.ops.common.unary import float_constant, fp_mul
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification

_DEFAULTS = ([], 0, False, True, None)  # stride, padding, ceil_mode, count_include_pad, divisor_override


def _options(node: Node) -> tuple[PoolWindow, bool, int | None]:
    """The window (with its ceil_mode), count_include_pad and divisor_override of an avg_pool2d node."""
    kernel, *given = node.args[1:]
    stride, padding, ceil_mode, count_include_pad, divisor_override = (*given, *_DEFAULTS[len(given) :])
    return PoolWindow.from_args(kernel, stride, padding, ceil_mode), count_include_pad, divisor_override


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    if len(shape_of(x)) != 4:
        return f"{describe(node)}: only rank-4 (NCHW) inputs are lowered, got shape {shape_of(x)}"
    window, count_include_pad, divisor_override = _options(node)
    _, _, height, width = shape_of(x)
    overhang = window.overhangs(height, width)
    return first_reason(
        _divisor_reason(node, spec, window, count_include_pad, divisor_override, overhang),
        profile_reason(node, spec, [x]),
        u55_reason(node, spec, window, padded_avg=(window.padded and not count_include_pad) or overhang),
    )


def _divisor_reason(
    node: Node,
    spec: TosaSpecification,
    window: PoolWindow,
    count_include_pad: bool,
    divisor_override: int | None,
    overhang: bool,
) -> str | None:
    if divisor_override is None:
        return None
    area = window.kernel[0] * window.kernel[1]
    if spec.is_int and divisor_override < area:
        # The int8 mean is rounded before the factor: off by up to (factor + 1) / 2 output steps.
        return (
            f"{describe(node)}: divisor_override {divisor_override} below the kernel's {area} elements would "
            "scale the rounded int8 mean up by more than one step; it runs on the CPU"
        )
    if (window.padded and not count_include_pad) or overhang:
        return (
            f"{describe(node)}: divisor_override with windows that count fewer elements than the kernel "
            "(excluded padding or a ceil_mode overhang) needs a factor per window; it runs on the CPU"
        )
    return None


def annotate_avg_pool2d(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def _tiling_kernel(node: Node, window: PoolWindow) -> tuple[int, int] | None:
    """The kernel when its windows tile the input exactly: no padding, stride = kernel, no remainder."""
    _, _, height, width = shape_of(node.args[0])
    kernel_h, kernel_w = window.kernel
    tiles = window.padding == (0, 0) and window.stride == window.kernel and not (height % kernel_h or width % kernel_w)
    return window.kernel if tiles else None


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    window, count_include_pad, divisor_override = _options(node)
    kernel = _tiling_kernel(node, window)
    if kernel is not None and divisor_override in (None, kernel[0] * kernel[1]):
        exact = lower_pooled_average(node, ctx, kernel)
        if exact is not None:
            return exact
    if divisor_override in (None, window.kernel[0] * window.kernel[1]):
        return lower_pool(ctx, node, ts.Op.AVG_POOL2D, window, pad_inside=not count_include_pad)
    # Every window counts the whole kernel (see the support rule): sum / divisor is the mean times
    # kernel area / divisor.
    factor = window.kernel[0] * window.kernel[1] / divisor_override
    pooled = lower_pool(ctx, node, ts.Op.AVG_POOL2D, window, pad_inside=not count_include_pad, name=f"{node.name}_mean")
    return scale_by(ctx, node, pooled, factor)


def scale_by(ctx: LoweringContext, node: Node, pooled: TosaValue, factor: float) -> TosaValue:
    """``pooled`` times ``factor``: a float MUL, or in INT the pooled codes read on a grid ``factor``
    times as coarse and moved onto the output grid by one RESCALE."""
    if ctx.spec.is_fp:
        return fp_mul(ctx, pooled, float_constant(ctx, factor, pooled.rank, name=f"{node.name}_factor"), name=node.name)
    grid = pooled.qparams
    scaled = pooled.with_qparams(dataclasses.replace(grid, scales=(grid.scale * factor,)))
    return requantize(ctx.graph, scaled, name=node.name, output=ctx.output_qparams(node))


def pool_2x2(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, 2)


def pool_3x3_padded(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, 3, stride=1, padding=1)


def pool_3x3_padding_excluded(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, 3, stride=1, padding=1, count_include_pad=False)


def pool_stride2_trim(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, 3, stride=2)


def pool_rect(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, (3, 2), stride=(2, 1))


def pool_global(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, 7)


def pool_ceil_padded(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True)


def pool_ceil_padding_excluded(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, 3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)


def pool_divided_by_12(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, 3, stride=1, padding=1, divisor_override=12)


def pool_ceil_divided(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, 2, ceil_mode=True, divisor_override=3)


TEST_CASES = {
    "2x2": OpTestCase(FunctionModule(pool_2x2), random_inputs(0, (1, 8, 16, 16))),
    "3x3_count_pad": OpTestCase(FunctionModule(pool_3x3_padded), random_inputs(1, (1, 4, 9, 9))),
    "3x3_exclude_pad": OpTestCase(FunctionModule(pool_3x3_padding_excluded), random_inputs(2, (1, 4, 9, 9))),
    "stride2_trim": OpTestCase(FunctionModule(pool_stride2_trim), random_inputs(3, (1, 6, 10, 12))),
    "rect": OpTestCase(FunctionModule(pool_rect), random_inputs(4, (1, 5, 11, 8))),
    "global_7x7": OpTestCase(FunctionModule(pool_global), random_inputs(5, (1, 32, 7, 7))),
    # 2x2 windows whose averages sit on half steps (tie_inputs.py), rounded to even as in the quantized
    # model. No output may be a step off.
    "2x2_ties_to_even": OpTestCase(
        FunctionModule(pool_2x2), (half_step_windows(12, 4, 3, (2, 2), zero_point=-1),), differing_from_quantized=0.0
    ),
    "batch2": OpTestCase(FunctionModule(pool_2x2), random_inputs(6, (2, 8, 8, 8)), cpu_targets=("u55_INT",)),
    # ceil_mode with padding 1 counted (count_include_pad), the overhang past it not: 9 -> 5 windows.
    "ceil_count_pad": OpTestCase(FunctionModule(pool_ceil_padded), random_inputs(8, (1, 3, 8, 9))),
    "ceil_exclude_pad": OpTestCase(FunctionModule(pool_ceil_padding_excluded), random_inputs(9, (1, 3, 8, 9))),
    # Every window counts 9 elements (padding included): the mean times 9 / 12.
    "divisor_override": OpTestCase(FunctionModule(pool_divided_by_12), random_inputs(10, (1, 2, 6, 6))),
    # Windows of 1, 2 or 4 elements (ceil overhang) would each need their own factor.
    "divisor_override_ceil": OpTestCase(
        FunctionModule(pool_ceil_divided), random_inputs(11, (1, 2, 5, 5)), cpu_targets=EVERY_TARGET
    ),
}

OP = ArmOp(
    name="avg_pool2d",
    edge_targets=(exir_ops.edge.aten.avg_pool2d.default,),
    aten_targets=(torch.ops.aten.avg_pool2d.default,),
    support=support,
    annotate=annotate_avg_pool2d,
    lower=lower,
    test_cases=TEST_CASES,
)
