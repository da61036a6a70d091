"""Reusing one side's reports from an earlier ``bench.compare --json`` run.

The peer needs minutes per model and target here, and its numbers do not change while we work on our
flow: ``--peer-from earlier.json`` takes the peer's column from that file (same models, targets and
calibration count) and compiles only our side. The table says which rows were reused.
"""

from __future__ import annotations

import json
from pathlib import Path

from bench.agreement import Agreement, Agreements
from bench.analysis import SideReport
from bench.vela_report import VelaNumbers


def load_side_reports(path: Path, side: str) -> dict[tuple[str, str], SideReport]:
    """(model, target) -> ``side``'s report, from a JSON file ``bench.compare --json`` wrote."""
    document = json.loads(path.read_text())
    reports = {}
    for comparison in document["comparisons"]:
        reports[(comparison["model"], comparison["target"])] = side_report_from_dict(comparison[side])
    return reports


def calibration_samples_of(path: Path) -> int:
    return int(json.loads(path.read_text())["run"]["calibration samples"])


def side_report_from_dict(data: dict) -> SideReport:
    data = dict(data)
    if data.get("vela") is not None:
        data["vela"] = VelaNumbers(**data["vela"])
    if data.get("agreement") is not None:
        data["agreement"] = Agreements(
            **{key: None if value is None else Agreement(**value) for key, value in data["agreement"].items()}
        )
    data["cpu_reasons"] = tuple(data.get("cpu_reasons", ()))
    return SideReport(**data)
