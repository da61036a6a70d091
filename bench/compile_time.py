"""Compile time as a build sees it: one fresh process per model (cold) and our persistent worker (warm).

    PYTHONPATH=. python -m bench.compile_time                       # every bench model, U55-128 and U85-256
    PYTHONPATH=. python -m bench.compile_time --models mv2 --targets ethos-u55-128
    PYTHONPATH=. python -m bench.compile_time --pairs mv2@ethos-u55-128,deit_tiny@ethos-u85-256 --json rows.jsonl
    PYTHONPATH=. python -m bench.compile_time --pairs bert@ethos-u55-128 --peer-from zoo.json --json rows.jsonl
    PYTHONPATH=. python -m bench.compile_time --rows rows.jsonl --peer-from zoo.json   # the table again, no compile

bench.compare times the compile inside one process with the imports already paid. A build pays them too:
- **cold**: each model in its own process, imports included, as the peer's scripts run and as our
  ``arm_pte`` action runs with ``--strategy=ArmPte=sandboxed``. Both sides: ``python -m ...`` wall time.
- **warm**: our ``arm.compile --persistent_worker`` (the Bazel worker, arm/compile_worker.py) answers
  one request per model after one import; reported per model, and for the whole set as the worker's
  start-up plus every request against the sum of the peer's cold runs.

Processes run one at a time, with one torch thread each, so the two sides share the machine alike; the
load average is printed, since other work on a shared machine inflates both. Each figure is also taken
in CPU seconds (the process's user + system time), which other work inflates far less than wall time.

The peer needs up to an hour per model here. ``--peer-from`` takes its compile from a ``bench.compare
--json`` run instead and *derives* its cold figure (bench/derived_peer.py: one measured start-up process
for the imports and model loads, plus that run's in-process compile seconds); the table marks such
figures "derived". ``--no-peer`` measures our side only, for a table rendered later with ``--rows``.
Each model compiles with the calibration count of the compare run its peer figure is derived from, else
the count its Bazel target uses (models/BUILD.bazel); ``--calibration-samples`` overrides both (a derived
figure then needs the compare run's count to match).
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

from bench.derived_peer import (
    PeerCompile,
    PeerStartup,
    derived_cold_cpu_seconds,
    derived_cold_seconds,
    measure_peer_startup,
    peer_compiles,
)
from bench.model_list import BENCH_MODELS, BENCH_TARGETS
from bench.process_cpu import tree_cpu_seconds

_ROOT = Path(__file__).resolve().parents[1]
# Calibration samples of each model's arm_pte targets in models/BUILD.bazel (the build's cost); 16 otherwise.
_BUILD_CALIBRATION_SAMPLES = {
    "efficientnet_b0": 4,
    **{model: 4 for model in ("deit_tiny", "mobilevit_xxs", "bert", "conformer", "mha_sequence", "llama",
                              "squeezenet", "regnet", "convnext_atto", "kws_conv1d", "yolov8n")},
}
_DEFAULT_CALIBRATION_SAMPLES = 16
# Issue 12's goals.
COLD_GOAL = ("mv2", "ethos-u55-128", 0.25)  # our cold compile <= this x the peer's, on this model and target
WARM_GOAL = 0.1  # a warm build of every model target <= this x the peer's cold builds

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
    peer_cold: float  # NaN: not measured in this run (derived later, or not known)
    ours_warm: float
    load: float  # 1-minute load average after the row's compiles
    ours_cold_cpu: float = math.nan
    peer_cold_cpu: float = math.nan
    ours_warm_cpu: float = math.nan
    calibration_samples: int = _DEFAULT_CALIBRATION_SAMPLES
    peer_source: str = "measured"  # or "derived (<compare JSON>)", or "" when there is no peer figure
    peer_load: float = math.nan  # load average after the peer's compile, where it ran elsewhere


def _environment() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(_ROOT), "OMP_NUM_THREADS": "1"}


def _children_cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed_run(command: list[str], workdir: Path) -> tuple[float, float]:
    """Wall and CPU seconds of one process run to its end."""
    start, cpu_start = time.perf_counter(), _children_cpu_seconds()
    completed = subprocess.run(command, cwd=workdir, env=_environment(), capture_output=True, text=True)
    seconds, cpu = time.perf_counter() - start, _children_cpu_seconds() - cpu_start
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(command[:4])} ... failed:\n{completed.stderr[-2000:]}")
    return seconds, cpu


def build_calibration_samples(model: str) -> int:
    return _BUILD_CALIBRATION_SAMPLES.get(model, _DEFAULT_CALIBRATION_SAMPLES)


# arm.compile's --edge-route for our side (arm.compile's default unless --edge-route is given).
_EDGE_ROUTE: list[str] = []


def _our_arguments(model: str, target: str, output: Path, samples: int) -> list[str]:
    return [
        "--model", BENCH_MODELS[model], "--target", target, "--output", str(output),
        "--calibration-samples", str(samples), *_EDGE_ROUTE,
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
        start, cpu_start = time.perf_counter(), tree_cpu_seconds(self.process.pid)
        self.process.stdin.write(json.dumps({"arguments": arguments, "requestId": self.requests}).encode() + b"\n")
        self.process.stdin.flush()
        response = json.loads(self.process.stdout.readline())
        if response["exitCode"] != 0:
            raise RuntimeError(f"worker request failed:\n{response['output'][-2000:]}")
        return time.perf_counter() - start, tree_cpu_seconds(self.process.pid) - cpu_start

    def close(self) -> None:
        self.process.stdin.close()
        self.process.wait(timeout=120)


@dataclasses.dataclass(frozen=True)
class Pair:
    model: str
    target: str
    calibration_samples: int
    run_peer: bool  # compile the peer cold in this run (else its figure is derived, or absent)


def measure(
    pairs: list[Pair], json_lines: Path | None = None, derive_peer: bool = False
) -> tuple[list[Row], float, PeerStartup | None]:
    """Per-pair rows, the worker's start-up (import) seconds, measured by its first request, and, with
    ``derive_peer``, the peer's start-up process (bench/derived_peer.py) for the pairs' models.

    With ``json_lines``, each record is appended there as soon as it is measured, so a long run that is
    cut short keeps what it measured.
    """
    rows: list[Row] = []
    peer_startup = None
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        if derive_peer:
            models = list(dict.fromkeys(pair.model for pair in pairs))
            peer_startup = measure_peer_startup(models, workdir, _environment())
            print(f"peer start-up {peer_startup.seconds:.1f} s ({peer_startup.cpu_seconds:.1f} CPU s), model loads "
                  f"{sum(peer_startup.model_load_seconds.values()):.1f} s (load {peer_startup.load:.1f})",
                  file=sys.stderr, flush=True)
            _append(json_lines, {"peer_startup": dataclasses.asdict(peer_startup)})
        worker = _Worker(workdir)
        # The first request pays the imports; a tiny model stands in so no bench model carries them.
        startup, _ = worker.compile(["--model", "models.small_cnn:model", "--target", "ethos-u55-128",
                                  "--output", str(workdir / "warm_up.pte"), "--calibration-samples", "1"])
        for pair in pairs:
            model, target, samples = pair.model, pair.target, pair.calibration_samples
            ours_cold, ours_cold_cpu = _timed_run(
                [sys.executable, "-m", "arm.compile", *_our_arguments(model, target, workdir / "cold.pte", samples)],
                workdir,
            )
            peer_cold, peer_cold_cpu = math.nan, math.nan
            if pair.run_peer:
                peer_cold, peer_cold_cpu = _timed_run(
                    [sys.executable, "-c", _PEER_SCRIPT, BENCH_MODELS[model], target, str(samples)], workdir
                )
            ours_warm, ours_warm_cpu = worker.compile(_our_arguments(model, target, workdir / "warm.pte", samples))
            row = Row(model, target, ours_cold, peer_cold, ours_warm, os.getloadavg()[0],
                      ours_cold_cpu, peer_cold_cpu, ours_warm_cpu, samples, "measured" if pair.run_peer else "")
            rows.append(row)
            print(f"{model} {target} ({samples} calibration samples): ours cold {ours_cold:.1f} s "
                  f"({ours_cold_cpu:.1f} CPU s), peer cold {peer_cold:.1f} s ({peer_cold_cpu:.1f}), ours warm "
                  f"{ours_warm:.1f} s ({ours_warm_cpu:.1f}) (load {row.load:.1f})", file=sys.stderr, flush=True)
            _append(json_lines, {**dataclasses.asdict(row), "worker_startup": startup})
        worker.close()
    return rows, startup, peer_startup


def _append(json_lines: Path | None, record: dict) -> None:
    if json_lines is not None:
        with json_lines.open("a") as stream:
            stream.write(json.dumps(record) + "\n")


def read_rows(paths: list[Path]) -> tuple[list[Row], float, PeerStartup | None]:
    """Rows, a worker start-up and the last peer start-up of JSON-lines files measure() wrote.

    A later row of the same model and target replaces an earlier one. A build starts one worker, so
    the warm build counts one start-up: the largest of the runs read (the conservative choice).
    """
    rows, startups, peer_startup = {}, [0.0], None
    fields = {field.name for field in dataclasses.fields(Row)}
    for path in paths:
        for line in path.read_text().splitlines():
            record = json.loads(line)
            if "peer_startup" in record:
                peer_startup = PeerStartup(**record["peer_startup"])
                continue
            startups.append(record.get("worker_startup") or 0.0)
            row = Row(**{key: value for key, value in record.items() if key in fields})
            rows[(row.model, row.target)] = row
    return list(rows.values()), max(startups), peer_startup


def with_derived_peer(rows: list[Row], startup: PeerStartup | None, compiles: dict[tuple[str, str], PeerCompile]) -> list[Row]:
    """``rows`` with the peer's cold figure derived (bench/derived_peer.py) where this run did not measure it."""
    resolved = []
    for row in rows:
        compile_ = compiles.get((row.model, row.target))
        if math.isnan(row.peer_cold) and startup is not None and compile_ is not None:
            if compile_.calibration_samples != row.calibration_samples:
                print(f"{row.model} {row.target}: {compile_.source} compiled the peer with "
                      f"{compile_.calibration_samples} calibration samples, ours with {row.calibration_samples}: "
                      "no derived figure", file=sys.stderr)
            else:
                seconds = derived_cold_seconds(startup, compile_, row.model)
                if seconds is not None:
                    cpu = derived_cold_cpu_seconds(startup, compile_, row.model)
                    row = dataclasses.replace(
                        row, peer_cold=seconds, peer_source=f"derived ({compile_.source})",
                        peer_load=math.nan if compile_.load is None else compile_.load,
                        peer_cold_cpu=math.nan if cpu is None else cpu,
                    )
        resolved.append(row)
    return resolved


def _ratio(ours: float, peer: float) -> str:
    return "-" if math.isnan(peer) or not peer else f"{ours / peer:.2f}"


def _seconds(value: float) -> str:
    return "-" if math.isnan(value) else f"{value:.1f}"


def _peer_load(row: Row) -> str:
    # A peer measured in the row's own run ran at the row's load.
    return "same" if row.peer_source == "measured" else _seconds(row.peer_load)


def table(rows: list[Row], startup: float) -> str:
    lines = [
        "| model | target | cal. | ours cold s | peer cold s | peer figure | cold ratio | ours warm s | warm ratio "
        f"(goal <= {WARM_GOAL}) | CPU s ours cold / peer cold / ours warm | load ours / peer |",
        "| --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for row in rows:
        warm = _ratio(row.ours_warm, row.peer_cold)
        verdict = "" if warm == "-" else (" PASS" if float(warm) <= WARM_GOAL else " FAIL")
        lines.append(
            f"| {row.model} | {row.target} | {row.calibration_samples} | {row.ours_cold:.1f} | "
            f"{_seconds(row.peer_cold)} | {row.peer_source or 'none'} | {_ratio(row.ours_cold, row.peer_cold)} | "
            f"{row.ours_warm:.1f} | {warm}{verdict} | {_seconds(row.ours_cold_cpu)} / {_seconds(row.peer_cold_cpu)} / "
            f"{_seconds(row.ours_warm_cpu)} | {row.load:.1f} / {_peer_load(row)} |"
        )
    paired = [row for row in rows if not math.isnan(row.peer_cold)]
    if paired:
        warm_build = startup + sum(row.ours_warm for row in paired)
        peer_build = sum(row.peer_cold for row in paired)
        ours_cold = sum(row.ours_cold for row in paired)
        lines.append(
            f"| all {len(paired)} with a peer figure | | | {ours_cold:.1f} | {peer_build:.1f} | | "
            f"{ours_cold / peer_build:.2f} | {warm_build:.1f} (incl. {startup:.1f} start-up) | "
            f"{warm_build / peer_build:.2f} | | |"
        )
    return "\n".join(lines)


def goals(rows: list[Row], startup: float) -> str:
    """Issue 12's two goals against ``rows``: PASS / FAIL with the ratio and how far from the goal."""
    model, target, cold_goal = COLD_GOAL
    lines = []
    main = [row for row in rows if (row.model, row.target) == (model, target) and not math.isnan(row.peer_cold)]
    for row in main:
        ratio = row.ours_cold / row.peer_cold
        cpu = "" if math.isnan(row.peer_cold_cpu) else f"; in CPU seconds {row.ours_cold_cpu / row.peer_cold_cpu:.2f}x"
        lines.append(f"{model} {target} cold <= {cold_goal}x the peer: {'PASS' if ratio <= cold_goal else 'FAIL'}, "
                     f"{ratio:.2f}x ({ratio / cold_goal:.1f}x the goal; peer {row.peer_source}{cpu})")
    if not main:
        lines.append(f"{model} {target} cold <= {cold_goal}x the peer: NOT MEASURED")
    paired = [row for row in rows if not math.isnan(row.peer_cold)]
    if paired:
        ratio = (startup + sum(row.ours_warm for row in paired)) / sum(row.peer_cold for row in paired)
        lines.append(f"warm build of {len(paired)} model targets <= {WARM_GOAL}x the peer's cold builds: "
                     f"{'PASS' if ratio <= WARM_GOAL else 'FAIL'}, {ratio:.2f}x ({ratio / WARM_GOAL:.1f}x the goal)")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--models", default=",".join(BENCH_MODELS), help="comma-separated short names")
    parser.add_argument("--targets", default=",".join(BENCH_TARGETS), help="comma-separated targets")
    parser.add_argument("--pairs", help="comma-separated MODEL@TARGET, instead of every model on every target")
    parser.add_argument("--calibration-samples", type=int,
                        help="for every model (default: the --peer-from run's count for its pairs, else the count "
                        "the model's Bazel target uses, 4 or 16)")
    parser.add_argument("--json", type=Path, help="append each row to this file (JSON lines) as it is measured")
    parser.add_argument("--peer-from", type=Path, action="append", default=[],
                        help="a bench.compare --json file (repeatable): the peer's cold figure of its pairs is "
                        "derived from it instead of compiled again (bench/derived_peer.py)")
    parser.add_argument("--no-peer", action="store_true",
                        help="compile only our side; pairs without a --peer-from figure get none")
    parser.add_argument("--rows", type=Path, action="append", default=[],
                        help="render the table of these --json files (repeatable) instead of measuring")
    parser.add_argument("--edge-route", choices=("to_edge", "in_place"), help="our side's arm.compile --edge-route")
    args = parser.parse_args(argv)
    if args.edge_route:
        _EDGE_ROUTE[:] = ["--edge-route", args.edge_route]
    compiles = peer_compiles(args.peer_from)
    if args.rows:
        rows, startup, peer_startup = read_rows(args.rows)
    else:
        pairs = _pairs(parser, args, compiles)
        # The start-up is measured whenever a pair's peer is not compiled here, so that a later --rows
        # rendering with another --peer-from can still derive its figure; a run appending to a --json
        # file that already holds one (a run resumed after a cut) keeps that one.
        earlier = read_rows([args.json])[2] if args.json and args.json.exists() else None
        derive = any(not pair.run_peer for pair in pairs) and earlier is None
        rows, startup, peer_startup = measure(pairs, args.json, derive_peer=derive)
        peer_startup = peer_startup or earlier
    rows = with_derived_peer(rows, peer_startup, compiles)
    if peer_startup is not None:
        print(f"peer start-up (derived figures): {peer_startup.seconds:.1f} s wall, {peer_startup.cpu_seconds:.1f} "
              f"CPU s, load {peer_startup.load:.1f}; model loads: " + ", ".join(
                  f"{model} {seconds:.1f} s" for model, seconds in peer_startup.model_load_seconds.items()))
    print(table(rows, startup))
    print(goals(rows, startup))
    return 0


def _pairs(parser: argparse.ArgumentParser, args: argparse.Namespace,
           compiles: dict[tuple[str, str], PeerCompile]) -> list[Pair]:
    if args.pairs:
        items = [tuple(item.split("@", 1)) for item in args.pairs.split(",") if item]
        malformed = [item for item in items if len(item) != 2]
        if malformed:
            parser.error(f"--pairs wants MODEL@TARGET items, got {malformed}")
    else:
        targets = [target for target in args.targets.split(",") if target]
        items = [(model, target) for model in args.models.split(",") if model for target in targets]
    unknown = sorted({model for model, _ in items if model not in BENCH_MODELS})
    if unknown:
        parser.error(f"unknown models {unknown}; known: {', '.join(BENCH_MODELS)}")
    pairs = []
    for model, target in items:
        # The compare run's count where the peer's figure comes from one, so that the figure can be derived.
        compile_ = compiles.get((model, target))
        samples = args.calibration_samples or (compile_.calibration_samples if compile_ else None)
        samples = samples or build_calibration_samples(model)
        derived = compile_ is not None and compile_.calibration_samples == samples
        pairs.append(Pair(model, target, samples, run_peer=not derived and not args.no_peer))
    return pairs


if __name__ == "__main__":
    sys.exit(main())
