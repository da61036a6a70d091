"""aten.max_pool2d -> TOSA MAX_POOL2D in NHWC.

to_edge would turn max_pool2d into max_pool2d_with_indices plus a getitem; it is kept whole where it
is delegated, since TOSA has no use for the indices. Where it is not, the decomposed node still gets
this op's support rule, so the reason it stays on the CPU is the real one (e.g. a U55 limit).
"""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.pooling import PoolWindow, lower_pool, u55_reason
from arm.ops.common.strided import as_rows, read_strided, strided_rows
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, pad_tensor, reshape, slice_tensor
from arm.tosa.layout import transpose
from arm.tosa.specification import TosaSpecification

_DEFAULTS = ([], 0, 1, False)  # stride, padding, dilation, ceil_mode


def _options(node: Node) -> tuple[PoolWindow, list[int] | int]:
    """The window (with its ceil_mode) and dilation of a max_pool2d node."""
    kernel, *given = node.args[1:]
    stride, padding, dilation, ceil_mode = (*given, *_DEFAULTS[len(given) :])
    return PoolWindow.from_args(kernel, stride, padding, ceil_mode), dilation


def _pair(value: list[int] | int) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else (value[0], value[-1])


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
    return first_reason(
        _dilation_reason(node, spec, window, _pair(dilation)),
        u55_reason(node, spec, window, padded_avg=False),
        profile_reason(node, spec, [x]),
    )


def _dilation_reason(node: Node, spec: TosaSpecification, window: PoolWindow, dilation: tuple[int, int]) -> str | None:
    if dilation == (1, 1):
        return None
    if spec.has("u55") or spec.has("u85"):
        return (
            f"{describe(node)}: dilation {list(dilation)} is lowered as phases folded into channels (rank-5 "
            "TRANSPOSEs around MAX_POOL2D), not checked on Vela yet; it runs on the CPU on Ethos-U"
        )
    if window.ceil_mode:
        return f"{describe(node)}: dilation {list(dilation)} with ceil_mode=True is not lowered"
    return None


def annotate_max_pool2d(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    window, dilation = _options(node)
    if _pair(dilation) == (1, 1):
        return lower_pool(ctx, node, ts.Op.MAX_POOL2D, window, pad_inside=True)
    return _lower_dilated(node, ctx, window, _pair(dilation))


def _lower_dilated(node: Node, ctx: LoweringContext, window: PoolWindow, dilation: tuple[int, int]) -> TosaValue:
    """A dilated max pool: PyTorch's padding made explicit (with the lowest value), then along each
    dilated axis a stride-1 pool over each of its ``dilation`` phases (every stride-th row kept after,
    common/strided.py), then a plain MAX_POOL2D along the axes left undilated.

    Along an axis of dilation d, output y reads x[y + i * d] for i < k: every tap of one output lies in
    the phase y mod d, where it is an ordinary k-wide window. The axis is split into (rows / d, d), the
    phases moved into the channels, pooled with kernel k and stride 1, and moved back.
    """
    value = ctx.value(node.args[0])
    lowest = np.iinfo(value.dtype).min if ctx.spec.is_int else -np.inf
    pad_h, pad_w = window.padding
    if pad_h or pad_w:
        padding = ((0, 0), (0, 0), (pad_h, pad_h), (pad_w, pad_w))
        value = pad_tensor(ctx.graph, value, padding, value.dtype.type(lowest), name=f"{node.name}_padded")
    for axis in (0, 1):
        if dilation[axis] > 1:
            value = _pooled_phases(ctx, node, value, axis + 2, window.kernel[axis], dilation[axis], lowest)
            if window.stride[axis] > 1:  # every stride-th of the stride-1 windows
                dim, step = axis + 2, window.stride[axis]
                where = strided_rows(value.shape, dim, 0, value.shape[dim], step)
                rows = read_strided(ctx, as_rows(ctx, value, dim, name=f"{node.name}_axis{dim}_view"), where,
                                    name=f"{node.name}_axis{dim}_strided")  # fmt: skip
                shape = list(value.shape)
                shape[dim] = where.count
                value = reshape(ctx.graph, rows, tuple(shape), name=f"{node.name}_axis{dim}_stepped")
    rest = PoolWindow(
        kernel=tuple(k if d == 1 else 1 for k, d in zip(window.kernel, dilation)),
        stride=tuple(s if d == 1 else 1 for s, d in zip(window.stride, dilation)),
    )
    if rest.kernel == (1, 1) and rest.stride == (1, 1):
        return value
    return lower_pool(ctx, node, ts.Op.MAX_POOL2D, rest, pad_inside=True, nchw_input=value)


def _pooled_phases(
    ctx: LoweringContext, node: Node, value: TosaValue, axis: int, kernel: int, dilation: int, lowest: float
) -> TosaValue:
    """``value`` (NCHW) max-pooled along ``axis`` (2: H, 3: W) with ``kernel`` taps ``dilation`` apart."""
    name = f"{node.name}_axis{axis}"
    size = value.shape[axis]
    groups = -(-size // dilation)
    if groups * dilation > size:  # whole phases; the extra rows are never an output's tap
        padding = [(0, 0)] * 4
        padding[axis] = (0, groups * dilation - size)
        value = pad_tensor(ctx.graph, value, padding, value.dtype.type(lowest), name=f"{name}_whole_phases")
    batch, channels, height, width = value.shape
    # [N, C, G, d, W] -> [N, C, d, G, W] (H); [N, C, H, G, d] -> [N, C, d, H, G] (W)
    split = (batch, channels, groups, dilation, width) if axis == 2 else (batch, channels, height, groups, dilation)
    to_phases = (0, 1, 3, 2, 4) if axis == 2 else (0, 1, 4, 2, 3)
    phases = transpose(ctx.graph, reshape(ctx.graph, value, split, name=f"{name}_split"), to_phases,
                       name=f"{name}_phases")  # fmt: skip
    folded = reshape(ctx.graph, phases, (batch, channels * dilation, *phases.shape[3:]), name=f"{name}_folded")
    along = (kernel, 1) if axis == 2 else (1, kernel)
    pooled = lower_pool(ctx, node, ts.Op.MAX_POOL2D, PoolWindow(kernel=along, stride=(1, 1)), pad_inside=True,
                        name=f"{name}_pooled", nchw_input=folded)  # fmt: skip
    unfolded = reshape(ctx.graph, pooled, (batch, channels, dilation, *pooled.shape[2:]), name=f"{name}_unfolded")
    back = tuple(int(i) for i in np.argsort(to_phases))
    merged = transpose(ctx.graph, unfolded, back, name=f"{name}_merged")
    shape = list(value.shape)
    shape[axis] = merged.shape[axis] * dilation
    rows = reshape(ctx.graph, merged, tuple(shape), name=f"{name}_rows")
    outputs = size - (kernel - 1) * dilation
    shape[axis] = outputs
    return slice_tensor(ctx.graph, rows, (0, 0, 0, 0), tuple(shape), name=name)


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


def pool_dilated(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool2d(x, 3, stride=1, padding=1, dilation=2)


def pool_dilated_w_strided_h(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.max_pool2d(x, 3, stride=(3, 2), padding=(0, 1), dilation=(1, 2))


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
    # Dilation 2 on both axes (stride 1, padding 1): each axis's two phases pooled apart; Ethos-U keeps it.
    "dilation2_pad1": OpTestCase(
        FunctionModule(pool_dilated), random_inputs(7, (1, 3, 9, 8)), cpu_targets=("u55_INT", "u85_INT")
    ),
    # Stride 3 along H (undilated); dilation 2 along W with stride 2 (every other stride-1 window).
    "dilation_w_stride_h": OpTestCase(
        FunctionModule(pool_dilated_w_strided_h), random_inputs(8, (1, 2, 10, 11)), cpu_targets=("u55_INT", "u85_INT")
    ),
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
