"""aten.avg_pool2d -> TOSA AVG_POOL2D in NHWC (count_include_pad: an explicit PAD of zeros first)."""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.pooling import PoolWindow, lower_pool, u55_reason
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification

_DEFAULTS = ([], 0, False, True, None)  # stride, padding, ceil_mode, count_include_pad, divisor_override


def _options(node: Node) -> tuple[PoolWindow, bool, bool, int | None]:
    """The window, ceil_mode, count_include_pad and divisor_override of an avg_pool2d node."""
    kernel, *given = node.args[1:]
    stride, padding, ceil_mode, count_include_pad, divisor_override = (*given, *_DEFAULTS[len(given) :])
    return PoolWindow.from_args(kernel, stride, padding), ceil_mode, count_include_pad, divisor_override


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    if len(shape_of(x)) != 4:
        return f"{describe(node)}: only rank-4 (NCHW) inputs are lowered, got shape {shape_of(x)}"
    window, ceil_mode, count_include_pad, divisor_override = _options(node)
    return first_reason(
        f"{describe(node)}: ceil_mode=True is not lowered; pad the input instead" if ceil_mode else None,
        f"{describe(node)}: divisor_override is not lowered" if divisor_override is not None else None,
        profile_reason(node, spec, [x]),
        u55_reason(node, spec, window, padded_avg=window.padded and not count_include_pad),
    )


def annotate_avg_pool2d(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    window, _, count_include_pad, _ = _options(node)
    return lower_pool(ctx, node, ts.Op.AVG_POOL2D, window, pad_inside=not count_include_pad)


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


TEST_CASES = {
    "2x2": OpTestCase(FunctionModule(pool_2x2), random_inputs(0, (1, 8, 16, 16))),
    "3x3_count_pad": OpTestCase(FunctionModule(pool_3x3_padded), random_inputs(1, (1, 4, 9, 9))),
    "3x3_exclude_pad": OpTestCase(FunctionModule(pool_3x3_padding_excluded), random_inputs(2, (1, 4, 9, 9))),
    "stride2_trim": OpTestCase(FunctionModule(pool_stride2_trim), random_inputs(3, (1, 6, 10, 12))),
    "rect": OpTestCase(FunctionModule(pool_rect), random_inputs(4, (1, 5, 11, 8))),
    "global_7x7": OpTestCase(FunctionModule(pool_global), random_inputs(5, (1, 32, 7, 7))),
    "batch2": OpTestCase(FunctionModule(pool_2x2), random_inputs(6, (2, 8, 8, 8)), cpu_targets=("u55_INT",)),
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
