"""split / split_with_sizes / chunk / split_copy -> one TOSA SLICE per used piece.

The edge dialect has ``split_with_sizes_copy(x, sizes, dim)`` with explicit sizes (and, where a model
calls it, ``split_copy(x, size, dim)`` with one size for every piece but the last), read through
``getitem(split, i)``. The split itself emits nothing; each getitem slices its piece out of the input
(see ``lower_piece``), so pieces nobody reads cost nothing. Quantized, every piece keeps the input's
grid: the quantizer annotates the getitems, which carry the pieces' values, with the input's spec.
"""

from __future__ import annotations

import operator

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import annotate, input_spec
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, slice_tensor
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification

EDGE_TARGETS = (exir_ops.edge.aten.split_with_sizes_copy.default, exir_ops.edge.aten.split_copy.Tensor)


def _dim(split: Node) -> int:
    dim = split.args[2] if len(split.args) > 2 else split.kwargs.get("dim", 0)
    return dim % len(shape_of(split.args[0]))


def _sizes(split: Node) -> list[int]:
    """The pieces' sizes along the split dim; split_copy's single size repeats, the last piece takes the rest."""
    sizes = split.args[1]
    if not isinstance(sizes, int):
        return list(sizes)
    length = shape_of(split.args[0])[_dim(split)]
    return [min(sizes, length - start) for start in range(0, length, sizes)]


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    pieces = list(node.users)
    if not all(piece.op == "call_function" and piece.target is operator.getitem for piece in pieces):
        return f"{describe(node)}: its result list is used whole, not piece by piece"
    # Each piece is a tensor of its own, quantized (INT) by its own quantize.
    return first_reason(*(profile_reason(piece, spec, [x]) for piece in pieces), rank_reason(node, shape_of(x)))


def annotate_split(node: Node, config: QuantizationConfig) -> None:
    """The input gets the activation grid; each piece (a getitem's output) shares it."""
    x = node.args[0]
    annotate(node, {x: input_spec(x, config.activation)}, None)
    for piece in node.users:
        if piece.op == "call_function" and piece.target is operator.getitem:
            annotate(piece, {}, SharedQuantizationSpec((x, node)))


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    """The split stands for its input; the pieces are cut by ``lower_piece``."""
    return ctx.value(node.args[0])


def lower_piece(piece: Node, ctx: LoweringContext) -> TosaValue:
    """``getitem(split, index)`` -> SLICE of the split's input along the split dimension."""
    split, index = piece.args
    dim = _dim(split)
    sizes = _sizes(split)
    value = ctx.value(split.args[0])
    if ctx.spec.is_int:
        value = requantize(ctx.graph, value, name=f"{piece.name}_rescaled", output=ctx.output_qparams(piece))
    begin = [sum(sizes[:index]) if axis == dim else 0 for axis in range(value.rank)]
    return slice_tensor(ctx.graph, value, begin, shape_of(piece), name=piece.name)


def chunk_channels(x: torch.Tensor) -> torch.Tensor:
    a, b, c = torch.chunk(x, 3, dim=1)
    return a * b + c


def split_sizes_width(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    left, right = torch.split(x, [3, 5], dim=-1)
    return left, right


def split_copy_channels(x: torch.Tensor) -> torch.Tensor:
    first, second, rest = torch.ops.aten.split_copy.Tensor(x, 3, 1)
    return torch.cat([first * second, rest], 1)


def split_even_rows(x: torch.Tensor) -> torch.Tensor:
    top, _, bottom = x.split(4, dim=0)
    return top - bottom


TEST_CASES = {
    "chunk_channels": OpTestCase(FunctionModule(chunk_channels), random_inputs(0, (1, 6, 8, 8))),
    "sizes_last_dim": OpTestCase(FunctionModule(split_sizes_width), random_inputs(1, (2, 4, 8))),
    # 8 channels in pieces of 3: 3, 3 and the last 2.
    "split_copy": OpTestCase(FunctionModule(split_copy_channels), random_inputs(3, (1, 8, 4, 4))),
    # Two row slices of one tensor feeding one SUB: Vela 5.2.0's U55 stream reads both from x = 0
    # unless the windows are copied out first (arm/tosa/widened_window_copies.py); this case
    # fails on the U55 without that copy.
    "unused_piece": OpTestCase(FunctionModule(split_even_rows), random_inputs(2, (12, 16))),
}

OP = ArmOp(
    name="split",
    edge_targets=EDGE_TARGETS,
    aten_targets=(
        torch.ops.aten.split.Tensor,
        torch.ops.aten.split_with_sizes.default,
        torch.ops.aten.chunk.default,
        torch.ops.aten.split_copy.Tensor,
    ),
    support=support,
    annotate=annotate_split,
    lower=lower,
    test_cases=TEST_CASES,
)
