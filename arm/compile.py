"""Command line: compile a PyTorch model for an Arm target into an ExecuTorch .pte.

    python -m arm.compile --model models.small_cnn:model --target ethos-u55-128 --output out.pte

Exit status: 0 on success, 2 when the input cannot be compiled as asked (the message says why and
what to change), 1 on an internal error. Outputs appear only when everything succeeded, and the same
command gives byte-identical outputs, so a build system can run it as an action.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import time
import traceback
import warnings
from pathlib import Path

# Import-time warnings about optional CUDA kernels and torch.compile internals this CPU-only flow never
# uses; they would open every run's output. Set before the flow imports torchao.
logging.getLogger("torchao").setLevel(logging.ERROR)
logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)

if __name__ == "__main__":
    # Run as a script (Bazel's py_binary does), Python puts arm/ itself first on sys.path, where
    # arm/ethosu/ would hide Vela's top-level ``ethosu`` package. Drop that entry before importing.
    _SCRIPT_DIR = Path(__file__).resolve().parent
    sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != _SCRIPT_DIR]

from arm import startup  # noqa: E402

if __name__ == "__main__":
    # A compile process (this CLI, the Bazel action, the worker) pays its imports and the model's load
    # once: arm/startup makes them cheaper without changing what they compute.
    startup.begin()

from arm.compile_spec import ETHOS_U_TARGETS, LOOKUP_PLACEMENTS  # noqa: E402
from arm.compile_worker import WORKER_FLAG, run_worker  # noqa: E402
from arm.ethosu.vela import VelaCompileError  # noqa: E402
from arm.flow import DEFAULT_EDGE_ROUTE, EDGE_ROUTES, TARGETS, EthosUOptions, FlowError, FlowResult, StageError, resolve_target, run_flow  # noqa: E402
from arm.model_spec import ModelSpec, ModelSpecError, load_model_spec  # noqa: E402

EXIT_BAD_INPUT = 2
EXIT_INTERNAL_ERROR = 1

# Errors that mean "this input cannot be compiled as asked", as opposed to a bug in the toolchain.
_USER_ERRORS = (FlowError, ModelSpecError, VelaCompileError)
# A model torch.export cannot trace is the model's problem, whatever exception torch raises for it.
_USER_STAGES = ("export",)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m arm.compile",
        description="Compile a PyTorch model to an ExecuTorch .pte for an Arm target "
        "(TOSA 1.0, or an Ethos-U NPU through Vela).",
        epilog="Exit status: 0 success, 2 the model or options cannot be compiled as asked, 1 internal error. "
        "Arguments may come from a file: @FILE, one per line.",
        # Bazel passes an action's arguments in a params file (and, to a persistent worker, inline).
        fromfile_prefix_chars="@",
    )
    parser.add_argument(
        "--model",
        required=True,
        metavar="PACKAGE.MODULE:FUNCTION",
        help="a function returning arm.model_spec.ModelSpec, e.g. models.small_cnn:model",
    )
    parser.add_argument(
        "--target",
        required=True,
        metavar="TARGET",
        help=f"one of: {', '.join(TARGETS)}",
    )
    parser.add_argument("--output", type=Path, help="where to write the .pte (needed unless --report is given)")
    parser.add_argument(
        "--tosa-output",
        type=Path,
        help="also write the TOSA flatbuffer of the delegated partition; with several partitions, "
        "partition i > 0 goes to STEM_i.SUFFIX next to it",
    )
    parser.add_argument(
        "--vela-summary-output",
        type=Path,
        help="also write Vela's performance summary CSV (Ethos-U targets; one row per partition)",
    )
    parser.add_argument(
        "--report",
        type=Path,
        metavar="HTML",
        help="also write a self-contained HTML report: where each node runs, Vela's cycles per operator, "
        "and the per-layer error of the calibration inputs against the float model",
    )
    parser.add_argument(
        "--chart-library",
        type=Path,
        metavar="JS",
        help="Chart.js's chart.umd.min.js for --report (default: the copy Bazel provides in runfiles)",
    )
    parser.add_argument(
        "--no-quantize",
        action="store_true",
        help="skip pt2e quantization, e.g. for a model that is already quantized",
    )
    parser.add_argument(
        "--int8-io",
        action="store_true",
        help="the program takes and returns int8 tensors where the model's inputs and outputs are quantized; "
        "each one's scale and zero point are printed and recorded in the .pte (config methods such as "
        "forward_input0_scale)",
    )
    parser.add_argument(
        "--calibration-samples",
        type=_positive_int,
        metavar="N",
        help="calibrate on the first N of the model's calibration inputs (default: all)",
    )
    parser.add_argument(
        "--edge-route",
        choices=EDGE_ROUTES,
        default=DEFAULT_EDGE_ROUTE,
        help="how the quantized program becomes an edge program: in_place (default; arm.edge_in_place: "
        "executorch's edge program without to_edge's re-trace, falling back to to_edge, with the reason, "
        "where it cannot build it so), or to_edge (executorch's re-trace only)",
    )
    vela = parser.add_argument_group("Ethos-U (Vela) options")
    vela.add_argument("--system-config", help="system configuration from Vela's ini file (default: per NPU family)")
    vela.add_argument("--memory-mode", help="memory mode from Vela's ini file (default: per NPU family)")
    vela.add_argument(
        "--vela-flag",
        action="append",
        default=[],
        metavar="FLAG",
        help="extra Vela flag, repeatable, e.g. --vela-flag=--optimise=Size",
    )
    vela.add_argument(
        "--lookups",
        choices=LOOKUP_PLACEMENTS,
        help="where table lookups (embedding) the NPU can run go: cost (default: where the op's cost estimate "
        "says they cost less, the CPU's row copy for a large table looked up by the model's input ids) or npu "
        "(on the NPU whatever the estimate: one delegate, no CPU operator, usually more NPU cycles)",
    )
    parser.add_argument("--verbose", action="store_true", help="show Vela's log and library warnings")
    parser.add_argument("--debug", action="store_true", help="print tracebacks of errors")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(_attach_vela_flags(sys.argv[1:] if argv is None else argv))
    _configure_output(verbose=args.verbose)
    try:
        outputs = _compile(args)
        _write_all_or_nothing(outputs)
    except Exception as error:
        return _report_error(error, debug=args.debug)
    print(f"wrote {', '.join(str(path) for path in outputs)}", file=sys.stderr)
    return 0


def _compile(args: argparse.Namespace) -> dict[Path, bytes]:
    if args.output is None and args.report is None:
        raise FlowError("nothing to write: give --output for the .pte, --report for the HTML report, or both")
    options = EthosUOptions(args.system_config, args.memory_mode, tuple(args.vela_flag), args.lookups)
    target = resolve_target(args.target, options)
    if args.vela_summary_output is not None and not target.is_ethos_u:
        raise FlowError(
            f"--vela-summary-output needs an Ethos-U target ({', '.join(ETHOS_U_TARGETS)}), not {target.name}"
        )
    chart_library = _chart_library(args) if args.report is not None else None  # before the long part
    try:
        model = load_model_spec(args.model)
    finally:
        startup.settle()  # start-up is over (a no-op unless this process began in arm/startup)
    result = run_flow(
        model,
        target,
        quantize=not args.no_quantize,
        calibration_samples=args.calibration_samples,
        int8_io=args.int8_io,
        edge_route=args.edge_route,
    )

    outputs = {args.output: result.pte} if args.output is not None else {}
    if args.report is not None:
        outputs[args.report] = _report(args, model, result, chart_library).encode()
    if args.tosa_output is not None:
        outputs |= _tosa_outputs(args.tosa_output, result)
    if args.vela_summary_output is not None:
        outputs[args.vela_summary_output] = _vela_summary(result).encode()
    return outputs


def _chart_library(args: argparse.Namespace) -> Path:
    # arm.report is its own Bazel package on top of this one; only --report imports it, and only the
    # //arm/report:compile binary carries it (so that report edits leave the .pte actions alone).
    try:
        from arm.report.page import ChartLibraryNotFound, find_chart_library
    except ModuleNotFoundError:
        raise FlowError("--report: this binary has no arm.report; run //arm/report:compile instead") from None

    try:
        return find_chart_library(args.chart_library)
    except ChartLibraryNotFound as error:
        raise FlowError(f"--report: {error}") from None


def _report(args: argparse.Namespace, model: ModelSpec, result: FlowResult, chart_library: Path) -> str:
    from arm.report.build import build_report
    from arm.report.page import render_html

    samples = model.calibration_inputs[: args.calibration_samples]
    sys.stderr.write(f"report ({len(samples)} samples layer by layer) ...")
    sys.stderr.flush()
    start = time.perf_counter()
    page = render_html(build_report(result, args.model, samples), chart_library)
    sys.stderr.write(f" {time.perf_counter() - start:.1f} s\n")
    return page


def _tosa_outputs(path: Path, result: FlowResult) -> dict[Path, bytes]:
    graphs = [artifact.flatbuffer for artifact in result.artifacts.tosa]
    if not graphs:
        raise FlowError(f"--tosa-output: nothing was delegated for {result.target.name}, so there is no TOSA graph")
    paths = [path] + [path.with_name(f"{path.stem}_{index}{path.suffix}") for index in range(1, len(graphs))]
    return dict(zip(paths, graphs, strict=True))


def _vela_summary(result: FlowResult) -> str:
    summaries = [artifact.summary_csv.strip().splitlines() for artifact in result.artifacts.vela]
    if not summaries:
        raise FlowError(f"--vela-summary-output: nothing was delegated for {result.target.name}, so Vela did not run")
    header = summaries[0][0]
    return "\n".join([header] + [row for lines in summaries for row in lines[1:]]) + "\n"


def _write_all_or_nothing(outputs: dict[Path, bytes]) -> None:
    """Writes every output to a temporary file beside it, then renames them all into place."""
    staged: list[tuple[Path, Path]] = []
    try:
        for path, data in outputs.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
            staged.append((temporary, path))
            temporary.write_bytes(data)
        for temporary, path in staged:
            temporary.replace(path)
    except OSError as error:
        raise FlowError(f"cannot write {error.filename}: {error.strerror}") from error
    finally:
        for temporary, _ in staged:
            temporary.unlink(missing_ok=True)


def _report_error(error: Exception, *, debug: bool) -> int:
    if debug:
        traceback.print_exception(error)
    user_error = _user_error(error)
    if user_error is not None:
        print(f"error: {_paragraph(str(user_error))}", file=sys.stderr)
        return EXIT_BAD_INPUT
    where = f" during {error.stage} for {error.target}" if isinstance(error, StageError) else ""
    cause = error.__cause__ if isinstance(error, StageError) and error.__cause__ else error
    print(
        f"internal error{where}: {type(cause).__name__}: {_paragraph(str(cause))} "
        "(this is a toolchain bug; rerun with --debug for the traceback)",
        file=sys.stderr,
    )
    return EXIT_INTERNAL_ERROR


def _user_error(error: BaseException) -> BaseException | None:
    """The error to show the user if ``error`` is about the input rather than a toolchain bug."""
    if isinstance(error, StageError) and error.stage in _USER_STAGES:
        return error
    cause: BaseException | None = error
    while cause is not None:
        if isinstance(cause, _USER_ERRORS):
            return cause
        cause = cause.__cause__ or cause.__context__
    return None


def _paragraph(text: str) -> str:
    return "\n".join(line for line in text.strip().splitlines() if line.strip())


def _configure_output(*, verbose: bool) -> None:
    logging.basicConfig(format="%(message)s", level=logging.WARNING)
    if verbose:
        logging.getLogger("arm").setLevel(logging.DEBUG)
    else:
        # torch and executorch warn about their own deprecations, which the user cannot act on.
        warnings.filterwarnings("ignore", category=FutureWarning)
        warnings.filterwarnings("ignore", category=DeprecationWarning)
        warnings.filterwarnings("ignore", category=UserWarning)


def _attach_vela_flags(argv: list[str]) -> list[str]:
    """Turns ``--vela-flag --optimise=Size`` into ``--vela-flag=--optimise=Size``.

    Vela's flags start with ``--`` themselves, so argparse would take a separate one for an option of ours.
    """
    attached: list[str] = []
    values = iter(argv)
    for arg in values:
        attached.append(f"{arg}={next(values, '')}" if arg == "--vela-flag" else arg)
    return attached


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


if __name__ == "__main__":
    if WORKER_FLAG in sys.argv[1:]:
        sys.exit(run_worker(main))
    sys.exit(main())
