"""TOSA SCATTER of rows at any positions, repeats included: the last write of a row wins, as in
PyTorch's and ExecuTorch's serial index_put.

TOSA SCATTER forbids writing a row twice (the reference model rejects such a graph at run time).
A write that a later one overwrites goes to a spare row instead: the table [N, K, C] gets W spare
rows past its K, write r goes to K + r when a later position equals its own, and the spare rows are
sliced off after. For constant positions that is decided at compile time (and without repeats no
spare row is added); for run-time ones it is EQUAL of the positions against each other, LOGICAL_AND
with the constant "later write" mask, REDUCE_ANY and SELECT: W x W bools, small for the few rows an
index_put writes. Positions must lie in [0, K): out-of-range ones are an error in PyTorch too.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue, concat, reshape, slice_tensor

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
