"""aten.index_select -> TOSA GATHER along one dim (the tensor viewed as [before, dim, after]);
quantized, the output keeps the input's grid; int8, int16 or int32 data (not quantized) moves as it is.

On the U85, where Vela 5.2.0 runs no GATHER, the rows are a one-hot MATMUL of run-time int8 tensors
(common/gather.py ``one_hot_lookup``): exact, for int8 data and tables of up to 64 KiB."""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.gather import (
    gather,
    index_value,
    indices_reason,
    looked_up_data_reason,
    one_hot_lookup,
    run_time_one_hot_reason,
)
from arm.ops.common.integer_arithmetic import is_integer_arithmetic
from arm.ops.common.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import first_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, _, indices = node.args
    return first_reason(
        indices_reason(node, indices, spec, one_hot_on_u85=True),
        looked_up_data_reason(node, spec),
        rank_reason(node, shape_of(x)),
        _one_hot_reason(node) if spec.is_int and spec.has("u85") else None,
    )


def _table_view(node: Node) -> tuple[int, int, int]:
    """x viewed as [before, K, after] around the indexed dim."""
    x, dim, _ = node.args
    shape = shape_of(x)
    dim %= len(shape)
    return math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1 :])


def _one_hot_reason(node: Node) -> str | None:
    before, rows, after = _table_view(node)
    count = math.prod(shape_of(node.args[2]))
    return run_time_one_hot_reason(node, node.args[0], rows, before * after, before * count)


def annotate_index_select(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, _, indices = node.args
    before, rows, after = _table_view(node)
    value = ctx.value(x)
    if ctx.spec.is_int and not is_integer_arithmetic(node):
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    table = reshape(ctx.graph, value, (before, rows, after), name=f"{node.name}_table")
    if ctx.spec.is_int and ctx.spec.has("u85"):
        chosen = index_value(ctx, indices, 1, name=f"{node.name}_indices")
        picked = one_hot_lookup(ctx, table, chosen, name=f"{node.name}_rows")
    else:
        picked = gather(ctx, table, index_value(ctx, indices, before, name=f"{node.name}_indices"), name=f"{node.name}_rows")
    return reshape(ctx.graph, picked, shape_of(node), name=node.name)


class _SelectRows(torch.nn.Module):
    """Indices as an int32 buffer, the form a model's fixed index list takes."""

    def __init__(self, dim: int, indices: list[int]) -> None:
        super().__init__()
        self.dim = dim
        self.register_buffer("indices", torch.tensor(indices, dtype=torch.int32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.index_select(x, self.dim, self.indices)


class _SelectByInput(torch.nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, x: torch.Tensor, indices: torch.Tensor) -> torch.Tensor:
        return torch.index_select(x, self.dim, indices)


class _RelativePositionBias(torch.nn.Module):
    """Swin's attention bias: a learned table looked up by a constant index buffer, added to the scores.

    The lookup reads only constants, so arm/passes/fold_constants.py folds it (and the view, permute and
    quantization after it) into one int8 constant the add reads: the case is delegated whole on the
    Ethos-U targets, which run no GATHER.
    """

    def __init__(self, window: int = 2, heads: int = 2) -> None:
        super().__init__()
        self.area = window * window
        self.table = torch.nn.Parameter(torch.randn((2 * window - 1) ** 2, heads))
        rows, columns = torch.meshgrid(torch.arange(window), torch.arange(window), indexing="ij")
        coordinates = torch.stack([rows.flatten(), columns.flatten()])
        relative = coordinates[:, :, None] - coordinates[:, None, :] + window - 1
        self.register_buffer("index", relative[0] * (2 * window - 1) + relative[1], persistent=False)

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        bias = self.table[self.index.view(-1)].view(self.area, self.area, -1).permute(2, 0, 1).contiguous()
        return scores + bias.unsqueeze(0)


# No GATHER on the U55: see arm/ops/common/gather.py (the U85 runs the one-hot MATMUL).
_U55 = ("u55_INT",)

TEST_CASES = {
    "rows_constant": OpTestCase(_SelectRows(0, [3, 0, 0, 5]), random_inputs(0, (6, 16)), cpu_targets=_U55),
    "channels_constant": OpTestCase(_SelectRows(1, [2, 1]), random_inputs(1, (2, 4, 3, 3)), cpu_targets=_U55),
    "relative_position_bias": OpTestCase(seeded(3, _RelativePositionBias), random_inputs(3, (1, 2, 4, 4))),
    "runtime_indices_tiled": OpTestCase(
        _SelectByInput(2),
        (*random_inputs(2, (3, 4, 8)), torch.tensor([7, 1, 1], dtype=torch.int32)),
        cpu_targets=_U55,
    ),
    # int8 data, not quantized (the peer's int8 cases): moved as it is; the FP profile moves no integers.
    "int8_data": OpTestCase(
        _SelectByInput(0),
        (
            torch.randint(-128, 128, (6, 2), generator=torch.Generator().manual_seed(4), dtype=torch.int8),
            torch.tensor([5, 0, 5], dtype=torch.int32),
        ),
        targets=("tosa_INT", "u85_INT"),  # the FP profile moves no integers; the U55 has no GATHER
    ),
    # a16w8: the U85's one-hot MATMUL multiplies int8 only, so the lookup stays on the CPU there.
    "a16w8_u85_on_cpu": OpTestCase(
        _SelectByInput(1),
        (*random_inputs(5, (2, 5)), torch.tensor([4, 1], dtype=torch.int32)),
        quantization=get_symmetric_a16w8_quantization_config,
        cpu_targets=("u85_INT",),
        targets=("u85_INT",),
    ),
}

OP = ArmOp(
    name="index_select",
    edge_targets=(exir_ops.edge.aten.index_select.default,),
    aten_targets=(torch.ops.aten.index_select.default,),
    support=support,
    annotate=annotate_index_select,
    lower=lower,
    test_cases=TEST_CASES,
)
