"""aten.avg_pool2d -> TOSA AVG_POOL2D in NHWC (count_include_pad: an explicit PAD of zeros first).

ceil_mode=True: the last window may hang past the end padding; PyTorch counts none of that overhang,
so it is AVG_POOL2D's own padding (left out of the count), whether count_include_pad or not.
divisor_override replaces the count: the pool is each window's sum / divisor, whatever the window
holds (padding and overhang add nothing to the sum), computed as a DEPTHWISE_CONV2D of ones and, in
INT, one RESCALE of the exact int32 sum (common/window_sum.py). Only a divisor equal to the kernel's
area over windows that count the whole kernel is the plain AVG_POOL2D.

Quantized windows of an even count that tile the input (no padding, stride = kernel) take the exact
form of arm/ops/common/ties_to_even.py: an average on a half step of the shared grid rounds to even
as in the quantized model (AVG_POOL2D rounds it up; a 2x2 pool was a step off on 1 in 8 outputs).
So do windows that overlap or leave their padding out of the count (PoolFormer's 3x3 stride-1 token
mixer, ``count_include_pad=False``): its border windows hold 6 or 4 elements, and one in 6 or 4 of
them sat on a half step (PoolFormer-v2-S12 was 14 steps off its quantized model at the logits). There
the codes plus 128, scaled by a multiple K of every window count, are pooled in int16 (each average
K / N * S' is an exact integer whatever the window's count N), and that is rounded as a sum of K.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.pooling import PoolWindow, lower_pool, u55_reason
from arm.ops.common.tie_inputs import STEP, half_step_windows
from arm.ops.common.ties_to_even import average_ties_to_even, lower_pooled_average, rounds_ties_to_even
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.ops.common.window_sum import window_sum_divided
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import QParams
from arm.tosa.rescale import rescale
from arm.tosa.specification import TosaSpecification

_DEFAULTS = ([], 0, False, True, None)  # stride, padding, ceil_mode, count_include_pad, divisor_override
_INT8_MIN = -128
# The int16 pool's scaled codes (code + 128) * K stay within int16 for K up to 128.
_MAX_POOL_SCALE = 128


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
    if _divides_window_sums(node):
        return first_reason(_divisor_reason(node, spec, window, divisor_override), profile_reason(node, spec, [x]))
    return first_reason(
        profile_reason(node, spec, [x]),
        u55_reason(node, spec, window, padded_avg=(window.padded and not count_include_pad) or overhang),
    )


def _divisor_reason(node: Node, spec: TosaSpecification, window: PoolWindow, divisor_override: int | None) -> str | None:
    if divisor_override is None:
        return None
    if divisor_override <= 0:
        return f"{describe(node)}: divisor_override {divisor_override} must be positive (PyTorch raises for it)"
    return u55_reason(node, spec, window, padded_avg=False)


def _counts_whole_kernel(node: Node) -> bool:
    """Whether AVG_POOL2D divides every window by the kernel's area (no excluded padding, no overhang)."""
    window, count_include_pad, _ = _options(node)
    _, _, height, width = shape_of(node.args[0])
    return not ((window.padded and not count_include_pad) or window.overhangs(height, width))


def annotate_avg_pool2d(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def _tiling_kernel(node: Node, window: PoolWindow) -> tuple[int, int] | None:
    """The kernel when its windows tile the input exactly: no padding, stride = kernel, no remainder."""
    _, _, height, width = shape_of(node.args[0])
    kernel_h, kernel_w = window.kernel
    tiles = window.padding == (0, 0) and window.stride == window.kernel and not (height % kernel_h or width % kernel_w)
    return window.kernel if tiles else None


def _divides_window_sums(node: Node) -> bool:
    """divisor_override set, and not the area AVG_POOL2D divides every window by anyway."""
    window, _, divisor_override = _options(node)
    whole_kernel = divisor_override == window.kernel[0] * window.kernel[1] and _counts_whole_kernel(node)
    return divisor_override is not None and not whole_kernel


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    window, count_include_pad, divisor_override = _options(node)
    kernel = _tiling_kernel(node, window)
    if kernel is not None and divisor_override in (None, kernel[0] * kernel[1]):
        exact = lower_pooled_average(node, ctx, kernel)
        if exact is not None:
            return exact
    if _divides_window_sums(node):
        return window_sum_divided(ctx, node, window, divisor_override)
    if divisor_override is None and not (window.padded and count_include_pad):
        exact = _average_ties_to_even(node, ctx, window)
        if exact is not None:
            return exact
    return lower_pool(ctx, node, ts.Op.AVG_POOL2D, window, pad_inside=not count_include_pad)


def window_counts(window: PoolWindow, height: int, width: int) -> set[int]:
    """How many input elements each window holds, padding and ceil_mode overhang left out (PyTorch's
    divisor with count_include_pad=False, and with it True for an unpadded pool)."""

    def along(size: int, axis: int, outputs: int) -> set[int]:
        starts = np.arange(outputs) * window.stride[axis] - window.padding[axis]
        ends = np.minimum(starts + window.kernel[axis], size)
        return set((ends - np.maximum(starts, 0)).tolist())

    out_h, out_w = window.output_size(height, width)
    return {rows * columns for rows in along(height, 0, out_h) for columns in along(width, 1, out_w)}


def _average_ties_to_even(node: Node, ctx: LoweringContext, window: PoolWindow) -> TosaValue | None:
    """The pool rounded ties to even where some window has an even count on the shared grid (module
    docstring); None where AVG_POOL2D's own rounding already agrees or the counts need K above 128."""
    if not ctx.spec.is_int:
        return None
    source = ctx.value(node.args[0])
    output = ctx.output_qparams(node)
    counts = window_counts(window, *source.shape[2:])
    even = [count for count in counts if count % 2 == 0]
    multiple = math.lcm(*counts)
    if not even or multiple > _MAX_POOL_SCALE or not rounds_ties_to_even(even[0], source.qparams, output):
        return None
    scale = multiple * (_MAX_POOL_SCALE // multiple)
    int16 = np.dtype(np.int16)
    scaled = rescale(
        ctx.graph, source, name=f"{node.name}_int16", scales=[float(scale)], output_dtype=int16,
        input_zp=_INT8_MIN, output_zp=0, output_qparams=QParams((source.qparams.scale / scale,), 0, int16),
    )  # fmt: skip
    # The pool's own padding stays out of every count (TOSA's AVG_POOL2D), as PyTorch's divisor does here.
    pooled = lower_pool(
        ctx, node, ts.Op.AVG_POOL2D, window, pad_inside=True, name=f"{node.name}_pooled", nchw_input=scaled,
        onto_output_grid=False,
    )  # fmt: skip
    sums = rescale(
        ctx.graph, pooled, name=f"{node.name}_int32", scales=[1.0], output_dtype=np.dtype(np.int32), input_zp=0,
        output_zp=0,
    )  # fmt: skip
    return average_ties_to_even(ctx, sums, scale, output, name=node.name)


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


def pool_1x2_then_scaled(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.avg_pool2d(x, (1, 2)) * 1.5


def codes_on_the_step_grid(seed: int, shape: tuple[int, ...]) -> torch.Tensor:
    """Random int8 codes (both extremes among them) times tie_inputs.STEP: the observer's grid is that
    step with zero point 0, and every window's sum and average is exact in float32, so the quantized
    module meets the half steps of 4- and 6-element windows exactly."""
    generator = torch.Generator().manual_seed(seed)
    codes = torch.randint(-128, 128, shape, generator=generator)
    codes.view(-1)[:2] = torch.tensor([-128, 127])
    return codes.to(torch.float32) * STEP


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
    # PoolFormer's token mixer: border windows of 6 and 4 elements sit on half steps (1 in 6 and 1 in 4),
    # which the exact form rounds to even as the quantized model does. No output may be a step off.
    "3x3_exclude_pad_ties_to_even": OpTestCase(
        FunctionModule(pool_3x3_padding_excluded), (codes_on_the_step_grid(12, (1, 4, 7, 7)),),
        differing_from_quantized=0.0,
    ),  # fmt: skip
    # SEW's frame squeeze (avg_pool1d.py) as 1x2 windows, then scaled: half of all pairs sum to a half
    # step, rounded to even. On random floats the quantized module is the one a step off: its float32
    # (a*s + b*s) / 2 / s misses the exact half for about 1 tie in 5 (7 to 11% of a random 1x2 pool's outputs
    # on tosa_INT, the 18 in 240 of session 11), and in float64 (float64_oracle) none differs. On the
    # step grid every sum is exact in float32 too. No output may be a step off.
    "1x2_then_scaled": OpTestCase(
        FunctionModule(pool_1x2_then_scaled), (codes_on_the_step_grid(13, (1, 8, 1, 30)),),
        differing_from_quantized=0.0,
    ),  # fmt: skip
    "batch2": OpTestCase(FunctionModule(pool_2x2), random_inputs(6, (2, 8, 8, 8)), cpu_targets=("u55_INT",)),
    # ceil_mode with padding 1 counted (count_include_pad), the overhang past it not: 9 -> 5 windows.
    "ceil_count_pad": OpTestCase(FunctionModule(pool_ceil_padded), random_inputs(8, (1, 3, 8, 9))),
    "ceil_exclude_pad": OpTestCase(FunctionModule(pool_ceil_padding_excluded), random_inputs(9, (1, 3, 8, 9))),
    # Every sum of 9 elements (padding counts as zeros) divided by 12, rounded once in INT. A sum of
    # codes 6 past a multiple of 12 is an exact tie, which RESCALE rounds up and the quantized module's
    # float noise rounds either way: up to 1 in 24 elements a step off, no more.
    "divisor_override": OpTestCase(
        FunctionModule(pool_divided_by_12), random_inputs(10, (1, 2, 6, 6)), differing_from_quantized=1 / 24
    ),
    # Windows of 1, 2 or 4 elements (ceil overhang), each sum divided by 3, which never ties: in INT
    # every element as the quantized module rounds it.
    "divisor_override_ceil": OpTestCase(
        FunctionModule(pool_ceil_divided), random_inputs(11, (1, 2, 5, 5)), differing_from_quantized=0.0
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
