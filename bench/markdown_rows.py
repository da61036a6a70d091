"""The README's zoo table from ``bench.compare --json`` files: one markdown row per model and target.

    PYTHONPATH=. python -m bench.markdown_rows zoo.json more.json > rows.md

Columns as issue 9 asks: status, partitions, delegated %, Vela total cycles (with ours/peer), compile
seconds, error against the side's own quantized torch model, and the load average after each side's
compile. A side that failed is a row with its error; a later file's row replaces an earlier one's.
Reads the JSON as plain data (no torch import), so it runs in a second.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

# One side's report as bench.compare --json writes it (bench.analysis.SideReport as a dict).
SideReport = dict

HEADER = (
    "| model | target | status ours / peer | partitions ours / peer | delegated % ours / peer | "
    "Vela total cycles ours / peer (ratio) | compile s ours / peer | error vs own quantized model ours / peer | "
    "load ours / peer |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
)
MISSING = "-"


def _status(report: SideReport) -> str:
    return f"FAILED ({report['error']})" if report.get("error") else "ok"


def _pair(ours: str, peer: str) -> str:
    return f"{ours} / {peer}"


def _integer(value: int | None) -> str:
    return MISSING if value is None else f"{value:,}"


def _number(value: float | None, digits: int = 1) -> str:
    return MISSING if value is None else f"{value:,.{digits}f}"


def _cycles(report: SideReport) -> int | None:
    return report["vela"]["total_cycles"] if report.get("vela") else None


def _error(report: SideReport) -> str:
    if report.get("error"):
        return MISSING
    if report.get("agreement") is None:
        return "n/a"  # more than "quantize, one delegate, dequantize": the TOSA graph is not the whole program
    a = report["agreement"]["vs_quantized"]
    return f"cos {a['cosine']:.4f}, {a['max_abs_error']:.3g}, {a['top1']}/{a['samples']}"


def _cpu(ours: SideReport, peer: SideReport) -> str:
    if ours.get("cpu_seconds") is None or peer.get("cpu_seconds") is None:
        return ""  # runs before 2026-11-26 recorded wall time only
    return f" (CPU {ours['cpu_seconds']:.1f} / {peer['cpu_seconds']:.1f})"


def _shares(ours: SideReport, peer: SideReport) -> tuple[float | None, float | None]:
    """Delegated percent over the model's operators where a side recorded their count (as
    bench.analysis.comparable_shares, on plain data), else each side's share of its own graph."""
    model_ops = ours.get("model_ops") or peer.get("model_ops")
    if not model_ops:
        return ours.get("delegated_percent"), peer.get("delegated_percent")
    return tuple(  # type: ignore[return-value]
        None if side.get("error") else max(0.0, 100.0 * (model_ops - sum(side.get("cpu_ops", {}).values())) / model_ops)
        for side in (ours, peer)
    )


def row(model: str, target: str, ours: SideReport, peer: SideReport) -> str:
    ours_cycles, peer_cycles = _cycles(ours), _cycles(peer)
    ratio = f" ({ours_cycles / peer_cycles:.2f})" if ours_cycles and peer_cycles else ""
    cells = [
        model,
        target.replace("ethos-", "").upper(),
        _pair(_status(ours), _status(peer)),
        _pair(_integer(ours.get("partitions")), _integer(peer.get("partitions"))),
        _pair(*(_number(share) for share in _shares(ours, peer))),
        _pair(_integer(ours_cycles), _integer(peer_cycles)) + ratio,
        _pair(_number(ours.get("seconds")), _number(peer.get("seconds"))) + _cpu(ours, peer),
        _pair(_error(ours), _error(peer)),
        _pair(_number(ours.get("load_average")), _number(peer.get("load_average"))),
    ]
    return "| " + " | ".join(cells) + " |"


def rows(paths: list[Path]) -> list[str]:
    by_pair: dict[tuple[str, str], str] = {}
    for path in paths:
        for comparison in json.loads(path.read_text())["comparisons"]:
            ours, peer = comparison["ours"], comparison["peer"]
            by_pair[(comparison["model"], comparison["target"])] = row(
                comparison["model"], comparison["target"], ours, peer
            )
    return list(by_pair.values())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("json", type=Path, nargs="+", help="bench.compare --json files")
    args = parser.parse_args(argv)
    print(HEADER)
    print("\n".join(rows(args.json)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
