"""aten.flip -> one TOSA REVERSE per flipped dim; quantized, the output keeps the input's grid.

Vela 5.2.0 runs REVERSE on the Ethos-U85 only ("Non-passthrough operation (Reverse) could not run on
NPU" for the U55). There a flipped dim of up to 32 rows is its rows SLICEd one by one in reverse order
and CONCATenated, as a constant index is on Ethos-U (arm/ops/index.py); longer dims stay on the CPU.
"""

from __future__ import annotations

import math

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, concat, reshape, slice_tensor
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def _dims(node: Node) -> list[int]:
    """The flipped dims, normalized; a dim of size 1 needs no REVERSE."""
    shape = shape_of(node)
    return sorted({dim % len(shape) for dim in node.args[1] if shape[dim] > 1})


# As many single-row SLICEs as a constant index may take on Ethos-U (arm/ops/index.py MAX_SLICED_RUNS).
_MAX_SLICED_ROWS = 32


def support(node: Node, spec: TosaSpecification) -> str | None:
    return first_reason(
        _u55_reason(node) if spec.has("u55") else None,
        profile_reason(node, spec, [node.args[0]]),
        rank_reason(node, shape_of(node)),
    )


def _u55_reason(node: Node) -> str | None:
    shape = shape_of(node)
    long = [dim for dim in _dims(node) if shape[dim] > _MAX_SLICED_ROWS]
    if long:
        return (
            f"{describe(node)}: Vela runs no REVERSE on the Ethos-U55/U65, and dim {long[0]} has {shape[long[0]]} rows, "
            f"more than the {_MAX_SLICED_ROWS} single-row SLICEs that stand in for it; it runs on the CPU"
        )
    return None


def annotate_flip(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[0])
    if ctx.spec.is_int:
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    dims = _dims(node)
    reverse = _sliced_reverse if ctx.spec.has("u55") else _reverse
    for index, dim in enumerate(dims):
        name = node.name if index == len(dims) - 1 else f"{node.name}_reversed{dim}"
        value = reverse(ctx, value, dim, name=name)
    return value


def _reverse(ctx: LoweringContext, value: TosaValue, dim: int, *, name: str) -> TosaValue:
    output = ctx.graph.add_tensor(name, value.shape, value.dtype, value.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.ReverseAttribute(dim)
    ctx.graph.add_op(ts.Op.REVERSE, [value], [output], attribute)
    return output


def _sliced_reverse(ctx: LoweringContext, value: TosaValue, dim: int, *, name: str) -> TosaValue:
    """REVERSE along ``dim`` as single-row SLICEs, last row first, and one CONCAT (the U55's form)."""
    shape = value.shape
    before, rows, after = math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1 :])
    table = reshape(ctx.graph, value, (before, rows, after), name=f"{name}_rows")
    pieces = [
        slice_tensor(ctx.graph, table, (0, row, 0), (before, 1, after), name=f"{name}_row{row}")
        for row in reversed(range(rows))
    ]
    return reshape(ctx.graph, concat(ctx.graph, pieces, axis=1, name=f"{name}_reversed"), shape, name=name)


def flip_width(x: torch.Tensor) -> torch.Tensor:
    return x.flip(-1)


def flip_channels_and_height(x: torch.Tensor) -> torch.Tensor:
    return x.flip((1, 2))


TEST_CASES = {
    # On the U55 single-row SLICEs and a CONCAT per flipped dim (the peer's test_flip_u55_INT_* cases).
    "width": OpTestCase(FunctionModule(flip_width), random_inputs(0, (1, 4, 6, 10))),
    "channels_height": OpTestCase(FunctionModule(flip_channels_and_height), random_inputs(1, (1, 6, 5, 4))),
    "long_dim_u55_on_cpu": OpTestCase(
        FunctionModule(flip_width), random_inputs(2, (1, 40)), cpu_targets=("u55_INT",), targets=("u55_INT",)
    ),
}

OP = ArmOp(
    name="flip",
    edge_targets=(exir_ops.edge.aten.flip.default,),
    aten_targets=(torch.ops.aten.flip.default,),
    support=support,
    annotate=annotate_flip,
    lower=lower,
    test_cases=TEST_CASES,
)
