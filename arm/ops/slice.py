"""aten.slice_copy (x[a:b:step] along one dim) -> TOSA SLICE; quantized, the output keeps the input's grid.

A step above 1 takes the first row of each group of ``step`` (RESHAPE, SLICE, CONCAT:
arm/ops/common/strided.py), which every target runs.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import BOOL_MOVEMENT_TARGETS, FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.integer_arithmetic import integer_data_support, is_integer_arithmetic
from arm.ops.common.strided import StridedRows, as_rows, read_strided
from arm.ops.common.support import describe, first_reason, movement_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape, slice_tensor
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification

_DEFAULTS = (0, None, None, 1)  # dim, start, end, step


def _arguments(node: Node) -> tuple[int, int, int]:
    """(dim, start, step) with dim and start normalized as Python slicing does."""
    dim, start, _, step = (*node.args[1:], *_DEFAULTS[len(node.args) - 1 :])
    shape = shape_of(node.args[0])
    dim %= len(shape)
    start = 0 if start is None else start
    start = min(max(start + shape[dim] if start < 0 else start, 0), shape[dim])
    return dim, start, step


def support(node: Node, spec: TosaSpecification) -> str | None:
    dim, _, _ = _arguments(node)
    x = node.args[0]
    return first_reason(
        None if shape_of(node)[dim] else f"{describe(node)}: an empty slice has nothing to compute",
        integer_data_support(node, spec) if is_integer_arithmetic(node) else movement_reason(node, spec, [x]),
        rank_reason(node, shape_of(node)),
    )


def annotate_slice(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    dim, start, step = _arguments(node)
    value = ctx.value(node.args[0])
    if ctx.spec.is_int and not is_integer_arithmetic(node):  # integer data moves as it is
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    if step != 1:
        where = StridedRows(start, step, shape_of(node)[dim], value.shape[dim])
        rows = read_strided(ctx, as_rows(ctx, value, dim, name=f"{node.name}_rows"), where, name=f"{node.name}_strided")
        return reshape(ctx.graph, rows, shape_of(node), name=node.name)
    begin = [start if axis == dim else 0 for axis in range(value.rank)]
    # The size comes from the node's meta, which already clamps the end as Python slicing does.
    return slice_tensor(ctx.graph, value, begin, shape_of(node), name=node.name)


def channels_1_to_3(x: torch.Tensor) -> torch.Tensor:
    return x[:, 1:3]


def tail_negative(x: torch.Tensor) -> torch.Tensor:
    return x[..., -4:]


def rows_clamped_end(x: torch.Tensor) -> torch.Tensor:
    return x[2:100]


def two_dims(x: torch.Tensor) -> torch.Tensor:
    return x[:, :, 1:5, 2:]


def every_third_width(x: torch.Tensor) -> torch.Tensor:
    return x[..., 1::3]


def every_fourth_column(x: torch.Tensor) -> torch.Tensor:
    return x[..., ::4]


TEST_CASES = {
    "channels": OpTestCase(FunctionModule(channels_1_to_3), random_inputs(0, (1, 6, 8, 8))),
    "negative_start": OpTestCase(FunctionModule(tail_negative), random_inputs(1, (2, 3, 10))),
    "end_past_size": OpTestCase(FunctionModule(rows_clamped_end), random_inputs(2, (7, 12))),
    "two_dims": OpTestCase(FunctionModule(two_dims), random_inputs(3, (1, 4, 8, 9))),
    # Columns 1, 4, 7, 10 of 11: three whole groups of 3 and a last column of its own.
    "step_3_last_dim": OpTestCase(FunctionModule(every_third_width), random_inputs(4, (1, 2, 3, 11))),
    # int8 data, not quantized: moved as it is (no integer data in the FP profile).
    "int8_data_step_4": OpTestCase(
        FunctionModule(every_fourth_column),
        (torch.randint(-128, 128, (1, 2, 3, 10), generator=torch.Generator().manual_seed(6), dtype=torch.int8),),
        cpu_targets=("tosa_FP", "vgf_FP"),
    ),
    # A bool mask, strided: moved as it is on the float targets (TOSA moves bool in every profile).
    "bool_step_4": OpTestCase(
        FunctionModule(every_fourth_column),
        (torch.rand((2, 3, 10), generator=torch.Generator().manual_seed(7)) > 0.5,),
        targets=BOOL_MOVEMENT_TARGETS,
    ),
}

OP = ArmOp(
    name="slice",
    edge_targets=(exir_ops.edge.aten.slice_copy.Tensor,),
    aten_targets=(torch.ops.aten.slice.Tensor, torch.ops.aten.slice_copy.Tensor),
    support=support,
    annotate=annotate_slice,
    lower=lower,
    test_cases=TEST_CASES,
)
