"""Issue 9's criteria on one zoo pair (model, target), and the Markdown matrix of all of them.

Pure logic over two ``SideReport``s (ours compiled now, the peer's from a saved run): no compile here,
so the verdicts can be tested on made-up rows (bench/zoo_matrix_test.py).

The criteria, per pair (issue 9's "done when"):
- **compiles**: our flow produces a .pte with no internal error (what it cannot lower stays on the CPU).
- **delegated**: our delegated share is at least the peer's, where the peer compiles. Both shares are
  taken over the same denominator, the model's operators as torch.export gives them (``model_ops``),
  each CPU kernel call counting as one operator left on the CPU; each side's own quantized graph
  differs too much for that (the peer decomposes before it quantizes: BERT 188 nodes, ours 63, so the
  same one lookup on the CPU read 99.5% against 98.4%). Reports saved without ``model_ops`` take it from
  the other side of the pair; with neither, each side's own-graph share is compared.
- **cycles**: Vela's total cycles no higher than the peer's (Ethos-U targets; tosa-INT has no Vela).
- **error**: against each side's own quantized torch model evaluated in float64, the delegate's TOSA
  graph on the reference model (bench.agreement, the same measurement on both sides): its largest error
  in steps of its own output grid no more than the peer's, and its cosine no lower (within
  ``COSINE_TOLERANCE``: two exact sides give 1.0 and 0.9999999999999998). Float64, because in float32
  the quantized model itself lands on the other side of rounding ties now and then, and the float32
  figure then measures torch's rounding as much as the lowering (a side can score 0 or 2 steps on the
  same graph by luck); steps, because the two sides' grids differ in their last digits, so their
  absolute errors are not comparable to the last digit but their step counts are. The float32 figure is
  shown beside it. Measured only where a side's .pte is "quantize, one delegate, dequantize";
  otherwise n/a, and the row says which side is partly delegated. A figure saved before the float64
  measure existed is not judged: "no float64 figure", naming the side.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

from bench.agreement import Agreement
from bench.analysis import SideReport, common_model_ops, comparable_shares

MET = "met"
NOT_MET = "NOT met"
PEER_FAILED = "peer failed"
NO_PEER = "no peer figure"
NOT_APPLICABLE = "n/a"
NOT_COMPILED = "not compiled"
NO_FLOAT64 = "no float64 figure"

CRITERIA = ("compiles", "delegated", "cycles", "error")
TOSA_TARGET = "tosa-INT"
COSINE_TOLERANCE = 1e-9


@dataclasses.dataclass(frozen=True)
class Verdict:
    status: str
    why: str = ""

    def __str__(self) -> str:
        return f"{self.status} ({self.why})" if self.why and self.status != MET else self.status


@dataclasses.dataclass(frozen=True)
class AuditRow:
    """One model on one target: our report (None: not compiled yet) and the peer's (None: no figure)."""

    model: str
    target: str
    ours: SideReport | None
    peer: SideReport | None
    peer_source: str = ""
    calibration_samples: int = 4

    @property
    def pair(self) -> str:
        return f"{self.model}@{self.target}"


def _compiles(row: AuditRow) -> Verdict:
    if row.ours is None:
        return Verdict(NOT_COMPILED)
    if row.ours.error:
        return Verdict(NOT_MET, row.ours.error)
    return Verdict(MET)


def _against_peer(row: AuditRow) -> Verdict | None:
    """The verdict every comparison with the peer shares when one side has no number; None: both do."""
    if row.ours is None:
        return Verdict(NOT_COMPILED)
    if row.ours.error:
        return Verdict(NOT_MET, "ours failed")
    if row.peer is None:
        return Verdict(NO_PEER)
    if row.peer.error:
        return Verdict(PEER_FAILED, row.peer.error)
    return None


def _delegated(row: AuditRow) -> Verdict:
    missing = _against_peer(row)
    if missing:
        return missing
    ours, peer = delegated_shares(row)
    if ours is None or peer is None:
        return Verdict(NO_PEER if peer is None else NOT_MET, "no delegated share")
    model_ops = _model_ops(row)
    over = f" of the model's {model_ops} operators" if model_ops else " of each side's own graph"
    why = f"{ours:.1f} vs {peer:.1f}%{over}"
    return Verdict(MET, why) if ours >= peer else Verdict(NOT_MET, why)


def _model_ops(row: AuditRow) -> int | None:
    return common_model_ops(row.ours, row.peer)


def delegated_shares(row: AuditRow) -> tuple[float | None, float | None]:
    """(ours, peer) delegated percent over one denominator where the pair knows the model's count."""
    return comparable_shares(row.ours, row.peer)


def _cycles(row: AuditRow) -> Verdict:
    if row.target == TOSA_TARGET:
        return Verdict(NOT_APPLICABLE, "no Vela on tosa-INT")
    missing = _against_peer(row)
    if missing:
        return missing
    if row.peer.vela is None:
        return Verdict(NO_PEER, "the peer's run has no Vela figure")
    if row.ours.vela is None:
        return Verdict(NOT_MET, "no Vela figure on our side")
    ratio = row.ours.vela.total_cycles / row.peer.vela.total_cycles
    return Verdict(MET if ratio <= 1.0 else NOT_MET, f"{ratio:.3f}x")


def _error(row: AuditRow) -> Verdict:
    missing = _against_peer(row)
    if missing:
        return missing
    partly = [side for side, report in (("ours", row.ours), ("peer", row.peer)) if report.agreement is None]
    if partly:
        return Verdict(NOT_APPLICABLE, f"partly delegated: {' and '.join(partly)}")
    unmeasured = [
        side for side, report in (("ours", row.ours), ("peer", row.peer)) if report.agreement.vs_quantized_float64 is None
    ]
    if unmeasured:
        return Verdict(NO_FLOAT64, " and ".join(unmeasured))
    ours, peer = row.ours.agreement.vs_quantized_float64, row.peer.agreement.vs_quantized_float64
    worse = []
    if ours.max_steps > peer.max_steps:
        worse.append(f"float64 max {ours.max_steps} > {peer.max_steps} steps")
    if ours.cosine < peer.cosine - COSINE_TOLERANCE:
        digits = 5 if f"{ours.cosine:.5f}" != f"{peer.cosine:.5f}" else 8  # 0.99999996 < 1: say so
        worse.append(f"float64 cosine {ours.cosine:.{digits}f} < {peer.cosine:.{digits}f}")
    return Verdict(NOT_MET, "; ".join(worse)) if worse else Verdict(MET)


_JUDGES: dict[str, Callable[[AuditRow], Verdict]] = {
    "compiles": _compiles,
    "delegated": _delegated,
    "cycles": _cycles,
    "error": _error,
}


def verdicts(row: AuditRow) -> dict[str, Verdict]:
    return {criterion: _JUDGES[criterion](row) for criterion in CRITERIA}


def _status(report: SideReport | None) -> str:
    if report is None:
        return "–"
    return "FAILED" if report.error else "ok"


def _number(value: float | int | None, digits: int = 0) -> str:
    if value is None:
        return "–"
    return f"{value:,.{digits}f}"


def _side_pair(row: AuditRow, read: Callable[[SideReport], str]) -> str:
    sides = [("–" if report is None or report.error else read(report)) for report in (row.ours, row.peer)]
    return " / ".join(sides)


def _shares_cell(row: AuditRow) -> str:
    """Both shares over the model's operators; each side's own-graph share after it where they differ."""
    shares = delegated_shares(row)
    cell = " / ".join("–" if share is None else _number(share, 1) for share in shares)
    own = _side_pair(row, lambda report: _number(report.delegated_percent, 1))
    return cell if own == cell or not _model_ops(row) else f"{cell} (own graphs {own})"


def _cycles_cell(row: AuditRow) -> str:
    if row.target == TOSA_TARGET:
        return "–"
    cell = _side_pair(row, lambda report: _number(report.vela.total_cycles) if report.vela else "–")
    ours, peer = row.ours, row.peer
    if ours and peer and ours.vela and peer.vela and not ours.error and not peer.error:
        cell += f" ({ours.vela.total_cycles / peer.vela.total_cycles:.2f})"
    return cell


def _error_cell(report: SideReport | None) -> str:
    """float64: cosine, largest error (steps), top-1; then the float32 figure's cosine and steps."""
    if report is None or report.error:
        return "–"
    if report.agreement is None:
        return "n/a"
    rounded, exact = report.agreement.vs_quantized, report.agreement.vs_quantized_float64
    float32 = f"{rounded.cosine:.5f}, {rounded.max_abs_error:.3g}"
    if rounded.max_steps is not None:
        float32 += f" ({rounded.max_steps})"
    if exact is None:
        return f"f32 only: {float32}, {rounded.top1}/{rounded.samples}"
    return (
        f"{exact.cosine:.5f}, {exact.max_abs_error:.3g} ({exact.max_steps}), {exact.top1}/{exact.samples}; "
        f"f32 {float32}"
    )


_HEADER = (
    "| model | target | status ours / peer | partitions ours / peer | delegated % ours / peer "
    "| Vela cycles ours / peer (ratio) | error ours, float64 (cos, max abs (steps), top-1); float32 | error peer "
    "| compiles | delegated | cycles | error |"
)


def markdown_row(row: AuditRow) -> str:
    judged = verdicts(row)
    cells = [
        row.model,
        row.target,
        f"{_status(row.ours)} / {_status(row.peer)}",
        _side_pair(row, lambda report: _number(report.partitions)),
        _shares_cell(row),
        _cycles_cell(row),
        _error_cell(row.ours),
        _error_cell(row.peer),
        *(judged[criterion].status for criterion in CRITERIA),
    ]
    return "| " + " | ".join(cells) + " |"


def markdown_table(rows: list[AuditRow]) -> str:
    separator = "|" + "---|" * _HEADER.count(" | ") + "---|"
    return "\n".join([_HEADER, separator, *(markdown_row(row) for row in rows)])


def not_met(rows: list[AuditRow]) -> list[str]:
    """One line per criterion a pair does NOT meet, with what the numbers say."""
    lines = []
    for row in rows:
        for criterion, verdict in verdicts(row).items():
            if verdict.status == NOT_MET:
                lines.append(f"{row.pair}: {criterion}: {verdict.why}")
    return lines


def tally(rows: list[AuditRow]) -> dict[str, dict[str, int]]:
    """criterion -> verdict status -> number of pairs."""
    counts: dict[str, dict[str, int]] = {criterion: {} for criterion in CRITERIA}
    for row in rows:
        for criterion, verdict in verdicts(row).items():
            counts[criterion][verdict.status] = counts[criterion].get(verdict.status, 0) + 1
    return counts


ERROR_MEASURE = (
    "Error: the delegate's TOSA graph on the reference model, through the .pte's own quantize/dequantize "
    "grids, against the side's own quantized torch model evaluated in float64 (bench.agreement): cosine, "
    "largest absolute error with its count of output-grid steps in brackets, top-1; then the same against "
    "the quantized model evaluated in float32 (f32). The error verdict compares the float64 figures: "
    "steps no more than the peer's and cosine no lower."
)


def _steps(agreement: Agreement) -> str:
    return f"{agreement.max_steps} steps ({agreement.elements_off} off), cos {agreement.cosine:.8f}"


def error_figures(rows: list[AuditRow]) -> list[str]:
    """One line per pair where both sides have a float64 error figure: both measures, both sides, verdict."""
    lines = []
    for row in rows:
        sides = (row.ours, row.peer)
        if any(report is None or report.error or report.agreement is None for report in sides):
            continue
        if any(report.agreement.vs_quantized_float64 is None for report in sides):
            continue
        ours, peer = (
            f"float64 {_steps(report.agreement.vs_quantized_float64)}; float32 {_steps(report.agreement.vs_quantized)}"
            for report in sides
        )
        lines.append(f"{row.pair}: ours {ours} | peer {peer} | {verdicts(row)['error']}")
    return lines


def render(rows: list[AuditRow]) -> str:
    """The matrix, the count of each verdict per criterion, and the list of NOT-met cells."""
    counts = tally(rows)
    summary = [
        f"- {criterion}: " + ", ".join(f"{count} {status}" for status, count in sorted(statuses.items()))
        for criterion, statuses in counts.items()
    ]
    missed = not_met(rows) or ["(none)"]
    lines = [ERROR_MEASURE, "", markdown_table(rows), "", "Verdicts per criterion:", *summary, "", "NOT met:"]
    return "\n".join([*lines, *(f"- {line}" for line in missed)])
