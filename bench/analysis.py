"""The side-neutral analysis of one compiled program: the numbers of one column of the table."""

from __future__ import annotations

import collections
import contextlib
import dataclasses
import io
import logging
import operator
import os
import sys
import time
import traceback
from typing import Callable

import torch

from arm.model_spec import ModelSpec
from bench.agreement import Agreements, measure_agreement
from bench.compiled import CompiledProgram
from bench.pte_program import read_pte
from bench.tosa_graph import summarize_tosa
from bench.vela_report import VelaNumbers, vela_numbers

logger = logging.getLogger(__name__)

Compiler = Callable[[ModelSpec, str, int], CompiledProgram]


@dataclasses.dataclass
class SideReport:
    """One side's result for one model and target; ``error`` set means the side failed there."""

    side: str
    error: str | None = None
    seconds: float | None = None
    stage_seconds: dict[str, float] = dataclasses.field(default_factory=dict)
    pte_bytes: int | None = None
    partitions: int | None = None
    delegated_percent: float | None = None  # over this side's own quantized graph (see model_ops)
    cpu_ops: dict[str, int] = dataclasses.field(default_factory=dict)
    cpu_reasons: tuple[str, ...] = ()
    vela: VelaNumbers | None = None
    tosa_ops: dict[str, int] = dataclasses.field(default_factory=dict)
    agreement: Agreements | None = None
    agreement_note: str = ""
    load_average: float | None = None  # the machine's 1-minute load right after the compile
    cpu_seconds: float | None = None  # the compile's CPU seconds (same span as ``seconds``)
    # Compute nodes of the model as torch.export gives it, before either side quantizes or decomposes
    # anything: the one denominator both sides' shares can be taken over (``share_of_model``).
    model_ops: int | None = None

    @property
    def cpu_op_calls(self) -> int:
        return sum(self.cpu_ops.values())

    def share_of_model(self, model_ops: int) -> float:
        """Percent of the model's ``model_ops`` operators that run in a delegate.

        Each CPU kernel call counts as one of the model's operators left on the CPU. That can only
        overstate a side's CPU share (a cast the flow adds, or one operator split into several CPU
        kernels, counts in full), never understate it.
        """
        return max(0.0, 100.0 * (model_ops - self.cpu_op_calls) / model_ops)


def common_model_ops(*reports: SideReport | None) -> int | None:
    """The model's operator count, from whichever side recorded it (both compiled the same model)."""
    for report in reports:
        if report is not None and report.model_ops:
            return report.model_ops
    return None


def comparable_shares(ours: SideReport | None, peer: SideReport | None) -> tuple[float | None, float | None]:
    """Both sides' delegated percent over one denominator, the model's operators, where either side
    recorded their count; else each side's share of its own graph. None for a side that has no figure."""
    model_ops = common_model_ops(ours, peer)

    def share(report: SideReport | None) -> float | None:
        if report is None or report.error:
            return None
        return report.share_of_model(model_ops) if model_ops else report.delegated_percent

    return share(ours), share(peer)


def compile_and_analyze(side: str, compiler: Compiler, spec: ModelSpec, target: str, samples: int) -> SideReport:
    """Runs one side and analyses its output; any failure becomes the report's ``error``, not a crash."""
    report = SideReport(side=side)
    console = io.StringIO()  # Vela prints its performance report; keep the table readable
    try:
        with contextlib.redirect_stdout(console):
            compiled = compiler(spec, target, samples)
        report.load_average = os.getloadavg()[0]
        _fill(report, compiled, spec, samples)
    except Exception as error:  # either flow may fail on a model: the table says so, the run goes on
        report.error = f"{type(error).__name__}: {_first_line(error)}"
        sys.stderr.write(f"{side} failed on {target}:\n{traceback.format_exc()}")
    return report


def _first_line(error: Exception) -> str:
    lines = str(error).strip().splitlines()
    return lines[0] if lines else "(no message)"


def _fill(report: SideReport, compiled: CompiledProgram, spec: ModelSpec, samples: int) -> None:
    program = read_pte(compiled.pte)
    report.seconds = compiled.seconds
    report.cpu_seconds = compiled.cpu_seconds
    report.stage_seconds = compiled.stage_seconds
    report.pte_bytes = len(compiled.pte)
    report.partitions = sum(program.partitions.values())
    report.cpu_ops = dict(program.cpu_ops)
    report.cpu_reasons = compiled.cpu_reasons
    report.delegated_percent = _delegated_percent(compiled.quantized_module, sum(program.cpu_ops.values()))
    report.model_ops = model_op_count(spec)
    report.vela = vela_numbers(compiled.vela_summaries)
    tosa_ops: collections.Counter[str] = collections.Counter()
    for tosa in compiled.tosa_flatbuffers:
        tosa_ops.update(summarize_tosa(tosa).op_counts)
    tosa_ops.pop("CONST", None)  # weights and parameters, not work
    tosa_ops.pop("CONST_SHAPE", None)
    report.tosa_ops = dict(tosa_ops.most_common())

    if not program.is_one_delegate:
        on_cpu = ", ".join(sorted(program.cpu_ops)) or "none"
        report.agreement_note = f"n/a: {report.partitions} partitions, CPU ops: {on_cpu}"
        return
    (tosa,) = compiled.tosa_flatbuffers
    start = time.perf_counter()
    report.agreement = measure_agreement(
        tosa,
        program.input_quantization,
        program.output_quantization,
        spec.module,
        compiled.quantized_module,
        spec.calibration_inputs[:samples],
    )
    logger.info("%s: agreement measured in %.1f s", report.side, time.perf_counter() - start)


def _is_compute(node: torch.fx.Node) -> bool:
    return (
        node.op == "call_function"
        and node.target is not operator.getitem
        and "quantized_decomposed" not in str(node.target)
    )


def model_op_count(spec: ModelSpec) -> int | None:
    """The model's compute operators as torch.export gives them, the same count for both sides.

    Each side's own quantized graph is a poor common denominator: the peer decomposes layer norm,
    softmax and the lookups into several nodes before it quantizes (BERT: 188 nodes against the
    model's 63), so one operator left on the CPU weighs three times less in its share than in ours.
    None where the model does not export (the share over each side's own graph stands alone then).
    """
    try:
        exported = torch.export.export(spec.module.eval(), spec.example_inputs)
    except Exception as error:  # a model the flow itself exported differently: no common count
        logger.warning("no common operator count: torch.export failed: %s", _first_line(error))
        return None
    # aten._assert_*: the shape and dtype guards torch.export writes, not work either side runs
    operators = [
        node for node in exported.graph.nodes if _is_compute(node) and not str(node.target).startswith("aten._assert")
    ]
    return len(operators) or None


def _delegated_percent(quantized_module: torch.fx.GraphModule, cpu_op_calls: int) -> float:
    """Share of the quantized model's compute nodes that run in a delegate.

    Compute nodes are the call_function nodes of the converted pt2e graph other than
    quantize/dequantize and tuple indexing; each CPU kernel call in the .pte (other than q/dq) counts
    as one of them left on the CPU.
    """
    compute = [node for node in quantized_module.graph.nodes if _is_compute(node)]
    if not compute:
        return 0.0
    return max(0.0, 100.0 * (len(compute) - cpu_op_calls) / len(compute))
