"""aten.unfold_copy(x, dim, size, step) (``x.unfold(dim, size, step)``, sliding windows) -> SLICE per window,
CONCAT, RESHAPE and TRANSPOSE: data movement only, so every target runs it (the U55 included).

With x viewed as [before, n, after], window k is x[:, k*step : k*step + size, :]. The windows
concatenated along dim give [before, count*size, after] = [before, count, size, after], and PyTorch puts
the window's elements last: a TRANSPOSE to [before, count, after, size]. Non-overlapping windows
(step == size) need no slices: the covered rows reshape directly. Quantized, the output keeps the
input's grid; integer data (not quantized, INT profile) and bool data (every profile) move as they are.
"""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.integer_arithmetic import moved_data_support, moves_data
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, concat, reshape, slice_tensor
from arm.tosa.layout import transpose
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    return first_reason(
        moved_data_support(node, spec) if moves_data(node) else profile_reason(node, spec, [x]),
        rank_reason(node, shape_of(node)),
        # The [before, count, size, after] view adds a dim to x's.
        rank_reason(node, (*shape_of(x), 1)),
    )


def annotate_unfold(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, dim, size, step = node.args[:4]
    shape = shape_of(x)
    dim %= len(shape)
    before, length, after = math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1 :])
    count = (length - size) // step + 1
    value = ctx.value(x)
    if ctx.spec.is_int and not moves_data(node):
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    rows = reshape(ctx.graph, value, (before, length, after), name=f"{node.name}_rows")
    if step == size:
        windows = slice_tensor(ctx.graph, rows, (0, 0, 0), (before, count * size, after), name=f"{node.name}_covered")
    else:
        pieces = [
            slice_tensor(ctx.graph, rows, (0, k * step, 0), (before, size, after), name=f"{node.name}_window{k}")
            for k in range(count)
        ]
        windows = pieces[0] if count == 1 else concat(ctx.graph, pieces, axis=1, name=f"{node.name}_windows")
    windows = reshape(ctx.graph, windows, (before, count, size, after), name=f"{node.name}_split")
    if after > 1:
        windows = transpose(ctx.graph, windows, (0, 1, 3, 2), name=f"{node.name}_elements_last")
    return reshape(ctx.graph, windows, shape_of(node), name=node.name)


def overlapping_last(x: torch.Tensor) -> torch.Tensor:
    return x.unfold(-1, 4, 2)


def patches_of_rows(x: torch.Tensor) -> torch.Tensor:
    return x.unfold(2, 2, 2)


TEST_CASES = {
    # Windows of 4 every 2 along the last dim; the trailing element no window reaches is dropped.
    "overlapping_last": OpTestCase(FunctionModule(overlapping_last), random_inputs(0, (2, 3, 11))),
    # Non-overlapping windows along H of an NCHW tensor: elements move behind W.
    "patches_along_height": OpTestCase(FunctionModule(patches_of_rows), random_inputs(1, (1, 3, 6, 5))),
    # int8 data, not quantized: the windows move as they are (no integer data in the FP profile).
    "int8_data": OpTestCase(
        FunctionModule(overlapping_last),
        (torch.randint(-128, 128, (2, 9), generator=torch.Generator().manual_seed(2), dtype=torch.int8),),
        cpu_targets=("tosa_FP", "vgf_FP"),
    ),
    # The peer's test_bool_2d_dim0: bool windows move as they are, in every profile (the U55 takes no
    # bool across a partition's boundary).
    "bool_data": OpTestCase(
        FunctionModule(patches_of_rows),
        (torch.rand((1, 2, 4, 3), generator=torch.Generator().manual_seed(3)) > 0.5,),
        cpu_targets=("u55_INT",),
    ),
}

OP = ArmOp(
    name="unfold_copy",
    edge_targets=(exir_ops.edge.aten.unfold_copy.default,),
    aten_targets=(torch.ops.aten.unfold.default, torch.ops.aten.unfold_copy.default),
    support=support,
    annotate=annotate_unfold,
    lower=lower,
    test_cases=TEST_CASES,
)
