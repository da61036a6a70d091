"""A warm build of every model target: our persistent worker answers one request per target, against the
peer's compile of the same targets.

    PYTHONPATH=. python -m bench.warm_build --pairs yolov8n@ethos-u85-256,llama@ethos-u55-128 \\
        --peer-from /work/notes/s6/zoo_peer/zoo4.json --json warm_build.json
    PYTHONPATH=. python -m bench.warm_build --render warm_build.json

Ours is measured in the run: one ``arm.compile --persistent_worker`` (arm/compile_worker.py, spoken to as
Bazel does), whose start-up (imports, a first tiny request) the build pays once, then one request per
pair. CPU seconds are the worker's and its Vela server's (a child process; its CPU is not in the worker's
own counters), read from /proc before and after each request.

The peer has no worker, so its warm build is its cold build. It needs 1-60 minutes per model here, so
its figure per pair comes from earlier runs' JSON, named per row (``--peer-from``, later files win): a
``bench.compare --json`` run gives its in-process compile (torch.export to .pte bytes; CPU seconds where
that run recorded them), a ``bench.issue12 --json`` run its measured cold process (imports included).
An in-process figure leaves out the peer's imports and model load, which its cold build pays: against it,
our ratio is an upper bound. CPU seconds are the figure to compare (a loaded machine stretches wall time
5-20x, and the runs ran at different loads); wall seconds are shown beside them.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

from bench.model_list import BENCH_MODELS
from bench.process_cpu import tree_cpu_seconds


@dataclasses.dataclass(frozen=True)
class PeerFigure:
    """The peer's compile of one pair, from an earlier run."""

    seconds: float  # wall
    cpu_seconds: float | None  # None: that run did not record them
    calibration_samples: int
    kind: str  # "in-process compile" or "cold process"
    source: str  # "<file> (<date>)"
    load: float | None


def peer_figures(paths: list[Path]) -> dict[tuple[str, str], PeerFigure]:
    """(model, target) -> the peer's figure; a later file wins, and a figure with CPU seconds wins over
    one without."""
    figures: dict[tuple[str, str], PeerFigure] = {}

    def keep(key: tuple[str, str], figure: PeerFigure) -> None:
        earlier = figures.get(key)
        if earlier is None or figure.cpu_seconds is not None or earlier.cpu_seconds is None:
            figures[key] = figure

    for path in paths:
        document = json.loads(path.read_text())
        if "comparisons" in document:  # bench.compare
            run = document.get("run", {})
            source = f"{path.name} ({run.get('date', 'undated')})"
            for comparison in document["comparisons"]:
                peer = comparison.get("peer") or {}
                if peer.get("error") or not peer.get("seconds"):
                    continue
                keep((comparison["model"], comparison["target"]), PeerFigure(
                    float(peer["seconds"]), peer.get("cpu_seconds"), int(run["calibration samples"]),
                    "in-process compile", source, peer.get("load_average")))
        for row in document.get("compile_rows", []):  # bench.issue12
            if row.get("peer_source") != "measured" or not row.get("peer_cold_cpu"):
                continue
            source = f"{path.name} ({document.get('meta', {}).get('started', 'undated')})"
            keep((row["model"], row["target"]), PeerFigure(
                row["peer_cold"], row["peer_cold_cpu"], row["calibration_samples"], "cold process", source,
                row.get("load")))
    return figures


@dataclasses.dataclass
class WarmRequest:
    model: str
    target: str
    calibration_samples: int
    seconds: float
    cpu_seconds: float
    load: float


@dataclasses.dataclass
class WarmBuild:
    """One worker's start-up and its requests; the peer's figures beside them."""

    startup_seconds: float = math.nan
    startup_cpu_seconds: float = math.nan
    requests: list[WarmRequest] = dataclasses.field(default_factory=list)
    peer: dict[str, dict] = dataclasses.field(default_factory=dict)  # "model@target" -> PeerFigure
    started: str = ""

    def pairs(self) -> list[tuple[WarmRequest, PeerFigure | None]]:
        return [(request, _peer(self.peer.get(f"{request.model}@{request.target}"))) for request in self.requests]


def _peer(record: dict | None) -> PeerFigure | None:
    return None if record is None else PeerFigure(**record)


def measure(pairs: list[tuple[str, str, int]], peer: dict[tuple[str, str], PeerFigure],
            path: Path | None = None) -> WarmBuild:
    """Starts one worker and sends it a tiny warm-up request, then one request per pair (in order);
    writes the build to ``path`` after each request, so a run cut short keeps what it measured."""
    from bench.compile_time import _Worker  # spoken to as Bazel does

    build = WarmBuild(started=time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()))
    build.peer = {f"{m}@{t}": dataclasses.asdict(peer[(m, t)]) for m, t, _ in pairs if (m, t) in peer}
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        start, worker = time.perf_counter(), _Worker(workdir)
        _request(worker, "models.small_cnn:model", "ethos-u55-128", 1, workdir)
        build.startup_seconds = time.perf_counter() - start
        build.startup_cpu_seconds = tree_cpu_seconds(worker.process.pid)
        for model, target, samples in pairs:
            cpu_before, wall_before = tree_cpu_seconds(worker.process.pid), time.perf_counter()
            _request(worker, BENCH_MODELS[model], target, samples, workdir)
            request = WarmRequest(model, target, samples, time.perf_counter() - wall_before,
                                  tree_cpu_seconds(worker.process.pid) - cpu_before, os.getloadavg()[0])
            build.requests.append(request)
            print(f"warm {model} {target} ({samples} samples): {request.seconds:.1f} s, {request.cpu_seconds:.1f} "
                  f"CPU s (load {request.load:.1f})", file=sys.stderr, flush=True)
            write(build, path)
        worker.close()
    return build


def _request(worker: object, factory: str, target: str, samples: int, workdir: Path) -> None:
    worker.compile(["--model", factory, "--target", target, "--output", str(workdir / "warm.pte"),
                    "--calibration-samples", str(samples)])


def write(build: WarmBuild, path: Path | None) -> None:
    if path is not None:
        path.write_text(json.dumps(dataclasses.asdict(build), indent=2) + "\n")


def read(path: Path) -> WarmBuild:
    return from_json(json.loads(path.read_text()))


def from_json(record: dict) -> WarmBuild:
    """The WarmBuild ``write`` recorded (also as it stands inside bench.issue12's JSON)."""
    fields = dict(record)
    fields["requests"] = [WarmRequest(**request) for request in fields["requests"]]
    return WarmBuild(**fields)


@dataclasses.dataclass(frozen=True)
class Totals:
    """One sum over the pairs with a peer figure in the unit named: ours (start-up included) and the peer's."""

    unit: str  # "CPU s" or "wall s"
    pairs: int
    ours: float
    peer: float


def totals(build: WarmBuild) -> list[Totals]:
    """CPU seconds over the pairs whose peer figure has them; wall seconds over every pair with a figure."""
    paired = [(request, figure) for request, figure in build.pairs() if figure is not None]
    with_cpu = [(request, figure) for request, figure in paired if figure.cpu_seconds is not None]
    sums = []
    if with_cpu:
        sums.append(Totals("CPU s", len(with_cpu), build.startup_cpu_seconds + sum(r.cpu_seconds for r, _ in with_cpu),
                           sum(f.cpu_seconds for _, f in with_cpu)))
    if paired:
        sums.append(Totals("wall s", len(paired), build.startup_seconds + sum(r.seconds for r, _ in paired),
                           sum(f.seconds for _, f in paired)))
    return sums


def table(build: WarmBuild) -> str:
    lines = [
        "| model | target | cal. | ours warm CPU s | peer CPU s | ratio | ours warm s | peer s | ratio | peer figure | load ours / peer |",
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |",
    ]
    for request, figure in build.pairs():
        peer_cpu = figure.cpu_seconds if figure else None
        lines.append(
            f"| {request.model} | {request.target} | {request.calibration_samples} | {request.cpu_seconds:.1f} | "
            f"{_number(peer_cpu)} | {_ratio(request.cpu_seconds, peer_cpu)} | {request.seconds:.1f} | "
            f"{_number(figure and figure.seconds)} | {_ratio(request.seconds, figure and figure.seconds)} | "
            f"{f'{figure.kind}, {figure.source}' if figure else 'none'} | {request.load:.1f} / "
            f"{_number(figure and figure.load)} |"
        )
    for total in totals(build):
        lines.append(f"| all {total.pairs} with a peer {total.unit} figure, worker start-up included | | | "
                     f"{total.ours:.1f} | {total.peer:.1f} | {total.ours / total.peer:.3f} | | | | {total.unit} | |")
    lines.append(f"\nWorker start-up (imports, a first tiny request): {build.startup_seconds:.1f} s, "
                 f"{build.startup_cpu_seconds:.1f} CPU s.")
    return "\n".join(lines)


def _number(value: float | None) -> str:
    return "-" if value is None or math.isnan(value) else f"{value:.1f}"


def _ratio(ours: float, peer: float | None) -> str:
    return "-" if not peer else f"{ours / peer:.3f}"


def main(argv: list[str] | None = None) -> int:
    from bench.compile_time import build_calibration_samples

    parser = argparse.ArgumentParser(prog="bench.warm_build", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pairs", help="MODEL@TARGET,... (default: every pair some --peer-from file has)")
    parser.add_argument("--peer-from", type=Path, action="append", default=[],
                        help="bench.compare or bench.issue12 --json file with the peer's figures (repeatable)")
    parser.add_argument("--json", type=Path, help="write the build here (after every request)")
    parser.add_argument("--render", type=Path, help="print the table of an earlier --json file; measure nothing")
    args = parser.parse_args(argv)
    peer = peer_figures(args.peer_from)
    if args.render:
        build = read(args.render)
        if args.peer_from:  # figures that came later (a peer run that finished after ours)
            build.peer = {f"{r.model}@{r.target}": dataclasses.asdict(peer[(r.model, r.target)])
                          for r in build.requests if (r.model, r.target) in peer}
        print(table(build))
        return 0
    items = [tuple(item.split("@", 1)) for item in args.pairs.split(",")] if args.pairs else sorted(peer)
    unknown = [item for item in items if len(item) != 2 or item[0] not in BENCH_MODELS]
    if unknown:
        parser.error(f"want MODEL@TARGET items with models from {', '.join(BENCH_MODELS)}; got {unknown}")
    # The peer figure's calibration count, so that both sides compile the same thing.
    pairs = [(m, t, peer[(m, t)].calibration_samples if (m, t) in peer else build_calibration_samples(m))
             for m, t in items]
    print(table(measure(pairs, peer, args.json)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
