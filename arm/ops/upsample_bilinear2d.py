"""aten.upsample_bilinear2d -> TOSA RESIZE (BILINEAR) in NHWC.

Quantized, the output keeps the input's grid: RESIZE writes int32 codes times the weight sum N, which
one RESCALE divides out, or, for int8 and an even N, the exact average of arm/ops/common/ties_to_even.py
(a RESCALE rounds half steps up, the quantized model to even). The U55 has no bilinear resize, so there it stays on the CPU.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.resize import lower_resize, resize_support
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def _align_corners(node: Node) -> bool:
    return bool(node.args[2])


def support(node: Node, spec: TosaSpecification) -> str | None:
    return resize_support(node, spec, bilinear=True, align_corners=_align_corners(node))


def annotate_upsample(node: Node, config: QuantizationConfig) -> None:
    # An interpolation stays within its inputs' range, so the input's grid fits the output.
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    return lower_resize(node, ctx, bilinear=True, align_corners=_align_corners(node))


def upscale_2x(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.interpolate(x, scale_factor=2, mode="bilinear")


def upscale_2x_corners(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True)


def to_size_uneven(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.interpolate(x, size=(9, 7), mode="bilinear")


def upscale_1_5x(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.interpolate(x, scale_factor=1.5, mode="bilinear")


_U55 = ("u55_INT",)


def _codes_on_sixteenths(seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor]:
    """Random int8 codes (both extremes among them) times 1/16: the observer's scale is 1/16 and torch's
    2x interpolation (weights 1/4 and 3/4) is exact in float32, so its half steps are exact ties."""
    codes = torch.randint(-128, 128, shape, generator=torch.Generator().manual_seed(seed))
    codes.view(-1)[:2] = torch.tensor([-128, 127])
    return ((codes + 1).to(torch.float32) / 16,)

TEST_CASES = {
    "2x": OpTestCase(FunctionModule(upscale_2x), random_inputs(0, (1, 4, 5, 6)), cpu_targets=_U55),
    "2x_align_corners": OpTestCase(
        FunctionModule(upscale_2x_corners), random_inputs(1, (1, 4, 4, 4)), cpu_targets=_U55
    ),
    "size_9x7": OpTestCase(FunctionModule(to_size_uneven), random_inputs(2, (1, 3, 4, 5)), cpu_targets=_U55),
    # 5 x 1.5 floors to 7 rows, sampled with 1.5 itself, not 7/5 (the peer's one_and_half_scale cases).
    "scale_1_5_floored": OpTestCase(FunctionModule(upscale_1_5x), random_inputs(4, (1, 2, 5, 4)), cpu_targets=_U55),
    # About one output in eight is a half step (deeplabv3_mobilenet_v3_large's head upsample), which the
    # quantized model rounds to even: no output may be a step off.
    "2x_ties_to_even": OpTestCase(
        FunctionModule(upscale_2x), _codes_on_sixteenths(5, (1, 8, 6, 6)), cpu_targets=_U55, differing_from_quantized=0.0
    ),
    # int16 activations: RESIZE widens int16 to int48; no int16 on TOSA-1.0+INT (TOSA, VGF).
    "a16w8_2x": OpTestCase(
        FunctionModule(upscale_2x),
        random_inputs(3, (1, 2, 3, 4)),
        cpu_targets=(*_U55, "tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="upsample_bilinear2d",
    edge_targets=(exir_ops.edge.aten.upsample_bilinear2d.vec,),
    aten_targets=(torch.ops.aten.upsample_bilinear2d.vec, torch.ops.aten.upsample_bilinear2d.default),
    support=support,
    annotate=annotate_upsample,
    lower=lower,
    test_cases=TEST_CASES,
)
