"""The CPU at the NPU's edges: Cortex-M55 instructions one inference executes outside the NPU.

The measurement is bench/runtime/run.sh's (runtime/README.md, "Cost on Corstone-300"): it builds the
firmware for Corstone-300 with Bazel (``--config=corstone300 -c opt``) and the Ethos-U55-128 .pte targets,
runs each .pte under QEMU's mps3-an547 with ``-icount shift=0`` and ``--stub-npu``, and prints one row per
model with the instructions across ``Method::execute`` and Vela's NPU cycles summed over the partitions.
This module runs that script and reads its rows; it measures nothing itself.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
from pathlib import Path

_ROOT = Path(__file__).resolve().parents[1]
RUN_SCRIPT = _ROOT / "bench" / "runtime" / "run.sh"

# The programs issue 12's third goal is about: MobileNetV2 for the U55-128 with float and with int8 I/O.
FLOAT_IO_PROGRAM = "mv2_u55_pte"
INT8_IO_PROGRAM = "mv2_u55_int8_io_pte"


@dataclasses.dataclass(frozen=True)
class EdgeCost:
    """One row of run.sh: a program's size, memory and the instructions its CPU runs per inference."""

    program: str
    pte_bytes: int
    partitions: int
    planned_bytes: int
    arena_bytes: int
    cpu_instructions: int
    npu_cycles: int  # Vela's cycles_npu, summed over the partitions


def parse_rows(text: str) -> dict[str, EdgeCost]:
    """The model rows of run.sh's table (a name, then six integers); other lines are skipped."""
    costs = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) != 7 or not all(field.isdigit() for field in fields[1:]):
            continue
        costs[fields[0]] = EdgeCost(fields[0], *(int(field) for field in fields[1:]))
    return costs


def measure_edges(bazel_startup_flags: str = "") -> tuple[dict[str, EdgeCost], str]:
    """Runs run.sh (Bazel build + QEMU) and returns its rows and its full output."""
    environment = {**os.environ, "BAZEL_STARTUP_FLAGS": bazel_startup_flags}
    completed = subprocess.run(
        ["bash", str(RUN_SCRIPT)], cwd=_ROOT, env=environment, capture_output=True, text=True
    )
    if completed.returncode != 0:
        raise RuntimeError(f"{RUN_SCRIPT.relative_to(_ROOT)} failed:\n{completed.stderr[-3000:]}")
    costs = parse_rows(completed.stdout)
    missing = [program for program in (FLOAT_IO_PROGRAM, INT8_IO_PROGRAM) if program not in costs]
    if missing:
        raise RuntimeError(f"{RUN_SCRIPT.relative_to(_ROOT)} printed no row for {missing}:\n{completed.stdout}")
    return costs, completed.stdout
