"""Measured figures against their goals: one row per figure, rendered as markdown and as JSON.

Every goal of issue 12 is a ratio with an upper bound: ours over a base (the peer's figure, or the NPU's
cycles for the CPU at the edges) must be at most ``goal``. A row knows its verdict and how far it is from
the goal, so the table says by how much a missed goal is missed.
"""

from __future__ import annotations

import dataclasses
import math

PASS, FAIL, NOT_MEASURED = "PASS", "FAIL", "NOT MEASURED"


@dataclasses.dataclass(frozen=True)
class Figure:
    """One figure of one run: ``ours / base <= goal`` is the goal."""

    part: str  # which part of the issue: compile, cycles, edges
    name: str  # what is measured, e.g. "mv2 U55-128 cold compile, wall s"
    ours: float | None
    base: float | None  # the peer's figure, or what ours is measured against; None: not measured
    goal: float
    base_source: str  # where the base comes from: "peer, measured in this run", "NPU cycles (Vela)", ...
    unit: str = "s"  # s, cycles, instructions
    note: str = ""  # why a figure is missing, or what it leaves out

    @property
    def ratio(self) -> float | None:
        if self.ours is None or not self.base or math.isnan(self.ours) or math.isnan(self.base):
            return None
        return self.ours / self.base

    @property
    def verdict(self) -> str:
        ratio = self.ratio
        if ratio is None:
            return NOT_MEASURED
        return PASS if ratio <= self.goal else FAIL

    @property
    def how_far(self) -> str:
        """For a miss: how far over the goal, and the cut of ours that would meet it; for a pass, the margin."""
        ratio = self.ratio
        if ratio is None:
            return self.note or "not measured in this run"
        if ratio <= self.goal:
            return f"met with {1 - ratio / self.goal:.0%} to spare"
        return f"{ratio / self.goal:.2f}x the goal: ours must fall {1 - self.goal / ratio:.0%}"

    def as_json(self) -> dict:
        return {**dataclasses.asdict(self), "ratio": self.ratio, "verdict": self.verdict, "how_far": self.how_far}


def _value(value: float | None, unit: str) -> str:
    if value is None or math.isnan(value):
        return "-"
    return f"{value:.1f}" if unit == "s" else f"{round(value):,}"


def markdown(figures: list[Figure]) -> str:
    lines = [
        "| part | figure | ours | peer (or base) | ratio | goal | verdict | how far | base from |",
        "| --- | --- | ---: | ---: | ---: | ---: | --- | --- | --- |",
    ]
    for figure in figures:
        ratio = figure.ratio
        lines.append(
            f"| {figure.part} | {figure.name} | {_value(figure.ours, figure.unit)} | "
            f"{_value(figure.base, figure.unit)} | {'-' if ratio is None else f'{ratio:.3f}'} | "
            f"<= {figure.goal:g} | {figure.verdict} | {figure.how_far} | {figure.base_source} |"
        )
    return "\n".join(lines)


def summary_lines(figures: list[Figure]) -> list[str]:
    """One line per figure: ``[VERDICT] name: ratio (goal): how far``."""
    lines = []
    for figure in figures:
        ratio = figure.ratio
        shown = "-" if ratio is None else f"{ratio:.3f}"
        lines.append(f"[{figure.verdict}] {figure.name}: {shown} (goal <= {figure.goal:g}); {figure.how_far}")
    return lines
