"""The issue's goals for our flow, checked against a comparison run.

Each goal reads the comparisons it concerns and answers PASS, FAIL or NOT MEASURED (its model or
target was not part of the run, or a side failed) with the numbers behind the answer.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # for annotations only: bench.issue12 reads the goals without importing torch
    from bench.table import Comparison

MAIN_MODEL = "mv2"
MAIN_TARGET = "ethos-u55-128"
COMPILE_TIME_RATIO = 0.25

# Issue 12's goals, each an upper bound on ours / a base (bench.issue12 measures them in one run).
COLD_COMPILE_RATIO = COMPILE_TIME_RATIO  # MobileNetV2 U55-128, one fresh process per side
WARM_BUILD_RATIO = 0.1  # a build of every model target through our worker, against the peer's cold builds
TRANSFORMER_CYCLES_RATIO = 0.8  # Vela total cycles on deit_tiny U85-256 and Llama U85-256 and U55-128
ZOO_CYCLES_RATIO = 1.0  # every zoo model at or below the peer
EDGE_CPU_FLOAT_IO_RATIO = 0.30  # CPU instructions outside the NPU / NPU cycles, MobileNetV2 U55, float I/O
EDGE_CPU_INT8_IO_RATIO = 0.05  # the same with int8 program inputs and outputs


@dataclasses.dataclass(frozen=True)
class Verdict:
    status: str  # PASS, FAIL, NOT MEASURED
    detail: str


def _verdict(checks: list[tuple[bool, str]]) -> Verdict:
    if not checks:
        return Verdict("NOT MEASURED", "no comparison in this run covers it")
    status = "PASS" if all(ok for ok, _ in checks) else "FAIL"
    return Verdict(status, "; ".join(detail for _, detail in checks))


def _compile_time(comparisons: list[Comparison]) -> Verdict:
    checks = [
        (
            c.ours.seconds / c.peer.seconds <= COMPILE_TIME_RATIO,
            f"{c.ours.seconds:.1f} s vs {c.peer.seconds:.1f} s = {c.ours.seconds / c.peer.seconds:.2f}",
        )
        for c in comparisons
        if c.model == MAIN_MODEL and c.target == MAIN_TARGET and c.ours.seconds and c.peer.seconds
    ]
    return _verdict(checks)


def _cycles(comparisons: list[Comparison]) -> Verdict:
    checks = [
        (
            c.ours.vela.total_cycles <= c.peer.vela.total_cycles,
            f"{c.model}/{c.target} {c.ours.vela.total_cycles / c.peer.vela.total_cycles:.2f}",
        )
        for c in comparisons
        if c.ours.vela and c.peer.vela
    ]
    return _verdict(checks)


def _one_partition(comparisons: list[Comparison]) -> Verdict:
    checks = [
        (
            c.ours.partitions == 1 and not c.ours.cpu_ops,
            f"{c.target}: {c.ours.partitions} partition(s), CPU ops: {', '.join(c.ours.cpu_ops) or 'none'}",
        )
        for c in comparisons
        if c.model == MAIN_MODEL and c.ours.partitions is not None
    ]
    return _verdict(checks)


def _top1(comparisons: list[Comparison]) -> Verdict:
    checks = []
    for c in comparisons:
        if c.ours.error:
            continue
        agreement = c.ours.agreement
        if agreement is None:
            checks.append((False, f"{c.model}/{c.target} not measurable ({c.ours.agreement_note})"))
        else:
            top1 = agreement.vs_quantized
            checks.append((top1.top1 == top1.samples, f"{c.model}/{c.target} {top1.top1}/{top1.samples}"))
    return _verdict(checks)


GOALS: dict[str, Callable[[list[Comparison]], Verdict]] = {
    f"{MAIN_MODEL} {MAIN_TARGET} compile time <= {COMPILE_TIME_RATIO} x the peer's": _compile_time,
    "Vela total cycles <= the peer's on every model and target": _cycles,
    f"all {MAIN_MODEL} compute on the NPU in one partition": _one_partition,
    "top-1 agrees with the quantized torch model on every input": _top1,
}


def goal_verdicts(comparisons: list[Comparison]) -> dict[str, Verdict]:
    return {goal: check(comparisons) for goal, check in GOALS.items()}


def render_goals(verdicts: dict[str, Verdict]) -> str:
    return "\n".join(f"[{verdict.status}] {goal}: {verdict.detail}" for goal, verdict in verdicts.items())
