"""TOSA SCATTER of rows at any positions, repeats included: the last write of a row wins, as in
PyTorch's and ExecuTorch's serial index_put.

TOSA SCATTER forbids writing a row twice (the reference model rejects such a graph at run time).
A write that a later one overwrites goes to a spare row instead: the table [N, K, C] gets W spare
rows past its K, write r goes to K + r when a later position equals its own, and the spare rows are
sliced off after. For constant positions that is decided at compile time (and without repeats no
spare row is added); for run-time ones it is EQUAL of the positions against each other, LOGICAL_AND
with the constant "later write" mask, REDUCE_ANY and SELECT: W x W bools, small for the few rows an
index_put writes. Positions must lie in [0, K): out-of-range ones are an error in PyTorch too.

Vela 5.2.0 reads no SCATTER for the U85, which runs EQUAL, REDUCE_ANY, MATMUL and SELECT: there
``one_hot_scatter_rows`` writes the same rows as ``onehot(last writes)^T @ written``, one int8 MATMUL
whose int32 sums have one nonzero term, then SELECT of the written rows over the table's. Exact; int8
only. The last writes are found without spare rows: a second MATMUL counts each write's later hits.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import tosa_serializer as ts

from arm.ops.common.gather import ONE_HOT_GRID, int8_matmul, tile_batch
from arm.tosa.cast import cast
from arm.tosa.graph import TosaGraph, TosaValue, concat, reshape, slice_tensor
from arm.tosa.rescale import from_int32, rescale

_BOOL = np.dtype(np.bool_)


def last_write_targets(positions: np.ndarray, rows: int) -> np.ndarray:
    """The row each of the W writes goes to: its position, or ``rows + r`` when a later write repeats it."""
    positions = np.asarray(positions, dtype=np.int64).reshape(-1)
    overwritten = np.array([bool(np.any(positions[r + 1 :] == p)) for r, p in enumerate(positions)], dtype=bool)
    return np.where(overwritten, rows + np.arange(positions.size), positions).astype(np.int32)


def scatter_rows(
    graph: TosaGraph, table: TosaValue, positions: TosaValue | np.ndarray, written: TosaValue, *, name: str
) -> TosaValue:
    """``table`` [N, K, C] with rows ``positions`` (W int32: a constant array, or a [1, W] tensor shared by
    every n) replaced by ``written`` [N, W, C], the last of repeated positions winning."""
    batch, rows, _ = table.shape
    count = written.shape[1]
    if isinstance(positions, np.ndarray):
        targets = last_write_targets(positions, rows)
        index = graph.add_const(f"{name}_targets", np.ascontiguousarray(np.repeat(targets.reshape(1, count), batch, 0)))
        spare = int(targets.max(initial=-1)) >= rows
    else:
        index = _tiled(graph, _run_time_targets(graph, positions, rows, name=name), batch, name=f"{name}_targets")
        spare = count > 1
    padded = _with_spare_rows(graph, table, count, name=name) if spare else table
    result = graph.add_tensor(f"{name}_scattered", padded.shape, padded.dtype, padded.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.ScatterAttribute()
    graph.add_op(ts.Op.SCATTER, [padded, index, written], [result], attribute)
    if not spare:
        return result
    return slice_tensor(graph, result, (0, 0, 0), table.shape, name=f"{name}_without_spare_rows")


def one_hot_scatter_rows(
    graph: TosaGraph, table: TosaValue, positions: TosaValue | np.ndarray, written: TosaValue, *, name: str
) -> TosaValue:
    """``scatter_rows`` without SCATTER, for int8 ``table`` and ``written`` on one grid (or both int8
    data without one): the one-hot MATMUL and SELECT of the module doc."""
    rows = table.shape[1]
    if isinstance(positions, np.ndarray):
        one_hot, written_rows = _one_hot(graph, last_write_targets(positions, rows), rows, name=name)
    else:
        one_hot, written_rows = _one_hot_last_writes(graph, positions, rows, name=name)
    grid = written.qparams
    picked = _one_hot_sums(graph, one_hot, written, table.shape[0], name=name)
    if grid is None:
        placed = cast(graph, picked, np.dtype(np.int8), name=f"{name}_placed")
    else:
        placed = from_int32(graph, picked, name=f"{name}_placed", accumulator_scales=[grid.scale], output=grid)
    return _emit(graph, ts.Op.SELECT, lambda a: a.SelectAttribute(), [written_rows, placed, table], table.shape,
                 table.dtype, name=f"{name}_selected").with_qparams(table.qparams)  # fmt: skip


def one_hot_accumulate_rows(
    graph: TosaGraph, table: TosaValue, positions: TosaValue | np.ndarray, written: TosaValue, *, name: str
) -> TosaValue:
    """index_put's accumulate=True: ``table`` plus every write added into its row, repeats summed as in
    PyTorch. int8 on one grid: (x - zp) + sum(v - zp) exactly in int32 (one-hot MATMUL), then one
    RESCALE back onto the grid, saturating where the quantized module clamps."""
    grid = table.qparams
    one_hot, _ = _one_hot(graph, positions, table.shape[1], name=name)
    sums = _one_hot_sums(graph, one_hot, written, table.shape[0], name=name)
    base = rescale(graph, table, name=f"{name}_base_int32", scales=[1.0], output_dtype=np.dtype(np.int32),
                   input_zp=grid.zero_point, output_zp=0, output_qparams=None)  # fmt: skip
    total = _emit(graph, ts.Op.ADD, lambda a: a.AddAttribute(), [base, sums], table.shape, np.dtype(np.int32),
                  name=f"{name}_accumulated")  # fmt: skip
    return from_int32(graph, total, name=f"{name}_rescaled", accumulator_scales=[grid.scale], output=grid)


def _one_hot(graph: TosaGraph, targets: TosaValue | np.ndarray, rows: int, *, name: str) -> tuple[TosaValue, TosaValue]:
    """(int8 [1, K, W] with a 1 where write w targets row k, bool [1, K, 1]: row k is written). A target
    past K (a spare row) matches no row."""
    if isinstance(targets, np.ndarray):
        targets = np.asarray(targets, dtype=np.int64).reshape(-1)
        hits = np.arange(rows)[:, None] == targets[None, :]
        one_hot = graph.add_const(f"{name}_one_hot", hits.reshape(1, rows, -1).astype(np.int8), ONE_HOT_GRID)
        return one_hot, graph.add_const(f"{name}_written_rows", hits.any(axis=1).reshape(1, rows, 1))
    matches = _matches(graph, targets, rows, name=name)
    written_rows = _emit(graph, ts.Op.REDUCE_ANY, lambda a: a.ReduceAnyAttribute(2), [matches], (1, rows, 1), _BOOL,
                         name=f"{name}_written_rows", axis=2)  # fmt: skip
    return cast(graph, matches, np.dtype(np.int8), name=f"{name}_one_hot").with_qparams(ONE_HOT_GRID), written_rows


def _matches(graph: TosaGraph, positions: TosaValue, rows: int, *, name: str) -> TosaValue:
    """bool [1, K, W]: write w's position is row k. The row numbers are a whole [1, K, W] constant, so
    only the positions broadcast. (The first form, a [1, K, 1] constant beside the positions and
    common/scatter's W x W spare-row search, departed from the reference model on the U85 stream for
    run-time repeats; constant positions did not.)"""
    count = positions.shape[-1]
    row = reshape(graph, positions, (1, 1, count), name=f"{name}_targets")
    numbers = np.repeat(np.arange(rows, dtype=np.int32).reshape(1, rows, 1), count, axis=2)
    row_numbers = graph.add_const(f"{name}_row_numbers", numbers)
    return _emit(graph, ts.Op.EQUAL, lambda a: a.EqualAttribute(), [row_numbers, row], (1, rows, count), _BOOL,
                 name=f"{name}_matches")  # fmt: skip


def _one_hot_last_writes(graph: TosaGraph, positions: TosaValue, rows: int, *, name: str) -> tuple[TosaValue, TosaValue]:
    """``_one_hot`` of run-time positions keeping the last write of each row only, without SCATTER's
    spare rows: write w wins row k when no later write hits k, i.e. when (hits @ later)[k, w] is 0 for
    the constant ``later[v, w] = v > w`` (an int8 MATMUL counting the later hits)."""
    count = positions.shape[-1]
    matches = _matches(graph, positions, rows, name=name)
    hits = cast(graph, matches, np.dtype(np.int8), name=f"{name}_hits").with_qparams(ONE_HOT_GRID)
    later = graph.add_const(f"{name}_later", np.tril(np.ones((count, count), dtype=np.int8), k=-1).reshape(1, count, count),
                            ONE_HOT_GRID)  # fmt: skip
    later_hits = int8_matmul(graph, hits, later, name=f"{name}_later_hits")
    zero = graph.add_const(f"{name}_zero", np.zeros((1, 1, 1), dtype=np.int32))
    last = _emit(graph, ts.Op.EQUAL, lambda a: a.EqualAttribute(), [later_hits, zero], (1, rows, count), _BOOL,
                 name=f"{name}_no_later_hit")  # fmt: skip
    winning = _emit(graph, ts.Op.LOGICAL_AND, lambda a: a.LogicalAndAttribute(), [matches, last], (1, rows, count), _BOOL,
                    name=f"{name}_last_writes")  # fmt: skip
    written_rows = _emit(graph, ts.Op.REDUCE_ANY, lambda a: a.ReduceAnyAttribute(2), [matches], (1, rows, 1), _BOOL,
                         name=f"{name}_written_rows", axis=2)  # fmt: skip
    return cast(graph, winning, np.dtype(np.int8), name=f"{name}_one_hot").with_qparams(ONE_HOT_GRID), written_rows


def _one_hot_sums(graph: TosaGraph, one_hot: TosaValue, written: TosaValue, batch: int, *, name: str) -> TosaValue:
    """int32 [N, K, C]: each row's sum of the writes' codes minus their zero point (int8 data: the values)."""
    values = written if written.qparams is not None else written.with_qparams(ONE_HOT_GRID)
    return int8_matmul(graph, tile_batch(graph, one_hot, batch, name=f"{name}_one_hot_tiled"), values, name=f"{name}_picked")


def _run_time_targets(graph: TosaGraph, positions: TosaValue, rows: int, *, name: str) -> TosaValue:
    """[1, W]: each position, or ``rows + r`` for a write r that a later one repeats."""
    count = positions.shape[-1]
    if count == 1:
        return positions
    column = reshape(graph, positions, (count, 1), name=f"{name}_positions_column")
    repeats = _emit(graph, ts.Op.EQUAL, lambda a: a.EqualAttribute(), [column, positions], (count, count), _BOOL,
                    name=f"{name}_repeats")  # fmt: skip
    later = graph.add_const(f"{name}_later", np.triu(np.ones((count, count), dtype=bool), k=1))
    repeated_later = _emit(graph, ts.Op.LOGICAL_AND, lambda a: a.LogicalAndAttribute(), [repeats, later],
                           (count, count), _BOOL, name=f"{name}_repeated_later")  # fmt: skip
    overwritten = _emit(graph, ts.Op.REDUCE_ANY, lambda a: a.ReduceAnyAttribute(1), [repeated_later], (count, 1), _BOOL,
                        name=f"{name}_overwritten", axis=1)  # fmt: skip
    spare = graph.add_const(f"{name}_spare", (rows + np.arange(count, dtype=np.int32)).reshape(count, 1))
    targets = _emit(graph, ts.Op.SELECT, lambda a: a.SelectAttribute(), [overwritten, spare, column], (count, 1),
                    np.dtype(np.int32), name=f"{name}_target_column")  # fmt: skip
    return reshape(graph, targets, (1, count), name=f"{name}_target_row")


def _tiled(graph: TosaGraph, row: TosaValue, batch: int, *, name: str) -> TosaValue:
    if batch == 1:
        return row
    output = graph.add_tensor(name, (batch, row.shape[1]), row.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.TileAttribute()
    graph.add_op(ts.Op.TILE, [row, graph.add_shape_const(f"{name}_multiples", (batch, 1))], [output], attribute)
    return output


def _with_spare_rows(graph: TosaGraph, table: TosaValue, count: int, *, name: str) -> TosaValue:
    batch, _, channels = table.shape
    zero = table.qparams.zero_point if table.qparams is not None else 0
    spare = graph.add_const(f"{name}_spare_rows", np.full((batch, count, channels), zero, dtype=table.dtype), table.qparams)
    return concat(graph, [table, spare], 1, name=f"{name}_with_spare_rows")


def _emit(
    graph: TosaGraph,
    op: ts.Op,
    set_attribute: Callable[[ts.TosaSerializerAttribute], None],
    inputs: list[TosaValue],
    shape: tuple[int, ...],
    dtype: np.dtype,
    *,
    name: str,
    axis: int | None = None,
) -> TosaValue:
    output = graph.add_tensor(name, shape, dtype)
    attribute = ts.TosaSerializerAttribute()
    set_attribute(attribute)
    graph.add_op(op, inputs, [output], attribute, axis=axis)
    return output
