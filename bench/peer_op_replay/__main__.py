"""Replays ExecuTorch's own Arm op tests (the peer's) through our flow and reports the pass rate.

    python -m bench.peer_op_replay                                  # the sample, on tosa_FP, tosa_INT, u55_INT, u85_INT
    python -m bench.peer_op_replay --sample-per-file 3 --json out.json
    python -m bench.peer_op_replay --all --targets u85_INT          # every case of one target
    python -m bench.peer_op_replay --files test_add.py,test_conv2d.py --all
    python -m bench.peer_op_replay --from out.json                  # print the tables of an earlier run again

The peer's test files are read from the installed executorch wheel (backends/arm/test/ops). Ethos-U
numbers run on our functional NPU model: set PTE_NPU_MODEL_LIBRARY to a built
//runtime/npu_model:libpte_npu_model.so outside Bazel.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.util
import os
import subprocess
import sys
from pathlib import Path

from bench.peer_op_replay.request import REPLAY_TARGETS

DEFAULT_TARGETS = ("tosa_FP", "tosa_INT", "u55_INT", "u85_INT")
# One case per test file and target: about 560 cases on the four default targets, 30-40 minutes on one
# core (a case compiles and runs in 3-5 s here).
DEFAULT_PER_FILE = 1
_REPO = Path(__file__).resolve().parents[2]


def peer_ops_dir() -> Path:
    spec = importlib.util.find_spec("executorch")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("executorch is not installed in this Python; use the repository's locked environment")
    return Path(list(spec.submodule_search_locations)[0]) / "backends" / "arm" / "test" / "ops"


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--targets", default=",".join(DEFAULT_TARGETS),
                        help=f"comma-separated, from {', '.join(REPLAY_TARGETS)}")  # fmt: skip
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--sample-per-file", type=int, default=DEFAULT_PER_FILE, metavar="N",
                      help="at most N cases per test file and target (default %(default)s)")  # fmt: skip
    size.add_argument("--all", action="store_true", help="every case")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed (default %(default)s)")
    parser.add_argument("--files", default="", help="comma-separated test file names (default: every test_*.py)")
    parser.add_argument("-k", dest="keyword", help="only the sampled cases whose names match this pytest -k expression")
    parser.add_argument("--timeout", type=int, default=300, help="seconds before a case counts as an internal error")
    parser.add_argument("--json", help="write every case's result here (rewritten after each case)")
    parser.add_argument("--resume", action="store_true",
                        help="keep the cases --json already holds (same sample options) and run the rest")  # fmt: skip
    parser.add_argument("--markdown", help="also write the tables and failures grouped by cause here, as Markdown")
    parser.add_argument("--from", dest="from_json", help="print the tables of an earlier --json run and stop")
    args = parser.parse_args(argv)
    args.targets = tuple(t for t in args.targets.split(",") if t)
    unknown = [t for t in args.targets if t not in REPLAY_TARGETS]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}; choose from {', '.join(REPLAY_TARGETS)}")
    if args.resume and not args.json:
        parser.error("--resume needs --json, the file of the run to resume")
    if not args.all and args.sample_per_file < 1:
        parser.error("--sample-per-file must be at least 1 (or use --all)")
    return args


def _test_files(names: str) -> list[Path]:
    directory = peer_ops_dir()
    if not names:
        return sorted(directory.glob("test_*.py"))
    files = [directory / name.strip() for name in names.split(",") if name.strip()]
    missing = [path.name for path in files if not path.exists()]
    if missing:
        raise SystemExit(f"no such peer test file(s) in {directory}: {', '.join(missing)}")
    return files


def _check_npu_model(targets: tuple[str, ...]) -> None:
    if not {"u55_INT", "u85_INT"} & set(targets):
        return
    from arm.ethosu.npu_model.binding import NpuModel

    try:
        NpuModel("ethos-u55-128")
    except Exception as error:
        raise SystemExit(
            f"the functional NPU model does not load ({error}); build //runtime/npu_model:libpte_npu_model.so "
            "and set PTE_NPU_MODEL_LIBRARY to it, or leave out the u55_INT and u85_INT targets"
        ) from None


def _commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(_REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                              text=True, check=True).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main(argv: list[str]) -> int:
    args = _parse(argv)
    from bench.peer_op_replay import report

    if args.from_json:
        meta, results = report.load_json(args.from_json)
        print(report.render(results))
        if args.markdown:
            Path(args.markdown).write_text(report.render_markdown(results, meta) + "\n")
        return 0

    import pytest

    from bench.peer_op_replay.plugin import CaseResult, ReplayOptions, ReplayPlugin, real_stderr

    _check_npu_model(args.targets)
    files = _test_files(args.files)
    meta = {
        "commit": _commit(),
        "started": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "load_average_at_start": os.getloadavg(),
        "targets": args.targets,
        "per_file": None if args.all else args.sample_per_file,
        "seed": args.seed,
        "files": len(files),
    }
    earlier, crashed = [], None
    if args.resume and os.path.exists(args.json):
        earlier_meta, earlier = report.load_json(args.json)
        crashed = tuple(earlier_meta["running"]) if earlier_meta.get("running") else None
        meta["resumed_from"] = earlier_meta.get("started")
    progress = real_stderr()

    def on_start(file: str, case: str) -> None:
        meta["running"] = [file, case]  # written with the next result, so a crash names its case
        if args.json:
            report.write_json(args.json, plugin.results, meta)

    def on_result(result: CaseResult) -> None:
        done = len(plugin.results)
        print(f"[{done}] {result.target} {result.outcome} {result.case} ({result.seconds:.1f} s)", file=progress, flush=True)
        if args.json:
            report.write_json(args.json, plugin.results, meta)

    options = ReplayOptions(args.targets, None if args.all else args.sample_per_file, args.seed, args.timeout, earlier, crashed)
    plugin = ReplayPlugin(options, on_result, on_start)
    pytest_args = [
        *map(str, files),
        "-q", "--tb=no", "--no-header", "--capture=sys", "-p", "no:cacheprovider", "-o", "addopts=",
        "-W", "ignore", "--continue-on-collection-errors", "--rootdir", str(peer_ops_dir().parent),
    ]  # fmt: skip
    if args.keyword:
        pytest_args += ["-k", args.keyword]
    pytest.main(pytest_args, plugins=[plugin])

    meta["running"] = None
    meta["finished"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    meta["load_average_at_end"] = os.getloadavg()
    meta["collected_per_target"] = plugin.collected
    if args.json:
        report.write_json(args.json, plugin.results, meta)
    print()
    print(f"commit {meta['commit']}, {meta['started']} - {meta['finished']}, load {meta['load_average_at_start']}")
    print(f"cases of the chosen targets in the peer's tests: {plugin.collected}; replayed sample: {len(plugin.results)}")
    print(report.render(plugin.results))
    if args.markdown:
        Path(args.markdown).write_text(report.render_markdown(plugin.results, meta) + "\n")
    return 0 if plugin.results else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
