"""aten.max_pool2d -> TOSA MAX_POOL2D in NHWC.

to_edge would turn max_pool2d into max_pool2d_with_indices plus a getitem; it is kept whole where it
is delegated, since TOSA has no use for the indices. Where it is not, the decomposed node still gets
this op's support rule, so the reason it stays on the CPU is the real one (e.g. a U55 limit).
"""

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

_DEFAULTS = ([], 0, 1, False)  # stride, padding, dilation, ceil_mode


def _options(node: Node) -> tuple[PoolWindow, list[int] | int]:
    """The window (with its ceil_mode) and dilation of a max_pool2d node."""
    kernel, *given = node.args[1:]
    stride, padding, dilation, ceil_mode = (*given, *_DEFAULTS[len(given) :])
    return PoolWindow.from_args(kernel, stride, padding, ceil_mode), dilation


_WITH_INDICES = exir_ops.edge.aten.max_pool2d_with_indices.default


def support(node: Node, spec: TosaSpecification) -> str | None:
    reason = _pool_reason(node, spec)
    if node.target == _WITH_INDICES:
        return reason or f"{describe(node)}: the indices output has no TOSA lowering"
    return reason


def _pool_reason(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    if len(shape_of(x)) != 4:
        return f"{describe(node)}: only rank-4 (NCHW) inputs are lowered, got shape {shape_of(x)}"
    window, dilation = _options(node)
    dilated = dilation not in (1, [1], [1, 1], (1, 1))
    return first_reason(
        f"{describe(node)}: dilation {dilation} is not lowered (TOSA MAX_POOL2D has none)" if dilated else None,
        u55_reason(node, spec, window, padded_avg=False),
        profile_reason(node, spec, [x]),
    )


def annotate_max_pool2d(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    window, _ = _options(node)
    return lower_pool(ctx, node, ts.Op.MAX_POOL2D, window, pad_inside=True)


def pool_2x2(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool2d(x, 2)


def pool_3x3_stride2_padded(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool2d(x, 3, stride=2, padding=1)


def pool_rect(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool2d(x, (2, 3), stride=(1, 2))


def pool_3x3_stride2_ceil(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool2d(x, 3, stride=2, ceil_mode=True)


def pool_2x2_ceil_padded(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool2d(x, 2, padding=1, ceil_mode=True)


def pool_stride4(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool2d(x, 4)


TEST_CASES = {
    "2x2": OpTestCase(FunctionModule(pool_2x2), random_inputs(0, (1, 8, 16, 16))),
    "3x3_stride2_pad1": OpTestCase(FunctionModule(pool_3x3_stride2_padded), random_inputs(1, (1, 16, 15, 15))),
    "rect_trim": OpTestCase(FunctionModule(pool_rect), random_inputs(2, (1, 4, 9, 10))),
    # ceil_mode: 16 -> 8 rows (floor would give 7), 13 -> 6; the padded case drops a window that would
    # start in the end padding (10 + 2 -> 6 windows, not 7).
    "3x3_stride2_ceil": OpTestCase(FunctionModule(pool_3x3_stride2_ceil), random_inputs(5, (1, 8, 16, 13))),
    "2x2_pad1_ceil": OpTestCase(FunctionModule(pool_2x2_ceil_padded), random_inputs(6, (1, 4, 10, 11))),
    "stride4": OpTestCase(FunctionModule(pool_stride4), random_inputs(3, (1, 4, 16, 16)), cpu_targets=("u55_INT",)),
    "batch2": OpTestCase(FunctionModule(pool_2x2), random_inputs(4, (2, 8, 8, 8)), cpu_targets=("u55_INT",)),
}

OP = ArmOp(
    name="max_pool2d",
    edge_targets=(exir_ops.edge.aten.max_pool2d.default, _WITH_INDICES),
    aten_targets=(torch.ops.aten.max_pool2d.default,),
    support=support,
    annotate=annotate_max_pool2d,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.max_pool2d.default,),
)
