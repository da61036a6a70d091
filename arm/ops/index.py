"""aten.index.Tensor (``x[:, idx]``, ``x[i, j]``, ``x[i, :, j]``) -> TOSA GATHER of the rows the index
tensors pick, x viewed as [before, indexed, after]; quantized, the output keeps the input's grid.

One index tensor picks rows of its dim; several (pointwise advanced indexing: they broadcast against
each other) pick one row each of their dims viewed as one, at a flat position common/flat_index.py
computes (shared with index_put: folded for constant indices, int32 MUL and ADD for run-time ones;
dims that are not adjacent move to the front by a TRANSPOSE, where PyTorch puts the indices' shape
in the result too). Bool masks (``x[x > 0]``, whose result size depends on the data) stay on the CPU.
A row pick ``x[arange(B), j]`` (CLIP text's pooled state at each row's position ``j``, [B]) is one
row of each batch, exactly GATHER's [N, K, C] by [N, W] with N = B and W = 1. The support rule sees a
placeholder [B] first index; the lowering checks it holds 0..B-1 and raises a LoweringError (CPU)
otherwise. On the U85 the pick is a one-hot MATMUL per batch (common/gather.py ``one_hot_lookup``,
int8 data), on the U55 it stays on the CPU.

Ethos-U has no GATHER (arm/ops/common/gather.py). There a constant index (reflection and circular
padding decompose into one, folded before partitioning) becomes one SLICE per run of consecutive
rows and a CONCAT, which the U55 runs too. An index computed at run time is, on the U85, the run-time
one-hot MATMUL index_select uses (int8 data within its size bounds), and stays on the CPU on the U55.
The support rule sees only that an index is a placeholder; the lowering, which can tell a constant
from a model input, raises a LoweringError naming the node where it has no form for the latter, and
the flow keeps it on the CPU.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.flat_index import flat_positions, index_tensors, indexed_shape, indexed_view, rows_shape
from arm.ops.common.gather import (
    gather,
    indices_reason,
    looked_up_data_reason,
    one_hot_lookup,
    positions_per_row,
    run_time_one_hot_reason,
)
from arm.ops.common.integer_arithmetic import is_integer_arithmetic
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.fallback import LoweringError
from arm.tosa.graph import TosaValue, concat, reshape, slice_tensor
from arm.tosa.layout import transpose
from arm.tosa.quantization import is_dequantize
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


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


def _is_row_pick(node: Node, spec: TosaSpecification) -> bool:
    """A row pick the target runs as one (a GATHER, or the U85's per-batch one-hot); any other is the
    general lookup below (the U55 slices a constant one)."""
    positions = row_pick(node)
    return positions is not None and _row_pick_support(node, positions, spec) is None


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    if _is_row_pick(node, spec):
        return None
    indices = [index for _, index in index_tensors(node)]
    masks = [index.name for index in indices if dtype_of(index) == torch.bool]
    if masks:
        return f"{describe(node)}: a bool mask index {', '.join(masks)} gives a data-dependent shape; it runs on the CPU"
    if _has_no_gather(spec):
        lookup = _ethos_u_reason(node, spec)
    else:
        lookup = first_reason(*(indices_reason(node, index, spec) for index in indices))
    return first_reason(
        lookup,
        _chain_reason(node, spec) if _feeds_only_indexing(node) else _data_reason(node, spec),
        rank_reason(node, shape_of(x)),
        rank_reason(node, shape_of(node)),
    )


def _data_reason(node: Node, spec: TosaSpecification) -> str | None:
    """The looked-up data: after an inner index it kept that index's grid; else index_select's rule
    (quantized rows, or integer data moved as it is in the INT profile)."""
    if _is_inner_link(node.args[0]):
        return profile_reason(node, spec, [])
    return looked_up_data_reason(node, spec)


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


# More runs of consecutive rows than this make a CONCAT of too many SLICEs; such lookups stay on the CPU.
MAX_SLICED_RUNS = 32


def _has_no_gather(spec: TosaSpecification) -> bool:
    return spec.has("u55") or spec.has("u85")


def _ethos_u_reason(node: Node, spec: TosaSpecification) -> str | None:
    """Placeholder indices (constants, or model inputs: the lowering tells them apart) are the lowering's
    to decide; an index computed in the model runs on the U85's run-time one-hot MATMUL or the CPU."""
    computed = [index for _, index in index_tensors(node) if index.op != "placeholder"]
    if not computed:
        return None
    if not spec.has("u85"):
        return (
            f"{describe(node)}: Ethos-U has no GATHER, and the index {computed[0].name} is computed at run time "
            "(only a constant index becomes SLICEs); the lookup stays on the CPU"
        )
    return first_reason(
        *(indices_reason(node, index, spec, one_hot_on_u85=True) for _, index in index_tensors(node)),
        _one_hot_reason(node),
    )


def _one_hot_reason(node: Node) -> str | None:
    """common/gather.py's bounds for the run-time one-hot MATMUL over the [before, indexed, after] view."""
    before, size, picked, after = rows_shape(node)
    return run_time_one_hot_reason(node, node.args[0], size, before * after, before * picked)


def consecutive_runs(rows: list[int]) -> list[tuple[int, int]]:
    """(first row, length) of each run of consecutive rows, in order: [2, 1, 0, 1, 2, 3] -> (2, 1), (1, 1), (0, 4)."""
    runs: list[tuple[int, int]] = []
    for row in rows:
        if runs and runs[-1][0] + runs[-1][1] == row:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((row, 1))
    return runs


def _ethos_u_rows(ctx: LoweringContext, node: Node, table: TosaValue, positions: np.ndarray | TosaValue) -> TosaValue:
    """The picked rows of ``table`` ([before, n, after]) without GATHER: SLICEs and a CONCAT for constant
    positions, the U85's run-time one-hot MATMUL for positions from a model input."""
    if isinstance(positions, np.ndarray):
        runs = consecutive_runs([int(row) for row in positions.tolist()])
        if len(runs) <= MAX_SLICED_RUNS:
            pieces = [
                slice_tensor(ctx.graph, table, (0, first, 0), (table.shape[0], count, table.shape[2]), name=f"{node.name}_run{number}")
                for number, (first, count) in enumerate(runs)
            ]
            return pieces[0] if len(pieces) == 1 else concat(ctx.graph, pieces, axis=1, name=f"{node.name}_rows")
        if not (ctx.spec.has("u85") and _one_hot_reason(node) is None):
            raise LoweringError(
                (node.name,),
                f"{describe(node)}: the constant index has {len(runs)} runs of consecutive rows, more than "
                f"{MAX_SLICED_RUNS} SLICEs; Ethos-U has no GATHER, so the lookup stays on the CPU",
            )
        positions = ctx.graph.add_const(f"{node.name}_positions", positions.astype(np.int32).reshape(1, -1))
    elif not ctx.spec.has("u85"):
        raise LoweringError(
            (node.name,),
            f"{describe(node)}: the U55 has no GATHER, and the index is a model input (only a constant index "
            "becomes SLICEs); the lookup stays on the CPU",
        )
    elif (reason := first_reason(_ethos_u_input_reason(node, ctx.spec), _one_hot_reason(node))) is not None:
        raise LoweringError((node.name,), reason)
    return one_hot_lookup(ctx, table, positions, name=f"{node.name}_rows")


def _ethos_u_input_reason(node: Node, spec: TosaSpecification) -> str | None:
    return first_reason(*(indices_reason(node, index, spec, one_hot_on_u85=True) for _, index in index_tensors(node)))


def annotate_index(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def _picks_each_batch(node: Node, ctx: LoweringContext) -> bool:
    """The first index of a row pick is the constant 0..B-1 (else it is the general two-index lookup)."""
    rows = node.args[1][0]
    expected = np.arange(shape_of(node.args[0])[0])
    return ctx.is_constant(rows) and np.array_equal(ctx.constant(rows).numpy().reshape(-1), expected)


def _lower_row_pick(node: Node, ctx: LoweringContext, positions: Node) -> TosaValue:
    """One row per batch: x [B, K, ...] viewed as a [B, K, C] table, picked at [B, 1] positions."""
    x = node.args[0]
    shape = shape_of(x)
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
    if _is_row_pick(node, ctx.spec) and _picks_each_batch(node, ctx):
        return _lower_row_pick(node, ctx, row_pick(node))
    value = ctx.value(node.args[0])
    if ctx.spec.is_int and not _feeds_only_indexing(node) and not is_integer_arithmetic(node):
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    permutation, _, _ = indexed_view(node)
    if permutation is not None:
        value = transpose(ctx.graph, value, permutation, name=f"{node.name}_indexed_first")
    before, size, _, after = rows_shape(node)
    table = reshape(ctx.graph, value, (before, size, after), name=f"{node.name}_table")
    positions = flat_positions(node, ctx)
    if _has_no_gather(ctx.spec):
        rows = _ethos_u_rows(ctx, node, table, positions)
    else:
        indices = positions_per_row(ctx.graph, positions, before, name=f"{node.name}_indices")
        rows = gather(ctx, table, indices, name=f"{node.name}_rows")
    return reshape(ctx.graph, rows, indexed_shape(node), name=node.name)


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


def pairs_by_input(x: torch.Tensor, rows: torch.Tensor, columns: torch.Tensor) -> torch.Tensor:
    """``x[rows, columns]`` with run-time indices that broadcast ([5, 3] and [1, 3]: the peer's
    2d_2_2d_idx_broadcastable form)."""
    return x[rows, columns]


def apart_by_input(x: torch.Tensor, rows: torch.Tensor, depths: torch.Tensor) -> torch.Tensor:
    """``x[rows, :, depths]``: indexed dims 0 and 2 are not adjacent, so the indices' shape leads the result."""
    return torch.ops.aten.index.Tensor(x, [rows, None, depths])


def row_per_batch(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    return x[torch.arange(x.shape[0]), positions]


def pooled_at_largest_id(hidden: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """CLIP text's pooled output: each row's state at the position of its largest id."""
    return hidden[torch.arange(hidden.shape[0]), ids.argmax(dim=-1)]


def _states_and_ids() -> tuple[torch.Tensor, torch.Tensor]:
    ids = torch.randint(0, 40, (2, 6), generator=torch.Generator().manual_seed(6), dtype=torch.int32)
    return (random_inputs(5, (2, 6, 8))[0], ids)


_GATHER_AND_ONE_HOT = ("tosa_INT", "u85_INT")
_NO_INT32_LOOKUP = ("tosa_FP", "vgf_FP", "u55_INT", "u85_INT")  # integer data: INT profile; U85's one-hot: int8

TEST_CASES = {
    # A constant index: GATHER, or on Ethos-U the runs [3], [0], [4], [4] as SLICEs and a CONCAT.
    "middle_dim_2d_indices": OpTestCase(_IndexConstant(1, [[3, 0], [4, 4]]), random_inputs(0, (2, 5, 6))),
    # Reflection padding decomposes into an index per padded dim, with folded constant indices; only the
    # last of the two is quantized.
    "reflect_pad": OpTestCase(FunctionModule(reflect_padded), random_inputs(3, (1, 2, 5, 6))),
    # Indices from a model input: no GATHER on Ethos-U, and no constant to slice by; the U85 picks the rows
    # by a run-time one-hot MATMUL.
    "rows_by_input": OpTestCase(
        FunctionModule(rows_by_input),
        (*random_inputs(1, (6, 8)), torch.tensor([5, 0, 2], dtype=torch.int32)),
        cpu_targets=("u55_INT",),
    ),
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
    # Two constant index tensors pair up pointwise (x[0, 0], x[2, 2], x[1, 1]): flat rows 0, 8, 4 of the
    # [9, 4] view, one GATHER, or on Ethos-U three SLICEs and a CONCAT.
    "two_index_tensors": OpTestCase(FunctionModule(pointwise_pairs), random_inputs(2, (3, 3, 4))),
    # Run-time index tensors on adjacent dims: the flat position is int32 MUL and ADD, then one GATHER (a
    # one-hot MATMUL on the U85); the U55 has neither.
    "two_inputs_broadcast": OpTestCase(
        FunctionModule(pairs_by_input),
        (
            random_inputs(8, (5, 2, 3))[0],
            torch.tensor([[4, 0, 3], [1, 1, 2], [0, 4, 4], [2, 3, 0], [3, 2, 1]], dtype=torch.int32),
            torch.tensor([[1, 0, 1]], dtype=torch.int32),
        ),
        cpu_targets=("u55_INT",),
    ),
    # int32 data (not quantized reals) moved as it is, by indices that broadcast to rank 4 (the peer's
    # 2d_rank4_broadcastable_indices_int32).
    "int32_data": OpTestCase(
        FunctionModule(pairs_by_input),
        (
            torch.randint(-50, 50, (4, 6), generator=torch.Generator().manual_seed(10), dtype=torch.int32),
            torch.tensor([3, 1], dtype=torch.int32).reshape(1, 2, 1, 1),
            torch.tensor([5, 0, 2], dtype=torch.int32).reshape(1, 1, 3, 1),
        ),
        cpu_targets=_NO_INT32_LOOKUP,
    ),
    # Run-time index tensors on dims 0 and 2: x moves them to the front by a TRANSPOSE first.
    "apart_by_input": OpTestCase(
        FunctionModule(apart_by_input),
        (
            random_inputs(9, (4, 3, 5))[0],
            torch.tensor([3, 0, 3, 1], dtype=torch.int32),
            torch.tensor([4, 2, 0, 4], dtype=torch.int32),
        ),
        cpu_targets=("u55_INT",),
    ),
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
