"""Compiles models with our flow and with ExecuTorch's Arm backend (the peer) in one run, and compares.

    ./bazelw run //bench:compare -- --models mv2,dscnn --json /tmp/bench.json
    python -m bench.compare --models mv2 --targets ethos-u55-128

For every model and Ethos-U target both sides get the same module, example input, calibration
samples, Vela version, system config and memory mode. Each side's compile time is the wall time
from torch.export to the .pte bytes (imports excluded: both flows are loaded and warmed up first);
everything else is read the same way for both sides from what they produced (see bench/analysis.py).
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import datetime
import gc
import importlib.metadata
import json
import logging
import os
import platform
import sys
import warnings
from pathlib import Path

# Import-time notices from libraries (CUDA kernels absent, pytree deprecations) would bury the table.
logging.getLogger("torchao").setLevel(logging.ERROR)
logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
warnings.filterwarnings("ignore", category=FutureWarning)

if __name__ == "__main__":
    # Run as a script (Bazel's py_binary does), Python puts bench/ itself first on sys.path, where its
    # modules (table, peer, ...) could hide top-level packages of the same name. Import them as bench.*.
    _SCRIPT_DIR = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _SCRIPT_DIR]

import torch  # noqa: E402

from arm.model_spec import ModelSpec, load_model_spec  # noqa: E402
from bench import ours, peer  # noqa: E402
from bench.analysis import Compiler, SideReport, compile_and_analyze  # noqa: E402
from bench.compiled import CompiledProgram  # noqa: E402
from bench.compare_saved import calibration_samples_of, load_side_reports  # noqa: E402
from bench.goals import goal_verdicts, render_goals  # noqa: E402
from bench.model_list import BENCH_MODELS, BENCH_TARGETS  # noqa: E402
from bench.table import Comparison, render_block, render_summary  # noqa: E402

TORCH_THREADS = 1
CALIBRATION_SAMPLES = 16
_VERSIONED_PACKAGES = ("torch", "executorch", "ethos-u-vela", "tosa-tools", "torchao")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bench.compare", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--models",
        default=",".join(BENCH_MODELS),
        help=f"comma-separated model names (default: all of {', '.join(BENCH_MODELS)})",
    )
    parser.add_argument(
        "--targets",
        default=",".join(BENCH_TARGETS),
        help=f"comma-separated Ethos-U targets (default: {','.join(BENCH_TARGETS)})",
    )
    parser.add_argument(
        "--pairs",
        help="comma-separated MODEL@TARGET items to compare, in this order, instead of every model on every target",
    )
    parser.add_argument("--calibration-samples", type=int, default=CALIBRATION_SAMPLES)
    parser.add_argument(
        "--json",
        type=Path,
        help="also write every number to this JSON file (rewritten after each model and target, so a run cut "
        "short keeps what it measured)",
    )
    parser.add_argument(
        "--dump-dir",
        type=Path,
        help="write each side's TOSA graphs and Vela per-layer CSVs here (<model>_<target>_<side>_<partition>.*), "
        "to see where the cycles differ",
    )
    parser.add_argument(
        "--peer-from",
        type=Path,
        help="take the peer's reports from this earlier --json output where it has the model and target "
        "(same calibration count), and compile only our side there",
    )
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    pairs = _pairs(args)
    torch.set_num_threads(TORCH_THREADS)
    saved_peer = _saved_peer_reports(_output_path(args.peer_from), args.calibration_samples)
    meta = _run_description(args.calibration_samples)
    if args.peer_from:
        meta["peer reports"] = f"reused from {args.peer_from} where it has the model and target"
    print("\n".join(f"{key}: {value}" for key, value in meta.items()), flush=True)
    _warm_up(pairs[0][1], args.calibration_samples)

    comparisons = []
    for model, target in pairs:
        comparison = _compare(
            model, target, args.calibration_samples, saved_peer.get((model, target)), _output_path(args.dump_dir)
        )
        comparisons.append(comparison)
        print(f"\n{render_block(comparison)}", flush=True)
        if args.json:
            _write_json(_output_path(args.json), meta, comparisons, goal_verdicts(comparisons))

    verdicts = goal_verdicts(comparisons)
    print(f"\n== summary (ours / peer) ==\n{render_summary(comparisons)}")
    print(f"\n== goals ==\n{render_goals(verdicts)}")
    if args.json:
        print(f"\nwrote {_output_path(args.json)}")
    return 0


def _pairs(args: argparse.Namespace) -> list[tuple[str, str]]:
    """(model, target) in the order to compile them: --pairs as given, else every model on every target."""
    if not args.pairs:
        models = _names(args.models, BENCH_MODELS, "model")
        targets = _names(args.targets, BENCH_TARGETS, "target")
        return [(model, target) for model in models for target in targets]
    items = [item.strip() for item in args.pairs.split(",") if item.strip()]
    malformed = [item for item in items if item.count("@") != 1]
    if malformed or not items:
        raise SystemExit(f"--pairs wants MODEL@TARGET items, e.g. mv2@ethos-u55-128; got {', '.join(malformed) or '(none)'}")
    pairs = [tuple(item.split("@")) for item in items]
    _names(",".join(model for model, _ in pairs), BENCH_MODELS, "model")
    _names(",".join(target for _, target in pairs), BENCH_TARGETS, "target")
    return pairs


def _names(text: str, known: dict[str, str] | tuple[str, ...], what: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [name for name in names if name not in known]
    if unknown or not names:
        raise SystemExit(f"unknown {what}(s) {', '.join(unknown) or '(none given)'}; choose from {', '.join(known)}")
    return names


def _run_description(calibration_samples: int) -> dict[str, str]:
    versions = ", ".join(f"{name} {importlib.metadata.version(name)}" for name in _VERSIONED_PACKAGES)
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return {
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.machine()}, {os.cpu_count()} cores, {platform.platform()}, load average {load}",
        "torch threads": f"{TORCH_THREADS} (torch.set_num_threads, both sides)",
        "versions": versions,
        "Vela": importlib.metadata.version("ethos-u-vela"),
        "calibration samples": str(calibration_samples),
        "compile time": "wall time from torch.export to .pte bytes; imports done before timing",
    }


def _warm_up(target: str, calibration_samples: int) -> None:
    """Compiles a tiny convolution with both flows, untimed, so the first timed compile pays none of the
    one-off costs (lazy imports, torch's and executorch's first-call caches, Vela's first load)."""
    ours.warm_up()
    try:
        peer.warm_up()
    except Exception as error:  # the peer's failures go in the table, where compile_peer fails again
        print(f"warning: the peer did not load: {type(error).__name__}: {error}", file=sys.stderr)
    tiny = _tiny_model()
    for side, compile_side in (("ours", ours.compile_ours), ("peer", peer.compile_peer)):
        try:
            compile_side(tiny, target, calibration_samples)
        except Exception as error:
            print(f"warning: warm-up compile ({side}) failed: {type(error).__name__}: {error}", file=sys.stderr)


def _tiny_model() -> ModelSpec:
    with torch.random.fork_rng():
        torch.manual_seed(0)
        module = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU()).eval()
        samples = [(torch.randn(1, 3, 8, 8),) for _ in range(2)]
    return ModelSpec(module, samples[0], samples)


def _saved_peer_reports(path: Path | None, calibration_samples: int) -> dict[tuple[str, str], SideReport]:
    if path is None:
        return {}
    saved_samples = calibration_samples_of(path)
    if saved_samples != calibration_samples:
        raise SystemExit(
            f"{path} was measured with {saved_samples} calibration samples, this run uses {calibration_samples}; "
            f"pass --calibration-samples {saved_samples}"
        )
    return load_side_reports(path, "peer")


def _compare(
    model: str,
    target: str,
    calibration_samples: int,
    saved_peer: SideReport | None = None,
    dump_dir: Path | None = None,
) -> Comparison:
    try:
        spec = load_model_spec(BENCH_MODELS[model])
    except Exception as error:
        failed = f"{type(error).__name__}: {error}"
        return Comparison(model, target, SideReport("ours", error=failed), SideReport("peer", error=failed))
    reports = {} if saved_peer is None else {"peer": saved_peer}
    for side, compiler in (("ours", ours.compile_ours), ("peer", peer.compile_peer)):
        if side in reports:
            print(f"{model} for {target}: the peer's report is reused", file=sys.stderr, flush=True)
            continue
        gc.collect()
        print(f"compiling {model} for {target}: {side} ...", file=sys.stderr, flush=True)
        if dump_dir is not None:
            compiler = dumping(compiler, dump_dir / f"{model}_{target}_{side}")
        reports[side] = compile_and_analyze(side, compiler, _fresh(spec), target, calibration_samples)
    return Comparison(model, target, reports["ours"], reports["peer"])


def _fresh(spec: ModelSpec) -> ModelSpec:
    # Each side gets its own copy of the module, so neither sees what the other did to it.
    return dataclasses.replace(spec, module=copy.deepcopy(spec.module))


def dumping(compiler: Compiler, prefix: Path) -> Compiler:
    """``compiler`` that also writes its TOSA graphs and Vela per-layer CSVs to ``prefix``_<partition>.*"""

    def compile_and_dump(spec: ModelSpec, target: str, calibration_samples: int) -> CompiledProgram:
        compiled = compiler(spec, target, calibration_samples)
        prefix.parent.mkdir(parents=True, exist_ok=True)
        for index, tosa in enumerate(compiled.tosa_flatbuffers):
            prefix.with_name(f"{prefix.name}_{index}.tosa").write_bytes(tosa)
        for index, per_layer in enumerate(compiled.vela_per_layer):
            prefix.with_name(f"{prefix.name}_{index}_per_layer.csv").write_text(per_layer)
        return compiled

    return compile_and_dump


def _output_path(path: Path | None) -> Path | None:
    if path is None:
        return None
    # Under `bazel run` the working directory is the runfiles tree; relative paths mean the user's.
    workdir = os.environ.get("BUILD_WORKING_DIRECTORY")
    return path if path.is_absolute() or not workdir else Path(workdir) / path


def _write_json(path: Path, meta: dict[str, str], comparisons: list[Comparison], verdicts: dict) -> None:
    document = {
        "run": meta,
        "comparisons": [dataclasses.asdict(comparison) for comparison in comparisons],
        "goals": {goal: dataclasses.asdict(verdict) for goal, verdict in verdicts.items()},
    }
    # Written whole to a temporary name first, so a reader (or a cut) never sees half a file.
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(document, indent=2) + "\n")
    partial.replace(path)


if __name__ == "__main__":
    sys.exit(main())
