"""Issue 12's figures, each against its goal, measured in one run beside the peer.

    PYTHONPATH=. python -m bench.issue12 --json issue12.json \\
        --reuse-peer-cycles /work/notes/s5/deit_u85.json --reuse-peer-cycles /tmp/attn_bench5/run5.json
    PYTHONPATH=. python -m bench.issue12 --quick                 # DS-CNN only: a few minutes, no QEMU
    PYTHONPATH=. python -m bench.issue12 --render issue12.json   # the table of an earlier run again

Three parts (one process drives them; the timed compiles run in fresh processes), in the order cycles
of the pairs the goals name, edges, compile, cycles of the rest of the zoo (``--zoo``):

1. **edges**: the CPU instructions MobileNetV2 U55-128 runs per inference outside the NPU, with float and
   with int8 I/O, against its NPU cycles (bench/edge_cpu.py: bench/runtime/run.sh's Bazel build of the
   Corstone-300 firmware and QEMU ``-icount``). Goals: <= 30% (float I/O), <= 5% (int8 I/O).
2. **compile**: cold (one fresh process per model, imports included, as a sandboxed Bazel action pays
   it) for ours and the peer, and warm (ours: one request to our persistent lowering worker, one worker
   for all models); bench.compile_time measures both. The peer has no worker, so its warm build is its
   cold build. Goals: MobileNetV2 U55-128 cold <= 0.25x the peer; a warm build of every measured model
   target <= 0.1x the peer's cold builds.
3. **cycles**: Vela total cycles of our .pte against the peer's (bench.compare's analysis, in this
   process). Goals: <= 0.8x on deit_tiny U85-256 and the Llama decoder U85-256 and U55-128; every zoo
   model at or below the peer. Vela's cycles are deterministic for a given TOSA graph and Vela version,
   so with ``--reuse-peer-cycles FILE`` the peer's report of a pair is taken from an earlier
   ``bench.compare --json`` run with the same Vela and calibration count instead of compiled again (the
   peer needs up to an hour per transformer here); the table names the file of every reused figure.
   Compile times are never reused: part 2 measures both sides in this run.

Prints the goal table (markdown) and the per-pair compile and cycles tables; ``--json`` writes every
number, rewritten after each part and each cycles pair (the compile rows are appended to
``<json>.compile.jsonl`` as they are measured), so a run cut short keeps what it measured and
``--render`` shows it.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import datetime
import importlib.metadata
import io
import json
import logging
import math
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Callable, Iterator

from bench import compile_time
from bench.compile_time import Pair, Row, build_calibration_samples
from bench.edge_cpu import FLOAT_IO_PROGRAM, INT8_IO_PROGRAM, EdgeCost, measure_edges
from bench.goal_table import Figure, markdown, summary_lines
from bench.goals import (
    COLD_COMPILE_RATIO,
    EDGE_CPU_FLOAT_IO_RATIO,
    EDGE_CPU_INT8_IO_RATIO,
    MAIN_MODEL,
    MAIN_TARGET,
    TRANSFORMER_CYCLES_RATIO,
    WARM_BUILD_RATIO,
    ZOO_CYCLES_RATIO,
)
from bench.model_list import BENCH_MODELS
from bench import warm_build

_ROOT = Path(__file__).resolve().parents[1]
U55, U85 = "ethos-u55-128", "ethos-u85-256"
_SHORT_TARGET = {U55: "U55-128", U85: "U85-256"}

# The goals (bench/goals.py), and the pairs they name.
COLD_COMPILE_GOAL = (MAIN_MODEL, MAIN_TARGET, COLD_COMPILE_RATIO)
WARM_BUILD_GOAL = WARM_BUILD_RATIO
TRANSFORMER_CYCLES_GOAL = TRANSFORMER_CYCLES_RATIO
TRANSFORMER_CYCLE_PAIRS = (("deit_tiny", U85), ("llama", U85), ("llama", U55))
ZOO_CYCLES_GOAL = ZOO_CYCLES_RATIO
EDGE_CPU_GOALS = {
    FLOAT_IO_PROGRAM: ("float I/O", EDGE_CPU_FLOAT_IO_RATIO),
    INT8_IO_PROGRAM: ("int8 I/O", EDGE_CPU_INT8_IO_RATIO),
}

# The zoo (the "every zoo model"): models/zoo/ and EfficientNet-B0, whose bench rows sit with the
# zoo's (bench/README.md) though it lives in models/.
ZOO_MODELS = (
    *(name for name, factory in BENCH_MODELS.items() if factory.startswith("models.zoo.")),
    "efficientnet_b0",
)

# What a full run measures. Compile: the named models (the peer's cold deit_tiny U85 takes
# 5-30 minutes here); cycles: the transformer goal's pairs and mha_sequence, whose peer figure no
# earlier run kept.
FULL_COMPILE_PAIRS = (  # cheapest first: the peer's cold deit_tiny takes longest, so a cut run loses only it
    ("mv2", U55), ("dscnn", U55), ("transformer", U55), ("mv2", U85),
    ("llama", U55), ("llama", U85), ("deit_tiny", U85),
)
FULL_CYCLE_PAIRS = (*TRANSFORMER_CYCLE_PAIRS, ("mha_sequence", U85), ("mha_sequence", U55))
QUICK_COMPILE_PAIRS = (("dscnn", U55),)
QUICK_CYCLE_PAIRS = (("dscnn", U55),)


@dataclasses.dataclass(frozen=True)
class ReusedPeer:
    """The peer's report of one pair from an earlier bench.compare run."""

    report: dict  # the SideReport as that run's JSON holds it
    calibration_samples: int
    source: str  # "<file> (<date>)"


@dataclasses.dataclass
class CyclePair:
    """Both sides' Vela total cycles of one model and target, and where the peer's come from."""

    model: str
    target: str
    calibration_samples: int
    ours_cycles: int | None
    peer_cycles: int | None
    peer_source: str  # "compiled in this run" or "reused from <file> (<date>)"
    ours_error: str | None = None
    peer_error: str | None = None
    ours_partitions: int | None = None
    peer_partitions: int | None = None


# ---- reading earlier peer reports ---------------------------------------------------------------------


def reusable_peer_reports(paths: list[Path], vela_version: str) -> dict[tuple[str, str], ReusedPeer]:
    """(model, target) -> the peer's report from ``bench.compare --json`` files; later files win.

    Only reports the peer compiled without error, with Vela ``vela_version``, are kept: cycles are
    deterministic only for the same Vela.
    """
    reused: dict[tuple[str, str], ReusedPeer] = {}
    for path in paths:
        document = json.loads(path.read_text())
        run = document.get("run", {})
        if run.get("Vela") != vela_version:
            print(f"{path}: Vela {run.get('Vela')}, not {vela_version}: its peer cycles are not reused",
                  file=sys.stderr)
            continue
        samples = int(run["calibration samples"])
        for comparison in document["comparisons"]:
            peer = comparison.get("peer") or {}
            if peer.get("error") or not (peer.get("vela") or {}).get("total_cycles"):
                continue
            source = f"reused from {path.name} ({run.get('date', 'undated')})"
            reused[(comparison["model"], comparison["target"])] = ReusedPeer(peer, samples, source)
    return reused


# ---- the three parts ------------------------------------------------------------------------------------


def edge_figures(costs: dict[str, EdgeCost], missing: str = "") -> list[Figure]:
    """The two edge goals; ``missing`` says why a program has no row."""
    figures = []
    for program, (io, goal) in EDGE_CPU_GOALS.items():
        cost = costs.get(program)
        figures.append(Figure(
            "edges", f"mv2 U55-128 {io}: CPU instructions outside the NPU / NPU cycles",
            None if cost is None else cost.cpu_instructions, None if cost is None else cost.npu_cycles,
            goal, f"NPU cycles of {program} (Vela), QEMU -icount", unit="instructions",
            note="" if cost else missing or f"run.sh printed no row for {program}",
        ))
    return figures


def compile_figures(rows: list[Row], worker_startup: float) -> list[Figure]:
    model, target, cold_goal = COLD_COMPILE_GOAL
    main = next((row for row in rows if (row.model, row.target) == (model, target)), None)
    peer = "peer, cold, measured in this run"
    name = f"{model} {_SHORT_TARGET[target]} cold compile"
    figures = [
        Figure("compile", f"{name}, wall s", main and main.ours_cold, main and main.peer_cold, cold_goal, peer),
        Figure("compile", f"{name}, CPU s", main and main.ours_cold_cpu, main and main.peer_cold_cpu, cold_goal,
               peer),
    ]
    paired = [row for row in rows if not math.isnan(row.peer_cold)]
    warm = worker_startup + sum(row.ours_warm for row in paired) if paired else None
    figures.append(Figure(
        "compile", f"warm build of {len(paired)} model targets (our worker: start-up + one request each), wall s",
        warm, sum(row.peer_cold for row in paired) if paired else None, WARM_BUILD_GOAL,
        "peer, cold builds in this run (no worker: its warm build is its cold build)",
        note="" if paired else "no pair with a peer figure",
    ))
    return figures


def every_target_figures(build: warm_build.WarmBuild) -> list[Figure]:
    """The warm goal as the issue words it, a build of every model target: our worker measured in the
    run, the peer's compiles from earlier runs' JSON (named per pair in the table); CPU seconds over the
    pairs whose figure has them, wall seconds over all."""
    figures = []
    for total in warm_build.totals(build):
        figures.append(Figure(
            "compile", f"warm build of every model target with a peer {total.unit} figure ({total.pairs} "
            f"pairs; our worker: start-up + one request each), {total.unit}",
            total.ours, total.peer, WARM_BUILD_GOAL,
            "peer, compiles reused from earlier runs (file per pair in the table below; in-process ones "
            "leave out its imports and model loads)",
        ))
    return figures


def cycle_figures(pairs: list[CyclePair]) -> list[Figure]:
    figures = []
    for pair in pairs:
        goal = TRANSFORMER_CYCLES_GOAL if (pair.model, pair.target) in TRANSFORMER_CYCLE_PAIRS else ZOO_CYCLES_GOAL
        note = "; ".join(f"{side} failed: {error}" for side, error in (("ours", pair.ours_error),
                                                                          ("peer", pair.peer_error)) if error)
        figures.append(Figure(
            "cycles", f"{pair.model} {_SHORT_TARGET.get(pair.target, pair.target)} Vela total cycles",
            pair.ours_cycles, pair.peer_cycles, goal, f"peer, {pair.peer_source}", unit="cycles", note=note,
        ))
    zoo = [figure for pair, figure in zip(pairs, figures) if pair.model in ZOO_MODELS]
    measured = [figure for figure in zoo if figure.ratio is not None]
    if zoo:
        worst = max(measured, key=lambda figure: figure.ratio, default=None)
        above = sum(figure.ratio > ZOO_CYCLES_GOAL for figure in measured)
        figures.append(Figure(
            "cycles", f"every zoo pair at or below the peer: {above} of {len(measured)} measured above it "
            f"({len(zoo) - len(measured)} not measured); worst: {worst.name if worst else '-'}",
            worst and worst.ours, worst and worst.base, ZOO_CYCLES_GOAL, worst.base_source if worst else "-",
            unit="cycles", note="" if worst else "no zoo pair measured on both sides",
        ))
    return figures


def measure_cycles(pairs: list[tuple[str, str]], reused: dict[tuple[str, str], ReusedPeer]) -> Iterator[CyclePair]:
    """Compiles our side of each pair (and the peer's where no report is reused) in this process; yields
    each pair as it is measured."""
    import torch

    from arm.model_spec import load_model_spec
    from bench import ours, peer

    # Import-time notices (pytree deprecations, CUDA kernels absent) would bury the progress lines.
    logging.getLogger("torchao").setLevel(logging.ERROR)
    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
    warnings.filterwarnings("ignore", category=FutureWarning)
    torch.set_num_threads(1)
    ours.warm_up()
    peer.warm_up()
    for model, target in pairs:
        earlier = reused.get((model, target))
        samples = earlier.calibration_samples if earlier else build_calibration_samples(model)
        print(f"cycles: {model} {target} ({samples} calibration samples) ...", file=sys.stderr, flush=True)
        try:
            spec = load_model_spec(BENCH_MODELS[model])
        except Exception as error:  # a model that does not load is a row with its reason, not a crash
            failed = {"error": f"{type(error).__name__}: {error}"}
            reports = {"ours": failed, "peer": earlier.report if earlier else failed}
        else:
            reports = {"ours": _side_cycles(ours.compile_ours, spec, target, samples)}
            reports["peer"] = earlier.report if earlier else _side_cycles(peer.compile_peer, spec, target, samples)
        ours_report, peer_report = reports["ours"], reports["peer"]
        pair = CyclePair(
            model, target, samples, _total_cycles(ours_report), _total_cycles(peer_report),
            earlier.source if earlier else "compiled in this run",
            ours_report.get("error"), peer_report.get("error"),
            ours_report.get("partitions"), peer_report.get("partitions"),
        )
        print(f"cycles: {model} {target}: ours {pair.ours_cycles}, peer {pair.peer_cycles}", file=sys.stderr,
              flush=True)
        yield pair


def _side_cycles(compiler: Callable, spec: object, target: str, samples: int) -> dict:
    """One side's Vela numbers and partitions, as bench.compare's report holds them; a failure is its
    ``error``. Only what the cycles goals read: bench.compare's accuracy check is not run here."""
    import copy

    from bench.pte_program import read_pte
    from bench.vela_report import vela_numbers

    fresh = dataclasses.replace(spec, module=copy.deepcopy(spec.module))  # neither side sees the other's changes
    try:
        with contextlib.redirect_stdout(io.StringIO()):  # Vela prints its performance report
            compiled = compiler(fresh, target, samples)
        vela = vela_numbers(compiled.vela_summaries)
        partitions = sum(read_pte(compiled.pte).partitions.values())
    except Exception as error:  # either flow may fail on a model: the table says so, the run goes on
        lines = str(error).strip().splitlines()
        return {"error": f"{type(error).__name__}: {lines[0] if lines else '(no message)'}"}
    return {"vela": vela and dataclasses.asdict(vela), "partitions": partitions, "error": None}


def _total_cycles(report: dict) -> int | None:
    return (report.get("vela") or {}).get("total_cycles")


# ---- the run --------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Run:
    """Everything one run measured; the JSON file holds it as written here."""

    meta: dict = dataclasses.field(default_factory=dict)
    part_seconds: dict[str, float] = dataclasses.field(default_factory=dict)
    edges: dict[str, dict] = dataclasses.field(default_factory=dict)
    edges_error: str = ""
    compile_rows: list[dict] = dataclasses.field(default_factory=list)
    worker_startup: float = math.nan
    cycles: list[dict] = dataclasses.field(default_factory=list)
    every_target: dict = dataclasses.field(default_factory=dict)  # bench.warm_build's WarmBuild, as JSON

    def figures(self) -> list[Figure]:
        figures = []
        if self.edges or self.edges_error:
            figures += edge_figures({name: EdgeCost(**cost) for name, cost in self.edges.items()}, self.edges_error)
        if self.compile_rows:
            figures += compile_figures([Row(**row) for row in self.compile_rows], self.worker_startup)
        if self.every_target:
            figures += every_target_figures(warm_build.from_json(self.every_target))
        if self.cycles:
            figures += cycle_figures([CyclePair(**pair) for pair in self.cycles])
        return figures


def _write(run: Run, path: Path | None) -> None:
    if path is None:
        return
    document = {**dataclasses.asdict(run), "figures": [figure.as_json() for figure in run.figures()]}
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(document, indent=2) + "\n")
    partial.replace(path)


def read_run(path: Path) -> Run:
    """The run a --json file holds; if it was cut during the compile part, with the compile rows
    bench.compile_time had appended beside it by then."""
    document = json.loads(path.read_text())
    fields = {field.name for field in dataclasses.fields(Run)}
    result = Run(**{key: value for key, value in document.items() if key in fields})
    rows_file = _compile_rows_file(path)
    if not result.compile_rows and rows_file.exists():
        rows, startup, _ = compile_time.read_rows([rows_file])
        result.compile_rows = [dataclasses.asdict(row) for row in rows]
        result.worker_startup = startup
        result.meta["compile part"] = f"cut short: the rows {rows_file.name} holds"
    return result


def _meta(args: argparse.Namespace) -> dict:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=_ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=_ROOT,
                           capture_output=True, text=True)
    versions = ", ".join(f"{name} {importlib.metadata.version(name)}"
                         for name in ("torch", "executorch", "ethos-u-vela", "tosa-tools"))
    return {
        "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "commit": commit.stdout.strip() + (" (with uncommitted changes)" if dirty.stdout.strip() else ""),
        "versions": versions,
        "machine": f"{os.cpu_count()} cores, load average at start {os.getloadavg()[0]:.1f}",
        "torch threads": "1 on both sides",
        "mode": "quick" if args.quick else "full",
        "peer cycles reused from": [str(path) for path in args.reuse_peer_cycles],
    }


def run(args: argparse.Namespace) -> Run:
    result = Run(meta=_meta(args))
    compile_pairs = _pairs(args.compile_pairs) or list(QUICK_COMPILE_PAIRS if args.quick else FULL_COMPILE_PAIRS)
    cycle_pairs = _pairs(args.cycle_pairs) or list(QUICK_CYCLE_PAIRS if args.quick else FULL_CYCLE_PAIRS)
    vela = importlib.metadata.version("ethos-u-vela")
    reused = reusable_peer_reports(args.reuse_peer_cycles, vela)
    zoo_extra = [pair for pair in reused if args.zoo and pair[0] in ZOO_MODELS and pair not in cycle_pairs]
    cycle_pairs += zoo_extra
    started = time.perf_counter()

    # The cycles the goals name, the CPU at the edges (a Bazel build, cached after the first), the timed
    # compiles (the peer's cold deit_tiny last), then the rest of the zoo's cycles: a run cut short loses
    # the least wanted part.
    named = [pair for pair in cycle_pairs if pair not in zoo_extra]
    _count_cycles(result, named, reused, args.json)
    if not args.quick and not args.no_edges:
        _measure_edges(result, args)
    pairs = [Pair(model, target, build_calibration_samples(model), run_peer=True) for model, target in compile_pairs]
    start = time.perf_counter()
    rows, startup, _ = compile_time.measure(pairs, _compile_rows_file(args.json))
    result.compile_rows = [dataclasses.asdict(row) for row in rows]
    result.worker_startup = startup
    result.part_seconds["compile"] = time.perf_counter() - start
    _write(result, args.json)
    if args.every_target_peer_from:
        _measure_every_target(result, args)
    _count_cycles(result, zoo_extra, reused, args.json)
    result.part_seconds["whole run"] = time.perf_counter() - started
    result.meta["load average at end"] = f"{os.getloadavg()[0]:.1f}"
    _write(result, args.json)
    return result


def _measure_every_target(result: Run, args: argparse.Namespace) -> None:
    """A warm build of every pair some --every-target-peer-from file has a figure for (bench.warm_build)."""
    start = time.perf_counter()
    peer = warm_build.peer_figures(args.every_target_peer_from)
    pairs = [(model, target, figure.calibration_samples) for (model, target), figure in sorted(peer.items())]
    build = warm_build.measure(pairs, peer, _every_target_file(args.json))
    result.every_target = dataclasses.asdict(build)
    result.part_seconds["every target"] = time.perf_counter() - start
    _write(result, args.json)


def _every_target_file(path: Path | None) -> Path | None:
    return None if path is None else path.with_name(path.name + ".every_target.json")


def _measure_edges(result: Run, args: argparse.Namespace) -> None:
    start = time.perf_counter()
    print("edges: bench/runtime/run.sh (Bazel build for Corstone-300, QEMU -icount) ...", file=sys.stderr,
          flush=True)
    try:
        costs, output = measure_edges(args.bazel_startup_flags)
        result.edges = {name: dataclasses.asdict(cost) for name, cost in costs.items()}
        print(output, file=sys.stderr, flush=True)
    except RuntimeError as error:  # the other parts still run; the table says why these are missing
        result.edges_error = str(error).splitlines()[0]
        print(error, file=sys.stderr, flush=True)
    result.part_seconds["edges"] = time.perf_counter() - start
    _write(result, args.json)


def _count_cycles(result: Run, pairs: list[tuple[str, str]], reused: dict, path: Path | None) -> None:
    if not pairs:
        return
    start = time.perf_counter()
    for pair in measure_cycles(pairs, reused):
        result.cycles.append(dataclasses.asdict(pair))
        _write(result, path)  # after every pair: a run cut short keeps what it counted
    result.part_seconds["cycles"] = result.part_seconds.get("cycles", 0.0) + time.perf_counter() - start
    _write(result, path)


def _compile_rows_file(path: Path | None) -> Path | None:
    """Where bench.compile_time appends each compile row as it is measured (beside the --json file)."""
    return None if path is None else path.with_name(path.name + ".compile.jsonl")


def _pairs(text: str | None) -> list[tuple[str, str]]:
    if not text:
        return []
    pairs = [tuple(item.split("@", 1)) for item in text.split(",") if item]
    wrong = [item for item in pairs if len(item) != 2 or item[0] not in BENCH_MODELS]
    if wrong:
        raise SystemExit(f"want MODEL@TARGET items with models from {', '.join(BENCH_MODELS)}; got {wrong}")
    return pairs


def render(result: Run) -> str:
    figures = result.figures()
    parts = [
        "run: " + "; ".join(f"{key} {value}" for key, value in result.meta.items()),
        "seconds per part: " + ", ".join(f"{part} {seconds:.0f}" for part, seconds in result.part_seconds.items()),
        "",
        markdown(figures),
        "",
        *summary_lines(figures),
    ]
    if result.compile_rows:
        rows = [Row(**row) for row in result.compile_rows]
        parts += ["", "Compile, every pair (bench.compile_time's table):", "",
                  compile_time.table(rows, result.worker_startup)]
    if result.every_target:
        parts += ["", "Warm build of every model target (bench.warm_build's table):", "",
                  warm_build.table(warm_build.from_json(result.every_target))]
    if result.cycles:
        parts += ["", "Cycles, every pair:", "", _cycles_table([CyclePair(**pair) for pair in result.cycles])]
    return "\n".join(parts)


def _cycles_table(pairs: list[CyclePair]) -> str:
    lines = ["| model | target | cal. | Vela total cycles ours / peer | ratio | partitions ours / peer | peer figure |",
             "| --- | --- | ---: | ---: | ---: | ---: | --- |"]
    for pair in pairs:
        ratio = "-" if not (pair.ours_cycles and pair.peer_cycles) else f"{pair.ours_cycles / pair.peer_cycles:.3f}"
        cycles = " / ".join("-" if value is None else f"{value:,}" for value in (pair.ours_cycles, pair.peer_cycles))
        partitions = " / ".join("-" if value is None else str(value)
                                for value in (pair.ours_partitions, pair.peer_partitions))
        lines.append(f"| {pair.model} | {pair.target} | {pair.calibration_samples} | {cycles} | {ratio} | "
                     f"{partitions} | {pair.peer_source} |")
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bench.issue12", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--json", type=Path, help="write every number here (rewritten after each part)")
    parser.add_argument("--quick", action="store_true",
                        help=f"compile {QUICK_COMPILE_PAIRS} and count the cycles of {QUICK_CYCLE_PAIRS} only, "
                        "no QEMU: a few minutes")
    parser.add_argument("--reuse-peer-cycles", type=Path, action="append", default=[],
                        help="a bench.compare --json file (repeatable): the peer's Vela cycles of its pairs are "
                        "taken from it (same Vela version) instead of compiled again; the table says so")
    parser.add_argument("--zoo", action="store_true",
                        help="also count the cycles of every zoo pair that has a reusable peer report")
    parser.add_argument("--compile-pairs", help="MODEL@TARGET,... to time instead of the default set")
    parser.add_argument("--cycle-pairs", help="MODEL@TARGET,... to count cycles of instead of the default set")
    parser.add_argument("--no-edges", action="store_true", help="skip the QEMU part (it builds with Bazel)")
    parser.add_argument("--bazel-startup-flags", default="", help="for run.sh's Bazel, e.g. --output_base=...")
    parser.add_argument("--every-target-peer-from", type=Path, action="append", default=[],
                        help="a bench.compare or bench.issue12 --json file with the peer's compile figures "
                        "(repeatable): also time a warm build of every pair they cover (bench.warm_build)")
    parser.add_argument("--every-target-from", type=Path,
                        help="with --render: a bench.warm_build --json file to show as the every-target row")
    parser.add_argument("--render", type=Path, help="print the tables of an earlier --json file; measure nothing")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    result = read_run(args.render) if args.render else run(args)
    if args.every_target_from:
        result.every_target = json.loads(args.every_target_from.read_text())
    print(render(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
