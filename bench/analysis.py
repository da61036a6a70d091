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
    delegated_percent: float | None = None
    cpu_ops: dict[str, int] = dataclasses.field(default_factory=dict)
    cpu_reasons: tuple[str, ...] = ()
    vela: VelaNumbers | None = None
    tosa_ops: dict[str, int] = dataclasses.field(default_factory=dict)
    agreement: Agreements | None = None
    agreement_note: str = ""
    load_average: float | None = None  # the machine's 1-minute load right after the compile
    cpu_seconds: float | None = None  # the compile's CPU seconds (same span as ``seconds``)


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


def _delegated_percent(quantized_module: torch.fx.GraphModule, cpu_op_calls: int) -> float:
    """Share of the quantized model's compute nodes that run in a delegate.

    Compute nodes are the call_function nodes of the converted pt2e graph other than
    quantize/dequantize and tuple indexing; each CPU kernel call in the .pte (other than q/dq) counts
    as one of them left on the CPU.
    """
    compute = [
        node
        for node in quantized_module.graph.nodes
        if node.op == "call_function"
        and node.target is not operator.getitem
        and "quantized_decomposed" not in str(node.target)
    ]
    if not compute:
        return 0.0
    return max(0.0, 100.0 * (len(compute) - cpu_op_calls) / len(compute))
