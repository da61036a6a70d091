"""Issue 9's "done" matrix in one command: every zoo model on tosa-INT, Ethos-U55-128 and U85-256, ours
compiled now against the peer's saved figures, with a verdict per criterion (bench/zoo_matrix.py).

    PYTHONPATH=. python -m bench.zoo_audit --peer-from a.json,b.json --cache ours.json --markdown matrix.md
    PYTHONPATH=. python -m bench.zoo_audit --pairs llama@ethos-u55-128 ...    # recompile only these pairs
    PYTHONPATH=. python -m bench.zoo_audit --render-only ...                    # the matrix from the cache
    PYTHONPATH=. python -m bench.zoo_audit --run-peer --pairs kws_conv1d@tosa-INT --peer-out peer.json

Our side: ``bench.analysis.compile_and_analyze`` with our flow (what bench.compare compiles), one pair at a
time, kept per pair in the ``--cache`` JSON: a run compiles the pairs the cache lacks, and with ``--pairs``
those pairs again. Each pair is compiled with the calibration count of the peer's figure for it (4 unless
the saved run used another), so both sides quantize from the same samples.

The peer's side: the ``--peer-from`` files, ``bench.compare --json`` outputs (or ``--run-peer`` outputs,
the same format); where several hold a pair, the latest run wins. The peer takes minutes to an hour a
model on this machine and its figures do not change while our flow does, so it is never compiled here
unless asked: ``--run-peer`` compiles the peer's side of ``--pairs`` (one at a time, in the order given)
and adds them to ``--peer-out``. A peer figure saved before the float64 error measure gets it from
``bench.peer_agreement`` (the peer's quantized model rebuilt, its saved TOSA graph), whose output file
goes into ``--peer-from`` like any other.

The error verdict compares the float64 figures (bench/zoo_matrix.py); the matrix prints the measure.
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import functools
import gc
import json
import subprocess
import sys
from pathlib import Path

from bench.analysis import SideReport
from bench.compare_saved import side_report_from_dict
from bench.model_list import BENCH_MODELS
from bench.zoo_matrix import AuditRow, error_figures, render

# The zoo (models/zoo/) and EfficientNet-B0, cheapest compile first, so a run cut short has the most rows.
ZOO_MODELS = (
    "kws_conv1d",
    "mha_sequence",
    "llama",
    "bert",
    "conformer",
    "squeezenet",
    "yolov8n",
    "regnet",
    "convnext_atto",
    "efficientnet_b0",
    "mobilevit_xxs",
    "deit_tiny",
)
AUDIT_TARGETS = ("tosa-INT", "ethos-u55-128", "ethos-u85-256")
DEFAULT_CALIBRATION_SAMPLES = 4
TORCH_THREADS = 1  # as bench.compare: two intra-op threads slow calibration on a loaded 2-core machine


@dataclasses.dataclass(frozen=True)
class SavedPeer:
    """The peer's report for one pair and where it came from."""

    report: SideReport
    source: str
    calibration_samples: int
    date: str


def all_pairs() -> list[tuple[str, str]]:
    return [(model, target) for model in ZOO_MODELS for target in AUDIT_TARGETS]


def parse_pairs(text: str | None) -> list[tuple[str, str]]:
    """``MODEL@TARGET,...`` -> pairs, checked against the zoo and the audit's targets."""
    if not text:
        return []
    pairs = []
    for item in (item.strip() for item in text.split(",")):
        if not item:
            continue
        model, _, target = item.partition("@")
        if model not in ZOO_MODELS or target not in AUDIT_TARGETS:
            raise SystemExit(
                f"--pairs item {item!r}: want MODEL@TARGET with MODEL in {', '.join(ZOO_MODELS)} "
                f"and TARGET in {', '.join(AUDIT_TARGETS)}"
            )
        pairs.append((model, target))
    return pairs


def load_peer_figures(paths: list[Path]) -> dict[tuple[str, str], SavedPeer]:
    """(model, target) -> the peer's report from the latest of ``paths`` that holds the pair."""
    figures: dict[tuple[str, str], SavedPeer] = {}
    for path in paths:
        document = json.loads(path.read_text())
        run = document.get("run", {})
        date = run.get("date", "")
        samples = int(run.get("calibration samples", DEFAULT_CALIBRATION_SAMPLES))
        for comparison in document["comparisons"]:
            peer = comparison.get("peer")
            if not peer or _is_partial(peer):
                continue
            key = (comparison["model"], comparison["target"])
            when = comparison.get("date", date)  # --run-peer and hand-made files date each pair
            pair_samples = int(comparison.get("calibration samples", samples))  # bench.peer_agreement's files
            saved = SavedPeer(side_report_from_dict(peer), f"{path.name} ({when})", pair_samples, when)
            if key not in figures or when >= figures[key].date:
                figures[key] = saved
    return figures


def _is_partial(peer: dict) -> bool:
    # Hand-transcribed logs (e.g. deit_run1_log.json) hold only compile seconds: not a figure to judge by.
    return not peer.get("error") and peer.get("partitions") is None


class OurCache:
    """Our reports per pair in one JSON file, rewritten whole after every pair (a cut run keeps its rows)."""

    def __init__(self, path: Path):
        self.path = path
        self.entries: dict[str, dict] = json.loads(path.read_text())["pairs"] if path.exists() else {}

    def report(self, model: str, target: str) -> SideReport | None:
        entry = self.entries.get(f"{model}@{target}")
        return None if entry is None else side_report_from_dict(entry["report"])

    def samples(self, model: str, target: str) -> int | None:
        entry = self.entries.get(f"{model}@{target}")
        return None if entry is None else entry["calibration_samples"]

    def put(self, model: str, target: str, report: SideReport, samples: int) -> None:
        self.entries[f"{model}@{target}"] = {
            "calibration_samples": samples,
            "commit": source_commit(),
            "date": now_utc(),
            "report": dataclasses.asdict(report),
        }
        write_json(self.path, {"pairs": self.entries})


def source_commit() -> str:
    """This checkout's commit (with ``-dirty`` when it has uncommitted changes), as the figures' provenance."""
    root = Path(__file__).resolve().parent.parent
    try:
        return subprocess.run(
            ["git", "-C", str(root), "describe", "--always", "--dirty", "--abbrev=12"],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def now_utc() -> str:
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")


def write_json(path: Path, document: dict) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(document, indent=2) + "\n")
    partial.replace(path)


def pairs_to_compile(
    requested: list[tuple[str, str]], cache: OurCache, samples_for: dict[tuple[str, str], int]
) -> list[tuple[str, str]]:
    """--pairs as given (compiled again even when cached); without it, every pair the cache lacks or
    holds with another calibration count than ``samples_for`` (the peer's figure's) asks."""
    if requested:
        return requested
    return [
        (model, target)
        for model, target in all_pairs()
        if cache.samples(model, target) != samples_for.get((model, target), DEFAULT_CALIBRATION_SAMPLES)
    ]


def compile_ours(
    model: str, target: str, samples: int, dump_dir: Path | None, lookups: str | None = None
) -> SideReport:
    from arm.model_spec import load_model_spec
    from bench import ours
    from bench.analysis import compile_and_analyze
    from bench.compare import dumping

    compiler = functools.partial(ours.compile_ours, lookups=lookups) if lookups else ours.compile_ours
    if dump_dir is not None:
        compiler = dumping(compiler, dump_dir / f"{model}_{target}_ours")
    return compile_and_analyze("ours", compiler, load_model_spec(BENCH_MODELS[model]), target, samples)


def compile_peer(model: str, target: str, samples: int, dump_dir: Path | None) -> SideReport:
    from arm.model_spec import load_model_spec
    from bench import peer
    from bench.analysis import compile_and_analyze
    from bench.compare import dumping

    compiler = peer.compile_peer
    if dump_dir is not None:
        compiler = dumping(compiler, dump_dir / f"{model}_{target}_peer")
    return compile_and_analyze("peer", compiler, load_model_spec(BENCH_MODELS[model]), target, samples)


def _prepare_torch() -> None:
    import torch

    from bench import ours

    torch.set_num_threads(TORCH_THREADS)
    ours.warm_up()


def run_peer(pairs: list[tuple[str, str]], out: Path, samples: int, dump_dir: Path | None) -> None:
    """Compiles the peer's side of ``pairs`` and adds each to ``out`` (bench.compare's --json format)."""
    document = json.loads(out.read_text()) if out.exists() else {"run": {}, "comparisons": []}
    document["run"].update({"calibration samples": str(samples), "date": now_utc(), "by": "bench.zoo_audit --run-peer"})
    _prepare_torch()
    for model, target in pairs:
        gc.collect()
        print(f"compiling {model} for {target}: peer ...", file=sys.stderr, flush=True)
        report = compile_peer(model, target, samples, dump_dir)
        comparisons = [c for c in document["comparisons"] if (c["model"], c["target"]) != (model, target)]
        comparisons.append({"model": model, "target": target, "date": now_utc(), "peer": dataclasses.asdict(report)})
        document["comparisons"] = comparisons
        write_json(out, document)
        print(f"{model}@{target}: peer {'FAILED: ' + report.error if report.error else 'ok'}", flush=True)


def audit_rows(cache: OurCache, peers: dict[tuple[str, str], SavedPeer]) -> list[AuditRow]:
    rows = []
    for model, target in all_pairs():
        saved = peers.get((model, target))
        rows.append(
            AuditRow(
                model=model,
                target=target,
                ours=cache.report(model, target),
                peer=None if saved is None else saved.report,
                peer_source="" if saved is None else saved.source,
                calibration_samples=cache.samples(model, target) or DEFAULT_CALIBRATION_SAMPLES,
            )
        )
    return rows


def peer_sources(rows: list[AuditRow]) -> str:
    lines = [f"- {row.pair}: {row.peer_source}" for row in rows if row.peer_source]
    return "\n".join(["The peer's figures, by pair:", *lines])


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bench.zoo_audit", description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", help="MODEL@TARGET,... to compile (again); default: every pair the cache lacks")
    parser.add_argument(
        "--peer-from", default="", help="comma-separated bench.compare --json files holding the peer's figures"
    )
    parser.add_argument("--cache", type=Path, default=Path("zoo_audit_ours.json"), help="our reports, per pair")
    parser.add_argument("--dump-dir", type=Path, help="write each compile's TOSA graphs and Vela per-layer CSVs here")
    parser.add_argument("--markdown", type=Path, help="also write the matrix to this file")
    parser.add_argument("--render-only", action="store_true", help="compile nothing: the matrix from the cache")
    parser.add_argument("--run-peer", action="store_true", help="compile the peer's side of --pairs instead")
    parser.add_argument("--peer-out", type=Path, help="with --run-peer: the JSON to add the peer's reports to")
    parser.add_argument("--calibration-samples", type=int, default=DEFAULT_CALIBRATION_SAMPLES)
    parser.add_argument(
        "--lookups",
        choices=("cost", "npu"),
        help="our Ethos-U lookup placement (arm.compile --lookups); give such a run its own --cache",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    requested = parse_pairs(args.pairs)
    if args.run_peer:
        if not requested or args.peer_out is None:
            raise SystemExit("--run-peer needs --pairs and --peer-out")
        run_peer(requested, args.peer_out, args.calibration_samples, args.dump_dir)
        return 0

    peers = load_peer_figures([Path(path) for path in args.peer_from.split(",") if path])
    cache = OurCache(args.cache)
    samples_for = {pair: saved.calibration_samples for pair, saved in peers.items()}
    if not args.render_only:
        todo = pairs_to_compile(requested, cache, samples_for)
        if todo:
            _prepare_torch()
        for model, target in todo:
            samples = samples_for.get((model, target), args.calibration_samples)
            gc.collect()
            print(f"compiling {model} for {target} ({samples} samples): ours ...", file=sys.stderr, flush=True)
            lookups = args.lookups if target.startswith("ethos-u") else None
            cache.put(model, target, compile_ours(model, target, samples, args.dump_dir, lookups), samples)

    rows = audit_rows(cache, peers)
    figures = ["Error per pair, float64 and float32 (steps of the output grid, elements off, cosine):"]
    figures += [f"- {line}" for line in error_figures(rows)]
    text = "\n\n".join([render(rows), "\n".join(figures), peer_sources(rows)])
    print(text)
    if args.markdown:
        args.markdown.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
