"""Shared pieces of the 2-D pools (avg_pool2d, max_pool2d, adaptive_avg_pool2d, mean over H and W).

TOSA pools run in NHWC on the input's own int8 grid (they neither rescale nor add a bias), so the
quantizer shares the input's parameters with the output and the lowering only rescales when a
foreign annotation chose another grid.
"""

from __future__ import annotations

import dataclasses

import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.convolution import AxisPadding
from arm.ops.common.support import describe
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaGraph, TosaValue, pad_tensor, slice_tensor
from arm.tosa.layout import to_nchw, to_nhwc
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification

# Vela's U55 pooling limits (regor's constraints for AVG_POOL2D / MAX_POOL2D on Ethos-U55).
_U55_MAX_STRIDE = 3
_U55_MAX_KERNEL_WIDTH = 256
_U55_MAX_KERNEL_AREA = 65536
_U55_MAX_PADDED_AVG_KERNEL = 8


@dataclasses.dataclass(frozen=True)
class PoolWindow:
    """A PyTorch pooling window: (y, x) kernel, stride and symmetric padding.

    ``ceil_mode`` rounds the output size up, as PyTorch's pools do on request: the last window may then
    hang over the end padding, and the lowering pads that overhang too (MAX_POOL2D never picks it).
    """

    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int] = (0, 0)
    ceil_mode: bool = False

    @classmethod
    def from_args(
        cls, kernel: list[int], stride: list[int] | None, padding: list[int] | int = 0, ceil_mode: bool = False
    ) -> PoolWindow:
        """PyTorch's conventions: an empty stride means the kernel, one number means both axes."""
        return cls(_pair(kernel), _pair(stride or kernel), _pair(padding), ceil_mode)

    @property
    def padded(self) -> bool:
        return self.padding != (0, 0)

    def output_size(self, height: int, width: int) -> tuple[int, int]:
        return self._outputs(height, 0), self._outputs(width, 1)

    def _outputs(self, size: int, axis: int) -> int:
        kernel, stride, pad = self.kernel[axis], self.stride[axis], self.padding[axis]
        span = size + 2 * pad - kernel
        if not self.ceil_mode:
            return span // stride + 1
        outputs = -(-span // stride) + 1
        # PyTorch drops a last window that would start in the end padding.
        return outputs - 1 if (outputs - 1) * stride >= size + pad else outputs

    def axis_padding(self, size: int, axis: int, outputs: int) -> AxisPadding:
        """TOSA's (before, after) padding for ``outputs`` windows along ``axis``, and the input rows none reads.

        TOSA wants the padded size to be exactly what the windows cover; PyTorch floors (rows left
        unread come off the end padding, then the input) or, in ceil mode, lets the last window overhang
        (the end padding grows).
        """
        pad = self.padding[axis]
        covered = (outputs - 1) * self.stride[axis] + self.kernel[axis]
        after = covered - size - pad
        return AxisPadding(before=pad, after=max(after, 0), dropped=max(-after, 0))

    def overhangs(self, height: int, width: int) -> bool:
        """In ceil mode, whether a last window reaches past the end padding (PyTorch leaves that out of
        every count, count_include_pad or not)."""
        out_h, out_w = self.output_size(height, width)
        return any(
            self.axis_padding(size, axis, outputs).after > self.padding[axis]
            for axis, (size, outputs) in enumerate(((height, out_h), (width, out_w)))
        )

    def for_input(self, height: int, width: int) -> PoolWindow:
        """The same pool with stride 1 along axes it visits once: the stride is moot there, and the
        U55 limits strides (a global 7x7 pool would otherwise be rejected for stride 7)."""
        out_h, out_w = self.output_size(height, width)
        stride = (1 if out_h == 1 else self.stride[0], 1 if out_w == 1 else self.stride[1])
        return dataclasses.replace(self, stride=stride)


def _pair(value: list[int] | int) -> tuple[int, int]:
    return (value, value) if isinstance(value, int) else (value[0], value[-1])


def beyond_u55_stride(window: PoolWindow) -> bool:
    """Whether a stride of ``window`` exceeds what the U55 pools with."""
    return max(window.stride) > _U55_MAX_STRIDE


def u55_reason(
    node: Node,
    spec: TosaSpecification,
    window: PoolWindow,
    *,
    padded_avg: bool,
    input_shape: tuple[int, ...] | None = None,
) -> str | None:
    """Why Vela cannot run this pool on the U55 (it keeps such pools on its CPU), or None.

    ``input_shape`` is the NCHW shape pooled (default: node.args[0]'s; max_pool1d passes [N, C, 1, L]).
    """
    if not spec.has("u55"):
        return None
    batch, _, height, width = input_shape or shape_of(node.args[0])
    window = window.for_input(height, width)
    kernel_h, kernel_w = window.kernel
    if batch != 1:
        return f"{describe(node)}: the U55 pools batch 1 only, got batch {batch}"
    if max(window.stride) > _U55_MAX_STRIDE:
        return f"{describe(node)}: the U55 pools with strides up to {_U55_MAX_STRIDE}, got {window.stride}"
    if kernel_w > _U55_MAX_KERNEL_WIDTH or kernel_h * kernel_w > _U55_MAX_KERNEL_AREA:
        return (
            f"{describe(node)}: kernel {window.kernel} exceeds the U55's width {_U55_MAX_KERNEL_WIDTH} "
            f"or area {_U55_MAX_KERNEL_AREA}"
        )
    if padded_avg and max(window.kernel) > _U55_MAX_PADDED_AVG_KERNEL:
        return (
            f"{describe(node)}: a padded average pool needs kernels up to {_U55_MAX_PADDED_AVG_KERNEL} "
            f"on the U55, got {window.kernel}"
        )
    return None


def add_avg_pool2d(
    graph: TosaGraph,
    value: TosaValue,
    output: TosaValue,
    window: tuple[tuple[int, int], tuple[int, int], tuple[int, int, int, int]],
    zero_point: int | float,
    accumulator: int,
) -> TosaValue:
    """AVG_POOL2D of the NHWC ``value`` into ``output``; ``window`` is (kernel, stride, pad), and the
    input and output share ``zero_point`` (every pool of the flow keeps its input's grid)."""
    kernel, stride, pad = window
    operands = [
        value,
        graph.add_scalar_const(f"{output.name}_input_zp", zero_point, value.dtype),
        graph.add_scalar_const(f"{output.name}_output_zp", zero_point, value.dtype),
    ]
    attribute = ts.TosaSerializerAttribute()
    attribute.AvgPool2dAttribute(list(kernel), list(stride), list(pad), accumulator)
    graph.add_op(ts.Op.AVG_POOL2D, operands, [output], attribute)
    return output


def lower_pool(
    ctx: LoweringContext,
    node: Node,
    op: ts.Op,
    window: PoolWindow,
    *,
    pad_inside: bool,
    name: str | None = None,
    nchw_input: TosaValue | None = None,
    onto_output_grid: bool = True,
) -> TosaValue:
    """AVG_POOL2D / MAX_POOL2D of node.args[0] (or of ``nchw_input``, an NCHW view of it) in NHWC, written
    onto the node's output grid (INT).

    Returns the NCHW result named ``name`` (default: the node's name), shaped [N, C, out_h, out_w].
    ``onto_output_grid=False`` keeps the pool on its input's grid (an intermediate such as the int16
    pool of avg_pool2d's exact form, whose caller does its own rounding).

    ``pad_inside`` lets the pool's own padding (which AVG_POOL2D leaves out of the count and
    MAX_POOL2D treats as -inf) do PyTorch's padding; otherwise an explicit PAD with real zeros
    comes first (avg_pool2d's count_include_pad), and only a ceil_mode overhang past PyTorch's padding
    stays the pool's own (PyTorch counts neither it nor anything beyond).
    """
    nchw_input = nchw_input or ctx.value(node.args[0])
    batch, channels, height, width = nchw_input.shape
    out_h, out_w = window.output_size(height, width)
    window = window.for_input(height, width)
    value = to_nhwc(ctx.graph, nchw_input)
    pad_h, pad_w = window.axis_padding(height, 0, out_h), window.axis_padding(width, 1, out_w)
    used_h, used_w = height - pad_h.dropped, width - pad_w.dropped
    if (used_h, used_w) != (height, width):
        value = slice_tensor(
            ctx.graph, value, (0, 0, 0, 0), (batch, used_h, used_w, channels), name=f"{node.name}_window"
        )
    pad = (pad_h.before, pad_h.after, pad_w.before, pad_w.after)
    if not pad_inside and any(pad):
        zero = value.qparams.zero_point if ctx.spec.is_int else 0.0
        (pad_y, pad_x) = window.padding
        explicit = (pad_h.before, min(pad_h.after, pad_y), pad_w.before, min(pad_w.after, pad_x))
        padding = ((0, 0), explicit[:2], explicit[2:], (0, 0))
        value = pad_tensor(ctx.graph, value, padding, value.dtype.type(zero), name=f"{node.name}_padded")
        pad = tuple(total - counted for total, counted in zip(pad, explicit))
    output = ctx.graph.add_tensor(f"{node.name}_nhwc", (batch, out_h, out_w, channels), value.dtype, value.qparams)
    if op == ts.Op.AVG_POOL2D:
        zero_point = value.qparams.zero_point if ctx.spec.is_int else 0
        accumulator = ts.DType.INT32 if ctx.spec.is_int else ts.DType.FP32
        add_avg_pool2d(ctx.graph, value, output, (window.kernel, window.stride, pad), zero_point, accumulator)
    else:
        attribute = ts.TosaSerializerAttribute()
        attribute.MaxPool2dAttribute(
            list(window.kernel), list(window.stride), list(pad), ts.NanPropagationMode.PROPAGATE
        )
        ctx.graph.add_op(op, [value], [output], attribute)
    if ctx.spec.is_int and onto_output_grid:
        # The quantizer shares the input's grid, so this rescale is only there for foreign annotations.
        output = requantize(ctx.graph, output, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    return to_nchw(ctx.graph, output, name=name or node.name)
