"""aten.max_pool1d -> RESHAPE [N, C, L] to [N, C, 1, L], a 1xK TOSA MAX_POOL2D in NHWC, RESHAPE back.

to_edge would write it as unsqueeze, max_pool2d_with_indices, getitem and squeeze, whose indices
output has no TOSA form; kept whole (where delegated) it is one MAX_POOL2D with the 2-D pools'
window arithmetic (common/pooling.py: floored or ceil_mode output size, padding as -inf).

The U55 pools with strides up to 3. A larger stride there (floored output size) is a stride-1 pool,
whose window j starts where window j / stride of the strided pool does, and every stride-th of its
windows: the first of each block of ``stride`` (a reshape and a slice in NHWC) and the last window
on its own, concatenated. The peer's ``larger_kernel`` (kernel 8, stride 4 over 64 samples) is one.
"""

from __future__ import annotations

import math

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import EVERY_TARGET, FunctionModule, OpTestCase, random_inputs
from arm.ops.common.pooling import PoolWindow, beyond_u55_stride, lower_pool, u55_reason
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, concat, reshape, slice_tensor
from arm.tosa.layout import to_nchw, to_nhwc
from arm.tosa.specification import TosaSpecification

_DEFAULTS = ([], [0], [1], False)  # stride, padding, dilation, ceil_mode


def _window(node: Node) -> tuple[PoolWindow, int]:
    """The pool as a 1xK window on [N, C, 1, L], and its dilation."""
    kernel, *given = node.args[1:]
    stride, padding, dilation, ceil_mode = (*given, *_DEFAULTS[len(given) :])
    first = lambda value: value if isinstance(value, int) else value[0]  # noqa: E731
    stride = stride or kernel
    window = PoolWindow((1, first(kernel)), (1, first(stride)), (0, first(padding)), ceil_mode)
    return window, first(dilation)


def _pooled_shape(node: Node) -> tuple[int, int, int, int]:
    """[N, C, 1, L] for a [N, C, L] or [C, L] input."""
    *batch, channels, length = shape_of(node.args[0])
    return (math.prod(batch), channels, 1, length)


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    if len(shape_of(x)) not in (2, 3):
        return f"{describe(node)}: a 1-D max pool takes a [N, C, L] or [C, L] input, got shape {shape_of(x)}"
    window, dilation = _window(node)
    if _strided_by_subsampling(window, spec):
        window = _stride_one(window)
    return first_reason(
        f"{describe(node)}: dilation {dilation} is not lowered (TOSA MAX_POOL2D has none)" if dilation != 1 else None,
        u55_reason(node, spec, window, padded_avg=False, input_shape=_pooled_shape(node)),
        profile_reason(node, spec, [x]),
    )


def annotate_max_pool1d(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def _strided_by_subsampling(window: PoolWindow, spec: TosaSpecification) -> bool:
    """A floored pool whose stride the U55 lacks: a stride-1 pool and every stride-th window (module docstring)."""
    return spec.has("u55") and beyond_u55_stride(window) and not window.ceil_mode


def _stride_one(window: PoolWindow) -> PoolWindow:
    return PoolWindow(window.kernel, (1, 1), window.padding, window.ceil_mode)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    window, _ = _window(node)
    rows = reshape(ctx.graph, ctx.value(node.args[0]), _pooled_shape(node), name=f"{node.name}_rows")
    if _strided_by_subsampling(window, ctx.spec):
        every = lower_pool(
            ctx, node, ts.Op.MAX_POOL2D, _stride_one(window), pad_inside=True, name=f"{node.name}_stride1",
            nchw_input=rows,
        )  # fmt: skip
        pooled = _every_nth_window(ctx, every, window.stride[1], window.output_size(1, rows.shape[3])[1], node.name)
    else:
        pooled = lower_pool(ctx, node, ts.Op.MAX_POOL2D, window, pad_inside=True, name=f"{node.name}_4d", nchw_input=rows)
    return reshape(ctx.graph, pooled, shape_of(node), name=node.name)


def _every_nth_window(ctx: LoweringContext, every: TosaValue, stride: int, outputs: int, name: str) -> TosaValue:
    """Windows 0, stride, 2 * stride, ... (``outputs`` of them) of the NCHW [N, C, 1, L] ``every``, as
    [N, C, 1, outputs]: in NHWC the first ``outputs - 1`` blocks of ``stride`` windows reshaped to rows,
    each row's first window sliced, and the last window concatenated."""
    graph = ctx.graph
    nhwc = to_nhwc(graph, every)
    batch, _, _, channels = nhwc.shape
    whole = outputs - 1
    last = slice_tensor(graph, nhwc, (0, 0, whole * stride, 0), (batch, 1, 1, channels), name=f"{name}_last")
    if whole == 0:
        return to_nchw(graph, last, name=f"{name}_4d")
    head = slice_tensor(graph, nhwc, (0, 0, 0, 0), (batch, 1, whole * stride, channels), name=f"{name}_blocks")
    blocks = reshape(graph, head, (batch, whole, stride, channels), name=f"{name}_block_rows")
    firsts = slice_tensor(graph, blocks, (0, 0, 0, 0), (batch, whole, 1, channels), name=f"{name}_firsts")
    row = reshape(graph, firsts, (batch, 1, whole, channels), name=f"{name}_firsts_row")
    return to_nchw(graph, concat(graph, [row, last], 2, name=f"{name}_strided"), name=f"{name}_4d")


def pool3_stride2(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool1d(x, 3, stride=2)


def pool2_pad1_ceil(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool1d(x, 2, padding=1, ceil_mode=True)


def pool_stride4(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool1d(x, 4)


def pool8_stride4(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool1d(x, 8, stride=4)


def pool5_stride5_pad2(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool1d(x, 5, stride=5, padding=2)


def pool4_ceil(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool1d(x, 4, ceil_mode=True)


_NOT_U85 = tuple(target for target in EVERY_TARGET if target != "u85_INT")

TEST_CASES = {
    # 17 samples: the floored output leaves the last one unread.
    "k3_stride2": OpTestCase(FunctionModule(pool3_stride2), random_inputs(0, (1, 8, 17))),
    # Unbatched [C, L]; ceil_mode with padding: 11 + 2 -> 7 windows.
    "k2_pad1_ceil_unbatched": OpTestCase(FunctionModule(pool2_pad1_ceil), random_inputs(1, (4, 11))),
    # Stride 4 exceeds the U55's pooling stride limit of 3: there a stride-1 pool, every 4th window kept.
    "stride4": OpTestCase(FunctionModule(pool_stride4), random_inputs(2, (1, 4, 16))),
    # The peer's larger_kernel: windows of 8 every 4 (overlapping), 64 samples -> 15; padded by 2 in another.
    "k8_stride4": OpTestCase(FunctionModule(pool8_stride4), random_inputs(3, (1, 4, 64))),
    # Not on the U85: its stream for these two pools keeps accumulators between operations, which the NPU
    # model does not model (error 7), so no U85 check of them exists here.
    "k5_stride5_pad2": OpTestCase(FunctionModule(pool5_stride5_pad2), random_inputs(4, (1, 3, 23)), targets=_NOT_U85),
    # ceil_mode's overhanging last window has no stride-1 counterpart: the U55 keeps it on the CPU.
    "stride4_ceil": OpTestCase(
        FunctionModule(pool4_ceil), random_inputs(5, (1, 4, 18)), cpu_targets=("u55_INT",), targets=_NOT_U85
    ),
}

OP = ArmOp(
    name="max_pool1d",
    edge_targets=(exir_ops.edge.aten.max_pool1d.default,),
    aten_targets=(torch.ops.aten.max_pool1d.default,),
    support=support,
    annotate=annotate_max_pool1d,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.max_pool1d.default,),
)
