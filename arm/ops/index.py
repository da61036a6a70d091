"""aten.index.Tensor (``x[:, idx]``: one index tensor, every other dim whole) -> TOSA GATHER along that dim
(the tensor viewed as [before, dim, after]); quantized, the output keeps the input's grid.

Several index tensors (``x[i, j]``, pointwise advanced indexing) and bool masks (``x[x > 0]``, whose
result size depends on the data) have no GATHER form here and stay on the CPU, except one pair: a row
pick ``x[arange(B), j]`` (CLIP text's pooled state at each row's position ``j``, [B]) is one row of
each batch, exactly GATHER's [N, K, C] by [N, W] with N = B and W = 1. The support rule sees a
placeholder [B] first index; the lowering checks it holds 0..B-1 and raises a LoweringError (CPU)
otherwise. On the U85 the pick is a one-hot MATMUL per batch (common/gather.py ``one_hot_lookup``,
int8 data), on the U55 it stays on the CPU.

Ethos-U has no GATHER (arm/ops/common/gather.py). There a constant index (reflection and circular
padding decompose into one, folded before partitioning) becomes one SLICE per run of consecutive
rows and a CONCAT, which the U55 runs too; an index computed at run time stays on the CPU. The
support rule sees only that the index is a placeholder; the lowering, which can tell a constant from
a model input, raises a LoweringError naming the node for the latter, and the flow keeps it on the CPU.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.gather import gather, index_value, indices_reason, one_hot_lookup, run_time_one_hot_reason
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.fallback import LoweringError
from arm.tosa.graph import TosaValue, concat, reshape, slice_tensor
from arm.tosa.quantization import is_dequantize
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def indexed_dim(node: Node) -> tuple[int, Node] | None:
    """(dim, index tensor) when exactly one dim is indexed; None for several index tensors."""
    chosen = [(dim, index) for dim, index in enumerate(node.args[1]) if index is not None]
    return chosen[0] if len(chosen) == 1 else None


def row_pick(node: Node) -> Node | None:
    """The [B] position index of ``x[arange(B), positions]`` (x of at least two dims, the first index a
    placeholder of B elements: the lowering checks its values), else None."""
    indices = list(node.args[1])
    if len(indices) != 2 or not all(isinstance(index, Node) for index in indices):
        return None
    rows, positions = indices
    batch = shape_of(node.args[0])[0]
    if rows.op != "placeholder" or shape_of(rows) != (batch,) or shape_of(positions) != (batch,):
        return None
    return positions


def _row_pick_support(node: Node, positions: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    shape = shape_of(x)
    one_hot = run_time_one_hot_reason(node, x, shape[1], math.prod(shape[2:]), shape[0]) if spec.has("u85") else None
    return first_reason(
        indices_reason(node, positions, spec, one_hot_on_u85=True),  # none on the U55; int32 positions
        one_hot,
        profile_reason(node, spec, [x]),
        rank_reason(node, shape),
    )


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    chosen = indexed_dim(node)
    if chosen is None and (positions := row_pick(node)) is not None:
        return _row_pick_support(node, positions, spec)
    if chosen is None:
        return (
            f"{describe(node)}: {sum(i is not None for i in node.args[1])} index tensors index several dims "
            "pointwise; only one indexed dim (x[:, idx]) is lowered, as a GATHER"
        )
    _, index = chosen
    if dtype_of(index) == torch.bool:
        return f"{describe(node)}: a bool mask index {index.name} gives a data-dependent shape; it runs on the CPU"
    return first_reason(
        _slices_reason(node, index) if _has_no_gather(spec) else indices_reason(node, index, spec),
        _chain_reason(node, spec) if _feeds_only_indexing(node) else profile_reason(node, spec, _checked_inputs(x)),
        rank_reason(node, shape_of(x)),
        rank_reason(node, shape_of(node)),
    )


def _feeds_only_indexing(node: Node) -> bool:
    """Reflection and circular padding of several dims decompose (after quantization) into one index per
    dim, chained: only the last is quantized, the others feed the next index on the input's own grid."""
    return bool(node.users) and all(user.target == node.target for user in node.users)


def _chain_reason(node: Node, spec: TosaSpecification) -> str | None:
    """An inner index of a chain: it moves values, so it keeps its input's grid (quantized or float)."""
    x = node.args[0]
    if spec.is_fp or is_dequantize(x) or _is_inner_link(x):
        return None
    return profile_reason(node, spec, [x])


def _is_inner_link(x: Node) -> bool:
    return x.op == "call_function" and x.target == exir_ops.edge.aten.index.Tensor and _feeds_only_indexing(x)


def _checked_inputs(x: Node) -> list[Node]:
    """The inputs profile_reason must see quantized: none after an inner index (it kept its input's grid)."""
    return [] if _is_inner_link(x) else [x]


# More runs of consecutive rows than this make a CONCAT of too many SLICEs; such lookups stay on the CPU.
MAX_SLICED_RUNS = 32


def _has_no_gather(spec: TosaSpecification) -> bool:
    return spec.has("u55") or spec.has("u85")


def _slices_reason(node: Node, index: Node) -> str | None:
    if index.op == "placeholder":
        return None  # a constant (checked by the lowering) becomes SLICEs and a CONCAT
    return (
        f"{describe(node)}: Ethos-U has no GATHER, and the index {index.name} is computed at run time (only a "
        "constant index becomes SLICEs); the lookup stays on the CPU"
    )


def consecutive_runs(rows: list[int]) -> list[tuple[int, int]]:
    """(first row, length) of each run of consecutive rows, in order: [2, 1, 0, 1, 2, 3] -> (2, 1), (1, 1), (0, 4)."""
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][0] + runs[-1][1] == row:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((row, 1))
    return runs


def _sliced_rows(ctx: LoweringContext, node: Node, table: TosaValue, index: Node) -> TosaValue:
    """The indexed rows of ``table`` ([before, n, after]) by SLICE and CONCAT, for a constant ``index``."""
    if not ctx.is_constant(index):
        raise LoweringError(
            (node.name,),
            f"{describe(node)}: Ethos-U has no GATHER, and the index {index.name} is a model input (only a "
            "constant index becomes SLICEs); the lookup stays on the CPU",
        )
    before, length, after = table.shape
    rows = [int(row) % length for row in ctx.constant(index).reshape(-1).tolist()]
    runs = consecutive_runs(rows)
    if len(runs) > MAX_SLICED_RUNS:
        raise LoweringError(
            (node.name,),
            f"{describe(node)}: the constant index {index.name} has {len(runs)} runs of consecutive rows, more than "
            f"{MAX_SLICED_RUNS} SLICEs; Ethos-U has no GATHER, so the lookup stays on the CPU",
        )
    pieces = [
        slice_tensor(ctx.graph, table, (0, first, 0), (before, count, after), name=f"{node.name}_run{number}")
        for number, (first, count) in enumerate(runs)
    ]
    return pieces[0] if len(pieces) == 1 else concat(ctx.graph, pieces, axis=1, name=f"{node.name}_rows")


def annotate_index(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def _lower_row_pick(node: Node, ctx: LoweringContext, positions: Node) -> TosaValue:
    """One row per batch: x [B, K, ...] viewed as a [B, K, C] table, picked at [B, 1] positions."""
    x, (rows, _) = node.args[0], node.args[1]
    shape = shape_of(x)
    if not (ctx.is_constant(rows) and np.array_equal(ctx.constant(rows).numpy().reshape(-1), np.arange(shape[0]))):
        raise LoweringError(
            (node.name,),
            f"{describe(node)}: its first index {rows.name} is not the constant 0..{shape[0] - 1} (only "
            "x[arange(B), positions], one row per batch, is lowered); it runs on the CPU",
        )
    value = ctx.value(x)
    if ctx.spec.is_int:
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    table = reshape(ctx.graph, value, (shape[0], shape[1], math.prod(shape[2:])), name=f"{node.name}_table")
    picks = reshape(ctx.graph, ctx.value(positions), (shape[0], 1), name=f"{node.name}_positions")
    if _has_no_gather(ctx.spec):
        picked = one_hot_lookup(ctx, table, picks, name=f"{node.name}_rows")
    else:
        picked = gather(ctx, table, picks, name=f"{node.name}_rows")
    return reshape(ctx.graph, picked, shape_of(node), name=node.name)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x = node.args[0]
    if indexed_dim(node) is None:
        return _lower_row_pick(node, ctx, row_pick(node))
    dim, index = indexed_dim(node)
    shape = shape_of(x)
    before, after = math.prod(shape[:dim]), math.prod(shape[dim + 1 :])
    value = ctx.value(x)
    if ctx.spec.is_int and not _feeds_only_indexing(node):
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    table = reshape(ctx.graph, value, (before, shape[dim], after), name=f"{node.name}_table")
    if _has_no_gather(ctx.spec):
        rows = _sliced_rows(ctx, node, table, index)
    else:
        rows = gather(ctx, table, index_value(ctx, index, before, name=f"{node.name}_indices"), name=f"{node.name}_rows")
    return reshape(ctx.graph, rows, shape_of(node), name=node.name)


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


def reflect_padded(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.pad(x, (2, 1, 1, 2), mode="reflect")


def pointwise_pairs(x: torch.Tensor) -> torch.Tensor:
    rows = torch.tensor([0, 2, 1], dtype=torch.int32)
    return x[rows, rows]


def row_per_batch(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    return x[torch.arange(x.shape[0]), positions]


def pooled_at_largest_id(hidden: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """CLIP text's pooled output: each row's state at the position of its largest id."""
    return hidden[torch.arange(hidden.shape[0]), ids.argmax(dim=-1)]


def _states_and_ids() -> tuple[torch.Tensor, torch.Tensor]:
    ids = torch.randint(0, 40, (2, 6), generator=torch.Generator().manual_seed(6), dtype=torch.int32)
    return (random_inputs(5, (2, 6, 8))[0], ids)


_GATHER_AND_ONE_HOT = ("tosa_INT", "u85_INT")
_ETHOS_U = ("u55_INT", "u85_INT")  # no GATHER on the NPU: see arm/ops/common/gather.py
_EVERY_TARGET = ("tosa_FP", "tosa_INT", "u55_INT", "u85_INT", "vgf_FP", "vgf_INT")

TEST_CASES = {
    # A constant index: GATHER, or on Ethos-U the runs [3], [0], [4], [4] as SLICEs and a CONCAT.
    "middle_dim_2d_indices": OpTestCase(_IndexConstant(1, [[3, 0], [4, 4]]), random_inputs(0, (2, 5, 6))),
    # Reflection padding decomposes into an index per padded dim, with folded constant indices; only the
    # last of the two is quantized.
    "reflect_pad": OpTestCase(FunctionModule(reflect_padded), random_inputs(3, (1, 2, 5, 6))),
    # Indices from a model input: no GATHER on Ethos-U, and no constant to slice by.
    "rows_by_input": OpTestCase(
        FunctionModule(rows_by_input),
        (*random_inputs(1, (6, 8)), torch.tensor([5, 0, 2], dtype=torch.int32)),
        cpu_targets=_ETHOS_U,
    ),
    # Two index tensors pair up pointwise (x[0, 0], x[2, 2], x[1, 1]): no single GATHER.
    # x[arange(B), positions]: one row per batch, one GATHER (a one-hot MATMUL on the U85).
    "row_per_batch": OpTestCase(
        FunctionModule(row_per_batch), (random_inputs(7, (3, 5, 4))[0], torch.tensor([4, 0, 2], dtype=torch.int32)),
        cpu_targets=("u55_INT",),
    ),
    # CLIP text's pooling: the positions are argmax of int32 ids, in the same partition (argmax's int32
    # path, INT profile only; on a float target the CPU's argmax would feed the delegate, which this
    # harness cannot run on its own). TOSA INT and the U85 only: VGF INT lowers tosa_INT's graph, and
    # the U55 keeps both ops on the CPU by rules the other cases check.
    "row_per_batch_at_argmax": OpTestCase(FunctionModule(pooled_at_largest_id), _states_and_ids(), targets=_GATHER_AND_ONE_HOT),
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
