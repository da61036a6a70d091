"""Vela's performance numbers for a compiled program, from the summary CSV of each partition."""

from __future__ import annotations

import csv
import dataclasses
import io


@dataclasses.dataclass(frozen=True)
class VelaNumbers:
    """Vela's estimate for a whole program.

    Partitions run one after another, so cycles, time and flash add up; each partition's scratch is
    live only while it runs, so SRAM is the largest of them.
    """

    total_cycles: int
    npu_cycles: int
    inference_ms: float
    sram_kib: float
    flash_kib: float
    macs: int


def vela_numbers(summary_csvs: list[str]) -> VelaNumbers | None:
    rows = [row for text in summary_csvs for row in csv.DictReader(io.StringIO(text))]
    if not rows:
        return None
    return VelaNumbers(
        total_cycles=sum(int(float(row["cycles_total"])) for row in rows),
        npu_cycles=sum(int(float(row["cycles_npu"])) for row in rows),
        inference_ms=sum(float(row["inference_time"]) for row in rows) * 1e3,
        sram_kib=max(float(row["sram_memory_used"]) for row in rows),
        flash_kib=sum(float(row[f"{kind}_flash_memory_used"]) for row in rows for kind in ("on_chip", "off_chip")),
        macs=sum(int(float(row["nn_macs"])) for row in rows),
    )
