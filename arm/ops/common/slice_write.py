"""What slice_scatter and select_scatter share: x with a contiguous block along one dim replaced by src.

TOSA has no strided or offset write, but a contiguous block replaced is the concatenation of what
comes before it, the block and what comes after: SLICE, SLICE and CONCAT, which every target runs
(the U55 included, unlike SCATTER). Quantized, x, src and the output share one grid, as for cat;
int8, int16 or int32 data (not quantized) moves as it is in the INT profile.
"""

from __future__ import annotations

from torch.fx import Node
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

from arm.ops.common.integer_arithmetic import integer_data_support, is_integer_arithmetic
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, concat, reshape, slice_tensor
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def block_write_support(node: Node, spec: TosaSpecification) -> str | None:
    x, src = node.args[:2]
    if not isinstance(src, Node):
        return f"{describe(node)}: the written block must be a tensor"
    if is_integer_arithmetic(node):
        return integer_data_support(node, spec)
    return first_reason(profile_reason(node, spec, [x, src]), rank_reason(node, shape_of(x)))


def annotate_block_write(node: Node, config: QuantizationConfig) -> None:
    """One grid for x, the block and the result: the lowering copies int8 codes from both."""
    x, src = node.args[:2]
    shared = SharedQuantizationSpec((x, node))
    inputs = {x: config.activation}
    if src is not x:
        inputs[src] = shared
    annotate(node, inputs, shared)


def write_block(ctx: LoweringContext, node: Node, dim: int, start: int, end: int) -> TosaValue:
    """x with [start, end) along ``dim`` replaced by src (reshaped to that block's shape)."""
    x, src = node.args[:2]
    shape = shape_of(x)
    base, block = ctx.value(x), ctx.value(src)
    if ctx.spec.is_int and not is_integer_arithmetic(node):
        output = ctx.output_qparams(node)
        base = requantize(ctx.graph, base, name=f"{node.name}_base_rescaled", output=output)
        block = requantize(ctx.graph, block, name=f"{node.name}_block_rescaled", output=output)
    block_shape = tuple(end - start if axis == dim else size for axis, size in enumerate(shape))
    if block.shape != block_shape:
        block = reshape(ctx.graph, block, block_shape, name=f"{node.name}_block")
    pieces = []
    if start > 0:
        size = tuple(start if axis == dim else extent for axis, extent in enumerate(shape))
        pieces.append(slice_tensor(ctx.graph, base, [0] * len(shape), size, name=f"{node.name}_before"))
    pieces.append(block)
    if end < shape[dim]:
        begin = [end if axis == dim else 0 for axis in range(len(shape))]
        size = tuple(shape[dim] - end if axis == dim else extent for axis, extent in enumerate(shape))
        pieces.append(slice_tensor(ctx.graph, base, begin, size, name=f"{node.name}_after"))
    if len(pieces) == 1:
        return reshape(ctx.graph, block, shape, name=node.name)
    return concat(ctx.graph, pieces, axis=dim, name=node.name)
