"""aten.upsample_nearest2d -> TOSA RESIZE (NEAREST) in NHWC; quantized, the output keeps the input's grid."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.resize import lower_resize, resize_support
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    return resize_support(node, spec, bilinear=False, align_corners=False)


def annotate_upsample(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    return lower_resize(node, ctx, bilinear=False, align_corners=False)


def upscale_2x(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.interpolate(x, scale_factor=2, mode="nearest")


def upscale_4x(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.interpolate(x, scale_factor=4, mode="nearest")


def upscale_3x(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.interpolate(x, scale_factor=3, mode="nearest")


def to_size_uneven(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.interpolate(x, size=(7, 10), mode="nearest")


def upscale_1_5x(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.interpolate(x, scale_factor=1.5, mode="nearest")


TEST_CASES = {
    "2x": OpTestCase(FunctionModule(upscale_2x), random_inputs(0, (1, 8, 6, 5))),
    "4x": OpTestCase(FunctionModule(upscale_4x), random_inputs(1, (1, 4, 3, 3))),
    "3x": OpTestCase(FunctionModule(upscale_3x), random_inputs(2, (1, 4, 4, 4)), cpu_targets=("u55_INT",)),
    "size_7x10": OpTestCase(FunctionModule(to_size_uneven), random_inputs(3, (1, 3, 4, 4)), cpu_targets=("u55_INT",)),
    # 5 x 1.5 floors to 7 rows, sampled with 1.5 itself (floor(y / 1.5)), not 7/5.
    "scale_1_5_floored": OpTestCase(FunctionModule(upscale_1_5x), random_inputs(5, (1, 2, 5, 3)), cpu_targets=("u55_INT",)),
    "batch2_2x": OpTestCase(FunctionModule(upscale_2x), random_inputs(4, (2, 4, 3, 3)), cpu_targets=("u55_INT",)),
}

OP = ArmOp(
    name="upsample_nearest2d",
    edge_targets=(exir_ops.edge.aten.upsample_nearest2d.vec,),
    aten_targets=(torch.ops.aten.upsample_nearest2d.vec, torch.ops.aten.upsample_nearest2d.default),
    support=support,
    annotate=annotate_upsample,
    lower=lower,
    test_cases=TEST_CASES,
)
