"""Every step-th row of a tensor, read (slice_copy with step > 1) or written (slice_scatter), with
RESHAPE, SLICE and CONCAT only: no GATHER or SCATTER, so every target runs it (the U55 included).

The tensor is viewed as [before, n, after] along the sliced dim. Rows start, start + step, ... are the
first rows of consecutive groups of ``step``: [start, start + full * step) reshapes to
[before, full, step, after], whose first row per group is a SLICE. A last row whose group would run
past the end (n - start not a multiple of step) is a one-row SLICE of its own, CONCATenated after.
Writing replaces that first row per group (CONCAT of the new rows and the group's other step - 1)
and CONCATs the untouched rows before and after.
"""

from __future__ import annotations

import dataclasses
import math

from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue, concat, reshape, slice_tensor


@dataclasses.dataclass(frozen=True)
class StridedRows:
    """Rows start, start + step, ... (``count`` of them) of a dim of length ``length``."""

    start: int
    step: int
    count: int
    length: int

    @property
    def full_groups(self) -> int:
        """Groups of ``step`` rows that fit before the end; the last row may need a group of its own."""
        return min(self.count, (self.length - self.start) // self.step)

    @property
    def end(self) -> int:
        """One past the last row any group or the last row touches."""
        return self.start + self.full_groups * self.step + (1 if self.full_groups < self.count else 0)


def strided_rows(shape: tuple[int, ...], dim: int, start: int, end: int, step: int) -> StridedRows:
    """``range(start, end, step)`` along ``dim`` of ``shape`` (start and end already normalized)."""
    count = max(0, -(-(end - start) // step))
    return StridedRows(start, step, count, shape[dim])


def as_rows(ctx: LoweringContext, value: TosaValue, dim: int, *, name: str) -> TosaValue:
    """``value`` viewed as [before, n, after] along ``dim``."""
    shape = value.shape
    view = (math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1 :]))
    return value if value.shape == view else reshape(ctx.graph, value, view, name=name)


def read_strided(ctx: LoweringContext, rows: TosaValue, where: StridedRows, *, name: str) -> TosaValue:
    """The chosen rows of ``rows`` ([before, n, after]) as [before, count, after]."""
    before, _, after = rows.shape
    pieces = []
    full = where.full_groups
    if full:
        groups = slice_tensor(ctx.graph, rows, (0, where.start, 0), (before, full * where.step, after), name=f"{name}_groups")
        groups = reshape(ctx.graph, groups, (before, full, where.step, after), name=f"{name}_grouped")
        firsts = slice_tensor(ctx.graph, groups, (0, 0, 0, 0), (before, full, 1, after), name=f"{name}_firsts")
        pieces.append(reshape(ctx.graph, firsts, (before, full, after), name=f"{name}_full"))
    if full < where.count:
        last = where.start + full * where.step
        pieces.append(slice_tensor(ctx.graph, rows, (0, last, 0), (before, 1, after), name=f"{name}_last"))
    return pieces[0] if len(pieces) == 1 else concat(ctx.graph, pieces, axis=1, name=name)


def write_strided(
    ctx: LoweringContext, rows: TosaValue, new_rows: TosaValue, where: StridedRows, *, name: str
) -> TosaValue:
    """``rows`` ([before, n, after]) with the chosen rows replaced by ``new_rows`` ([before, count, after])."""
    before, length, after = rows.shape
    full = where.full_groups
    pieces = []
    if where.start:
        pieces.append(slice_tensor(ctx.graph, rows, (0, 0, 0), (before, where.start, after), name=f"{name}_before"))
    if full:
        groups = slice_tensor(ctx.graph, rows, (0, where.start, 0), (before, full * where.step, after), name=f"{name}_groups")
        groups = reshape(ctx.graph, groups, (before, full, where.step, after), name=f"{name}_grouped")
        rest = slice_tensor(
            ctx.graph, groups, (0, 0, 1, 0), (before, full, where.step - 1, after), name=f"{name}_kept"
        )
        firsts = slice_tensor(ctx.graph, new_rows, (0, 0, 0), (before, full, after), name=f"{name}_new_full")
        firsts = reshape(ctx.graph, firsts, (before, full, 1, after), name=f"{name}_new_grouped")
        written = concat(ctx.graph, [firsts, rest], axis=2, name=f"{name}_written")
        pieces.append(reshape(ctx.graph, written, (before, full * where.step, after), name=f"{name}_full"))
    if full < where.count:
        pieces.append(slice_tensor(ctx.graph, new_rows, (0, full, 0), (before, 1, after), name=f"{name}_new_last"))
    if where.end < length:
        pieces.append(
            slice_tensor(ctx.graph, rows, (0, where.end, 0), (before, length - where.end, after), name=f"{name}_after")
        )
    return pieces[0] if len(pieces) == 1 else concat(ctx.graph, pieces, axis=1, name=name)
