"""aten.adaptive_avg_pool2d -> TOSA AVG_POOL2D when the output size divides the input size.

Then every adaptive window has the same size and stride (input / output). Otherwise the windows
differ in size and overlap unevenly, which one AVG_POOL2D cannot express: such pools stay on the
CPU. The op is kept whole in the edge dialect where it is delegated: decomposed, a 1x1 output of a
channels-last input (ConvNeXt's head, after its permuted blocks) becomes mean over (H, W) followed by
an as_strided_copy restoring the strides, which leaves the mean's output unquantized.

A quantized pool over windows of an even count of values takes the exact form of
arm/ops/common/ties_to_even.py (two convolutions for a global pool of a power-of-two count up to 64, an int16
AVG_POOL2D of the scaled codes for other windows of up to 128 values,
else, to 1x1, REDUCE_SUM over H and W; both round half steps to even as the quantized model does,
where the int8 AVG_POOL2D rounds them up): MobileViT-XXS's 2x2 global pool had 12% of its outputs a
step off. Windows of more than 128 values to outputs larger than 1x1 still round half up (open).
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.tie_inputs import half_step_averages
from arm.ops.common.ties_to_even import lower_average, lower_pooled_average
from arm.ops.common.pooling import PoolWindow, lower_pool, u55_reason
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def _window(node: Node) -> PoolWindow | None:
    """The equivalent fixed window, or None when the output size does not divide the input size."""
    height, width = shape_of(node.args[0])[-2:]
    out_h, out_w = shape_of(node)[-2:]
    if height % out_h or width % out_w:
        return None
    step = (height // out_h, width // out_w)
    return PoolWindow(kernel=step, stride=step)


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    if len(shape_of(x)) != 4:
        return f"{describe(node)}: only rank-4 (NCHW) inputs are lowered, got shape {shape_of(x)}"
    window = _window(node)
    if window is None:
        return (
            f"{describe(node)}: output size {shape_of(node)[-2:]} does not divide input size {shape_of(x)[-2:]}, "
            "so the adaptive windows differ in size and no single AVG_POOL2D computes them"
        )
    return first_reason(profile_reason(node, spec, [x]), u55_reason(node, spec, window, padded_avg=False))


def annotate_adaptive_avg_pool2d(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    window = _window(node)
    exact = lower_pooled_average(node, ctx, window.kernel)
    if exact is None and shape_of(node)[-2:] == (1, 1):
        exact = lower_average(node, ctx, [2, 3])
    if exact is not None:
        return exact
    return lower_pool(ctx, node, ts.Op.AVG_POOL2D, _window(node), pad_inside=True)


def to_2x2(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x, 2)


def to_1x1(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x, 1)


def to_3x4(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x, (3, 4))


def to_uneven_3x3(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x, 3)


def channels_last_to_1x1(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.adaptive_avg_pool2d(x.permute(0, 3, 1, 2), 1)


_EVERY_TARGET = ("tosa_FP", "tosa_INT", "u55_INT", "u85_INT", "vgf_FP", "vgf_INT")

TEST_CASES = {
    "6x6_to_2x2": OpTestCase(FunctionModule(to_2x2), random_inputs(0, (1, 8, 6, 6))),
    "9x8_to_3x4": OpTestCase(FunctionModule(to_3x4), random_inputs(1, (1, 4, 9, 8))),
    # Windows of 4 step by 4: beyond the U55's pooling stride limit of 3.
    "8x8_to_2x2": OpTestCase(FunctionModule(to_2x2), random_inputs(3, (1, 8, 8, 8)), cpu_targets=("u55_INT",)),
    # A channels-last input (a permuted tensor) pooled to 1x1, as in ConvNeXt's head.
    "channels_last_to_1x1": OpTestCase(FunctionModule(channels_last_to_1x1), random_inputs(4, (1, 2, 2, 16))),
    # A global pool whose averages sit on half steps (tie_inputs.py), rounded to even as in the
    # quantized model (MobileViT-XXS's head: 2x2 to 1x1). No output may be a step off.
    "2x2_to_1x1_ties_to_even": OpTestCase(
        FunctionModule(to_1x1), (half_step_averages(5, (1, 16, 2, 2), [2, 3], zero_point=0),),
        differing_from_quantized=0.0,
    ),
    "8x8_to_3x3_uneven": OpTestCase(
        FunctionModule(to_uneven_3x3), random_inputs(2, (1, 4, 8, 8)), cpu_targets=_EVERY_TARGET
    ),
}

OP = ArmOp(
    name="adaptive_avg_pool2d",
    edge_targets=(exir_ops.edge.aten._adaptive_avg_pool2d.default, exir_ops.edge.aten.adaptive_avg_pool2d.default),
    aten_targets=(torch.ops.aten.adaptive_avg_pool2d.default,),
    support=support,
    annotate=annotate_adaptive_avg_pool2d,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.adaptive_avg_pool2d.default,),
)
