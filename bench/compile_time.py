"""Compile time as a build sees it: one fresh process per model (cold) and our persistent worker (warm).

    PYTHONPATH=. python -m bench.compile_time                       # every bench model, U55-128 and U85-256
    PYTHONPATH=. python -m bench.compile_time --models mv2 --targets ethos-u55-128
    PYTHONPATH=. python -m bench.compile_time --pairs mv2@ethos-u55-128,deit_tiny@ethos-u85-256 --json rows.jsonl

bench.compare times the compile inside one process with the imports already paid. A build pays them too:
- **cold**: each model in its own process, imports included, as the peer's scripts run and as our
  ``arm_pte`` action runs with ``--strategy=ArmPte=sandboxed``. Both sides: ``python -m ...`` wall time.
- **warm**: our ``arm.compile --persistent_worker`` (the Bazel worker, arm/compile_worker.py) answers
  one request per model after one import; reported per model, and for the whole set as the worker's
  start-up plus every request against the sum of the peer's cold runs.

Processes run one at a time, with one torch thread each, so the two sides share the machine alike; the
load average is printed, since other work on a shared machine inflates both. Each figure is also taken
in CPU seconds (the process's user + system time), which other work inflates far less than wall time.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.model_list import BENCH_MODELS, BENCH_TARGETS

_ROOT = Path(__file__).resolve().parents[1]
_CALIBRATION_SAMPLES = 16

# The peer compiles one model in a fresh process through bench.peer (the only place allowed to import it).
_PEER_SCRIPT = """
import sys, torch
torch.set_num_threads(1)
from arm.model_spec import load_model_spec
from bench.peer import compile_peer
compile_peer(load_model_spec(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
"""


@dataclasses.dataclass
class Row:
    model: str
    target: str
    ours_cold: float
    peer_cold: float
    ours_warm: float
    load: float  # 1-minute load average after the row's three compiles
    ours_cold_cpu: float = math.nan
    peer_cold_cpu: float = math.nan
    ours_warm_cpu: float = math.nan


def _environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(_ROOT), "OMP_NUM_THREADS": "1"}


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _process_cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a running process (Linux /proc); NaN elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return math.nan
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime, stime


def _timed_run(command: list[str], workdir: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one process run to its end."""
    start, cpu_start = time.perf_counter(), _children_cpu_seconds()
    completed = subprocess.run(command, cwd=workdir, env=_environment(), capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - start, _children_cpu_seconds() - cpu_start
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} ... failed:\n{completed.stderr[-2000:]}")
    return seconds, cpu


# arm.compile's --edge-route for our side (main's default unless --edge-route is given).
_EDGE_ROUTE: list[str] = []


def _our_arguments(model: str, target: str, output: Path) -> list[str]:
    return [
        "--model", BENCH_MODELS[model], "--target", target, "--output", str(output),
        "--calibration-samples", str(_CALIBRATION_SAMPLES), *_EDGE_ROUTE,
    ]


class _Worker:
    """Our compile worker, spoken to as Bazel does (JSON WorkRequests on stdin)."""

    def __init__(self, workdir: Path):
        self.started = time.perf_counter()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arm.compile", "--persistent_worker"],
            cwd=workdir, env=_environment(), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        )
        self.requests = 0

    def compile(self, arguments: list[str]) -> tuple[float, float]:
        """Wall and CPU seconds of one request."""
        self.requests += 1
        start, cpu_start = time.perf_counter(), _process_cpu_seconds(self.process.pid)
        self.process.stdin.write(json.dumps({"arguments": arguments, "requestId": self.requests}).encode() + b"\n")
        self.process.stdin.flush()
        response = json.loads(self.process.stdout.readline())
        if response["exitCode"] != 0:
            raise RuntimeError(f"worker request failed:\n{response['output'][-2000:]}")
        return time.perf_counter() - start, _process_cpu_seconds(self.process.pid) - cpu_start

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=120)


def measure(
    pairs: list[tuple[str, str]], json_lines: Path | None = None, with_peer: bool = True
) -> tuple[list[Row], float]:
    """Per-(model, target) rows and the worker's start-up (import) seconds, measured by its first request.

    With ``json_lines``, each row is appended there as soon as it is measured, so a long run that is
    cut short keeps what it measured.
    """
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        worker = _Worker(workdir)
        # The first request pays the imports; a tiny model stands in so no bench model carries them.
        startup, _ = worker.compile(["--model", "models.small_cnn:model", "--target", "ethos-u55-128",
                                  "--output", str(workdir / "warm_up.pte"), "--calibration-samples", "1"])
        for model, target in pairs:
            ours_cold, ours_cold_cpu = _timed_run(
                [sys.executable, "-m", "arm.compile", *_our_arguments(model, target, workdir / "cold.pte")], workdir
            )
            peer_cold, peer_cold_cpu = _timed_run(
                [sys.executable, "-c", _PEER_SCRIPT, BENCH_MODELS[model], target, str(_CALIBRATION_SAMPLES)],
                workdir,
            ) if with_peer else (math.nan, math.nan)
            ours_warm, ours_warm_cpu = worker.compile(_our_arguments(model, target, workdir / "warm.pte"))
            row = Row(model, target, ours_cold, peer_cold, ours_warm, os.getloadavg()[0],
                      ours_cold_cpu, peer_cold_cpu, ours_warm_cpu)
            rows.append(row)
            print(f"{model} {target}: ours cold {ours_cold:.1f} s ({ours_cold_cpu:.1f} CPU s), peer cold "
                  f"{peer_cold:.1f} s ({peer_cold_cpu:.1f}), ours warm {ours_warm:.1f} s ({ours_warm_cpu:.1f}) "
                  f"(load {row.load:.1f})", file=sys.stderr, flush=True)
            if json_lines is not None:
                with json_lines.open("a") as stream:
                    stream.write(json.dumps({**dataclasses.asdict(row), "worker_startup": startup}) + "\n")
        worker.close()
    return rows, startup


def table(rows: list[Row], startup: float) -> str:
    lines = [
        "| model | target | ours cold s | peer cold s | cold ratio | ours warm s | warm ratio | CPU s ours cold / "
        "peer cold / ours warm | load |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        lines.append(
            f"| {row.model} | {row.target} | {row.ours_cold:.1f} | {row.peer_cold:.1f} | "
            f"{row.ours_cold / row.peer_cold:.2f} | {row.ours_warm:.1f} | {row.ours_warm / row.peer_cold:.2f} | "
            f"{row.ours_cold_cpu:.1f} / {row.peer_cold_cpu:.1f} / {row.ours_warm_cpu:.1f} | {row.load:.1f} |"
        )
    warm_build = startup + sum(row.ours_warm for row in rows)
    peer_build = sum(row.peer_cold for row in rows)
    lines.append(
        f"| all | | {sum(r.ours_cold for r in rows):.1f} | {peer_build:.1f} | "
        f"{sum(r.ours_cold for r in rows) / peer_build:.2f} | {warm_build:.1f} (incl. {startup:.1f} start-up) | "
        f"{warm_build / peer_build:.2f} | | |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(BENCH_MODELS), help="comma-separated short names")
    parser.add_argument("--targets", default=",".join(BENCH_TARGETS), help="comma-separated targets")
    parser.add_argument("--pairs", help="comma-separated MODEL@TARGET, instead of every model on every target")
    parser.add_argument("--json", type=Path, help="append each row to this file (JSON lines) as it is measured")
    parser.add_argument("--edge-route", choices=("to_edge", "in_place"), help="our side's arm.compile --edge-route")
    parser.add_argument("--no-peer", action="store_true", help="time our side only (peer columns are nan)")
    args = parser.parse_args(argv)
    if args.edge_route:
        _EDGE_ROUTE[:] = ["--edge-route", args.edge_route]
    if args.pairs:
        pairs = [tuple(pair.split("@", 1)) for pair in args.pairs.split(",") if pair]
        malformed = [pair for pair in pairs if len(pair) != 2]
        if malformed:
            parser.error(f"--pairs wants MODEL@TARGET items, got {malformed}")
    else:
        targets = [target for target in args.targets.split(",") if target]
        pairs = [(model, target) for model in args.models.split(",") if model for target in targets]
    unknown = sorted({model for model, _ in pairs if model not in BENCH_MODELS})
    if unknown:
        parser.error(f"unknown models {unknown}; known: {', '.join(BENCH_MODELS)}")
    rows, startup = measure(pairs, args.json, with_peer=not args.no_peer)
    print(table(rows, startup))
    return 0


if __name__ == "__main__":
    sys.exit(main())
