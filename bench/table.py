"""Renders the comparison as plain-text tables: one block per model and target, a summary, the goals."""

from __future__ import annotations

import dataclasses
from typing import Callable

from bench.agreement import Agreement
from bench.analysis import SideReport, common_model_ops, comparable_shares
from bench.compiled import STAGES

MISSING = "-"
MAX_REASONS = 8  # per side and block: enough to name each kind of CPU op without flooding the table


@dataclasses.dataclass
class Comparison:
    model: str
    target: str
    ours: SideReport
    peer: SideReport


def _number(value: float | None, digits: int = 1) -> str:
    return MISSING if value is None else f"{value:,.{digits}f}"


def _integer(value: int | None) -> str:
    return MISSING if value is None else f"{value:,}"


def _ratio(ours: float | None, peer: float | None) -> str:
    return MISSING if ours is None or not peer else f"{ours / peer:.2f}"


def _agreement(agreement: Agreement | None) -> str:
    if agreement is None:
        return MISSING
    a = agreement
    return f"cos {a.cosine:.4f}, max|err| {a.max_abs_error:.3g}, top-1 {a.top1}/{a.samples}"


def _ops(counts: dict[str, int]) -> str:
    return ", ".join(f"{name} {count}" for name, count in counts.items()) or "none"


# (label, value of one side, whether a ours/peer ratio makes sense)
_Row = tuple[str, Callable[[SideReport], str], Callable[[SideReport], float | None] | None]

_ROWS: tuple[_Row, ...] = (
    ("compile s (export to .pte)", lambda r: _number(r.seconds), lambda r: r.seconds),
    *(
        (f"  {stage}", lambda r, stage=stage: _number(r.stage_seconds.get(stage)), None)
        for stage in STAGES
    ),
    ("compile CPU s", lambda r: _number(r.cpu_seconds), lambda r: r.cpu_seconds),
    ("load average after compile", lambda r: _number(r.load_average), None),
    (".pte bytes", lambda r: _integer(r.pte_bytes), None),
    ("partitions", lambda r: _integer(r.partitions), None),
    ("delegated % of own graph", lambda r: _number(r.delegated_percent), None),
    ("Vela total cycles", lambda r: _integer(r.vela and r.vela.total_cycles), lambda r: r.vela and r.vela.total_cycles),
    ("Vela NPU cycles", lambda r: _integer(r.vela and r.vela.npu_cycles), lambda r: r.vela and r.vela.npu_cycles),
    ("inference ms", lambda r: _number(r.vela and r.vela.inference_ms, 3), lambda r: r.vela and r.vela.inference_ms),
    ("SRAM KiB", lambda r: _number(r.vela and r.vela.sram_kib), lambda r: r.vela and r.vela.sram_kib),
    ("flash KiB", lambda r: _number(r.vela and r.vela.flash_kib), lambda r: r.vela and r.vela.flash_kib),
    ("MACs", lambda r: _integer(r.vela and r.vela.macs), None),
)


def render_block(comparison: Comparison) -> str:
    ours, peer = comparison.ours, comparison.peer
    lines = [f"== {comparison.model} on {comparison.target} =="]
    table = [("", "ours", "peer", "ours/peer")]
    for label, value, ratio_of in _ROWS:
        ratio = _ratio(ratio_of(ours), ratio_of(peer)) if ratio_of else ""
        table.append((label, value(ours), value(peer), ratio))
    model_ops = common_model_ops(ours, peer)
    if model_ops:
        shares = comparable_shares(ours, peer)
        table.append((f"delegated % of the model's {model_ops} ops", *(_number(share) for share in shares), ""))
    lines += _aligned(table)
    for report in (ours, peer):
        if report.error:
            lines.append(f"{report.side} FAILED: {report.error}")
            continue
        lines.append(f"{report.side} CPU ops: {_ops(report.cpu_ops)}")
        lines.extend(f"  {reason}" for reason in report.cpu_reasons[:MAX_REASONS])
        if len(report.cpu_reasons) > MAX_REASONS:
            lines.append(f"  ... and {len(report.cpu_reasons) - MAX_REASONS} more")
        lines.append(f"{report.side} TOSA ops: {_ops(report.tosa_ops)}")
        if report.agreement is None:
            lines.append(f"{report.side} agreement: {report.agreement_note}")
            continue
        lines.append(f"{report.side} TOSA ref vs float model:     {_agreement(report.agreement.vs_float)}")
        lines.append(f"{report.side} TOSA ref vs quantized torch: {_agreement(report.agreement.vs_quantized)}")
        if report.agreement.vs_quantized_float64 is not None:
            exact = report.agreement.vs_quantized_float64
            lines.append(f"{report.side} ... in float64:              {_agreement(exact)}, {exact.max_steps} steps")
        lines.append(f"{report.side} quantized torch vs float:    {_agreement(report.agreement.quantized_vs_float)}")
    return "\n".join(lines)


def render_summary(comparisons: list[Comparison]) -> str:
    table = [
        (
            "model",
            "target",
            "compile s ours/peer",
            "ratio",
            "total cycles ours/peer",
            "ratio",
            "partitions",
            "delegated % of model ops",
            "top-1 vs quantized",
        )
    ]
    for c in comparisons:
        table.append(
            (
                c.model,
                c.target,
                f"{_number(c.ours.seconds)} / {_number(c.peer.seconds)}",
                _ratio(c.ours.seconds, c.peer.seconds),
                f"{_integer(_cycles(c.ours))} / {_integer(_cycles(c.peer))}",
                _ratio(_cycles(c.ours), _cycles(c.peer)),
                f"{_integer(c.ours.partitions)} / {_integer(c.peer.partitions)}",
                " / ".join(_number(share) for share in comparable_shares(c.ours, c.peer)),
                f"{_top1(c.ours)} / {_top1(c.peer)}",
            )
        )
    return "\n".join(_aligned(table))


def _cycles(report: SideReport) -> int | None:
    return report.vela.total_cycles if report.vela else None


def _top1(report: SideReport) -> str:
    if report.agreement is None:
        return MISSING
    return f"{report.agreement.vs_quantized.top1}/{report.agreement.vs_quantized.samples}"


def _aligned(rows: list[tuple[str, ...]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(cell.ljust(w) if i == 0 else cell.rjust(w) for i, (cell, w) in enumerate(zip(row, widths))).rstrip()
        for row in rows
    ]
