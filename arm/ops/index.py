"""aten.index.Tensor (``x[:, idx]``: one index tensor, every other dim whole) -> TOSA GATHER along that dim
(the tensor viewed as [before, dim, after]); quantized, the output keeps the input's grid.

Several index tensors (``x[i, j]``, pointwise advanced indexing) and bool masks (``x[x > 0]``, whose
result size depends on the data) have no GATHER form here and stay on the CPU.
"""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.gather import gather, index_value, indices_reason
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def indexed_dim(node: Node) -> tuple[int, Node] | None:
    """(dim, index tensor) when exactly one dim is indexed; None for several index tensors."""
    chosen = [(dim, index) for dim, index in enumerate(node.args[1]) if index is not None]
    return chosen[0] if len(chosen) == 1 else None


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    chosen = indexed_dim(node)
    if chosen is None:
        return (
            f"{describe(node)}: {sum(i is not None for i in node.args[1])} index tensors index several dims "
            "pointwise; only one indexed dim (x[:, idx]) is lowered, as a GATHER"
        )
    _, index = chosen
    if dtype_of(index) == torch.bool:
        return f"{describe(node)}: a bool mask index {index.name} gives a data-dependent shape; it runs on the CPU"
    return first_reason(
        indices_reason(node, index, spec),
        profile_reason(node, spec, [x]),
        rank_reason(node, shape_of(x)),
        rank_reason(node, shape_of(node)),
    )


def annotate_index(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x = node.args[0]
    dim, index = indexed_dim(node)
    shape = shape_of(x)
    before, after = math.prod(shape[:dim]), math.prod(shape[dim + 1 :])
    value = ctx.value(x)
    if ctx.spec.is_int:
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    table = reshape(ctx.graph, value, (before, shape[dim], after), name=f"{node.name}_table")
    chosen = index_value(ctx, index, before, name=f"{node.name}_indices")
    return reshape(ctx.graph, gather(ctx, table, chosen, name=f"{node.name}_rows"), shape_of(node), name=node.name)


class _IndexConstant(torch.nn.Module):
    """``x[:, idx]`` with a fixed int32 index tensor (of any shape: its shape replaces the indexed dim)."""

    def __init__(self, leading: int, indices: list) -> None:
        super().__init__()
        self.leading = leading
        self.register_buffer("indices", torch.tensor(indices, dtype=torch.int32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x[(slice(None),) * self.leading + (self.indices,)]


def rows_by_input(x: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
    return x[indices]


def pointwise_pairs(x: torch.Tensor) -> torch.Tensor:
    rows = torch.tensor([0, 2, 1], dtype=torch.int32)
    return x[rows, rows]


_ETHOS_U = ("u55_INT", "u85_INT")  # no GATHER on the NPU: see arm/ops/common/gather.py
_EVERY_TARGET = ("tosa_FP", "tosa_INT", "u55_INT", "u85_INT", "vgf_FP", "vgf_INT")

TEST_CASES = {
    "middle_dim_2d_indices": OpTestCase(
        _IndexConstant(1, [[3, 0], [4, 4]]), random_inputs(0, (2, 5, 6)), cpu_targets=_ETHOS_U
    ),
    "rows_by_input": OpTestCase(
        FunctionModule(rows_by_input),
        (*random_inputs(1, (6, 8)), torch.tensor([5, 0, 2], dtype=torch.int32)),
        cpu_targets=_ETHOS_U,
    ),
    # Two index tensors pair up pointwise (x[0, 0], x[2, 2], x[1, 1]): no single GATHER.
    "two_index_tensors": OpTestCase(FunctionModule(pointwise_pairs), random_inputs(2, (3, 3, 4)), cpu_targets=_EVERY_TARGET),
}

OP = ArmOp(
    name="index",
    edge_targets=(exir_ops.edge.aten.index.Tensor,),
    aten_targets=(torch.ops.aten.index.Tensor,),
    support=support,
    annotate=annotate_index,
    lower=lower,
    test_cases=TEST_CASES,
)
