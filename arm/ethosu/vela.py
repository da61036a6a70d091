"""Compile a TOSA flatbuffer for an Ethos-U with Vela, in a Vela process beside this one.

Vela is a command-line program that works on files, so each compilation gets a private temporary
directory that is removed afterwards. The TOSA file always has the same name because Vela writes it
into the summary CSV; that keeps the CSV independent of where and when it was made.

Vela's C++ core (``ethosu.regor``) would run in process, and on some graphs it crashes (timm's
mobilevit_xxs at 224x224 segfaulted it on the U55) or could hang. Either would end the user's whole
compile, so Vela runs in a server process (arm.ethosu.vela_process): a crash or a hang there becomes a
``VelaCompileError`` naming the signal, and the flow keeps that partition on the CPU.
"""

from __future__ import annotations

import contextlib
import csv
import io
import logging
import os
import re
import sys
import tempfile
from pathlib import Path
from xml.etree import ElementTree

import numpy as np

from arm.artifacts import VelaArtifact
from arm.compile_spec import EthosUCompileSpec
from arm.ethosu import vela_process, vela_server
from arm.ethosu.bin_stream import IO_RANK, IoTensor, VelaBinStream, write_bin_stream

logger = logging.getLogger(__name__)

_NETWORK_NAME = "model"
# The ini file shipped in the Vela wheel, named relative to Vela's config_files folder.
_DEFAULT_CONFIG_INI = "Arm/vela.ini"
# With --show-cpu-operations Vela lists each operator as "   CPU: <op> = <name> (outputs [...])".
_CPU_OPERATOR_LINE = re.compile(r"^\s+CPU: (?P<op>.+)$", re.MULTILINE)
_LOG_TAIL_LINES = 20
# Vela compiles the largest zoo graphs in under a minute on a loaded 2-core machine; a run ten times as
# long is taken for a hang. ARM_VELA_TIMEOUT_SECONDS overrides it.
VELA_TIMEOUT_SECONDS = float(os.environ.get("ARM_VELA_TIMEOUT_SECONDS", "600"))


class VelaCompileError(RuntimeError):
    """Vela rejected a TOSA graph, or left part of it to the CPU, for a given Ethos-U target."""


class VelaDied(VelaCompileError):
    """Vela's process crashed, aborted, exited silently or hung on a graph (not Vela refusing it)."""


class _ReportKeyError(Exception):
    """Vela raised KeyError: in 5.2.0, its --show-cpu-operations report on a bool graph input or output."""


def compile_tosa(
    tosa_flatbuffer: bytes, spec: EthosUCompileSpec, *, timeout_s: float = VELA_TIMEOUT_SECONDS
) -> VelaArtifact:
    """Runs Vela on one TOSA graph and packs its output into the bin stream a .pte delegate holds.

    Raises:
        VelaCompileError: Vela failed, crashed, ran past ``timeout_s``, or could not place every
            operator on the NPU.
    """
    with tempfile.TemporaryDirectory(prefix="arm-vela-") as workdir:
        tosa_path = Path(workdir) / f"{_NETWORK_NAME}.tosa"
        tosa_path.write_bytes(tosa_flatbuffer)
        output_dir = Path(workdir) / "out"
        log, cpu_ops = _run_vela_naming_cpu_operators(spec, tosa_path, output_dir, Path(workdir) / "vela.log", timeout_s)
        bin_stream = _read_raw_output(output_dir / f"{_NETWORK_NAME}_vela.npz")
        summary_csv = (output_dir / f"{_NETWORK_NAME}_summary_{spec.system_config}.csv").read_text()
        per_layer = output_dir / f"{_NETWORK_NAME}_per-layer.csv"
        per_layer_csv = per_layer.read_text() if per_layer.exists() else ""

    if cpu_ops:
        raise VelaCompileError(
            f"Vela left {len(cpu_ops)} operator(s) on the CPU for {spec.target}: {'; '.join(cpu_ops)}. "
            "An Ethos-U partition must run entirely on the NPU, so the partitioner should not have "
            "delegated these operators: tighten their support rule in arm/ops/ for this target."
        )
    total_cycles, npu_cycles = _cycles(summary_csv)
    return VelaArtifact(
        bin_stream=write_bin_stream(bin_stream),
        summary_csv=summary_csv,
        per_layer_csv=per_layer_csv,
        total_cycles=total_cycles,
        npu_cycles=npu_cycles,
        cpu_ops=cpu_ops,
        log=log,
    )


def _run_vela_naming_cpu_operators(
    spec: EthosUCompileSpec, tosa_path: Path, output_dir: Path, log_path: Path, timeout_s: float
) -> tuple[str, tuple[str, ...]]:
    """Vela's output and the operators it left on the CPU.

    Vela 5.2.0's --show-cpu-operations report raises KeyError on a graph whose input or output is a
    bool tensor (its source table has no row for that operator), after compiling it fine. Such a graph
    is compiled again with the report off and the debug database on, and the CPU operators are read
    from the database as the report reads them (its summary counts say 0 CPU operators even for a
    GATHER it leaves on the CPU, so they cannot stand in).
    """
    try:
        arguments = _vela_arguments(spec, tosa_path, output_dir, "--show-cpu-operations")
        log = _run_vela(arguments, spec.target, log_path, timeout_s)
    except _ReportKeyError:
        arguments = _vela_arguments(spec, tosa_path, output_dir, "--enable-debug-db")
        log = _run_vela(arguments, spec.target, log_path, timeout_s)
        return log, _cpu_operators_from_debug_db(output_dir / f"{_NETWORK_NAME}_debug.xml")
    return log, tuple(match["op"] for match in _CPU_OPERATOR_LINE.finditer(log))


def _cpu_operators_from_debug_db(path: Path) -> tuple[str, ...]:
    """"<operator> = <name>" for each perf-table row that neither a command queue entry nor a fused
    group runs on the NPU (Vela's own rule in its --show-cpu-operations report)."""
    tables = {}
    for table in ElementTree.parse(path).getroot().iter("table"):
        rows = list(csv.DictReader(io.StringIO((table.text or "").strip())))
        tables[table.get("name")] = rows
    on_npu = {row["optimised_id"] for row in tables.get("queue", [])}
    grouped = {row["id"] for row in tables.get("group", [])}
    return tuple(
        f"{row['operator']} = {row['name']}"
        for row in tables.get("perf", [])
        if row["optimised_id"] not in on_npu and row["id"] not in grouped
    )


def start_vela() -> None:
    """Starts the Vela process now, if it is not running, so that its start overlaps the caller's work."""
    if sys.executable:
        vela_process.shared().warm_up()


def _vela_arguments(spec: EthosUCompileSpec, tosa_path: Path, output_dir: Path, report_flag: str) -> list[str]:
    """Vela's command line; the TOSA file comes last (arm.ethosu.faulty_vela_server reads it there)."""
    flags = spec.vela_flags()
    if spec.config_ini is None:
        flags.append(f"--config={_DEFAULT_CONFIG_INI}")
    # --verbose-performance also writes the per-operator CSV (arm.report's time view); it leaves the
    # command stream as it is.
    return [
        *flags,
        "--output-format=raw",
        "--verbose-performance",
        report_flag,
        f"--output-dir={output_dir}",
        str(tosa_path),
    ]


def _run_vela(arguments: list[str], target: str, log_path: Path, timeout_s: float) -> str:
    """Runs Vela's main in the Vela process (see the module docstring); returns its console output."""
    try:
        if sys.executable:
            answer = vela_process.shared().run(arguments, log_path, timeout_s)
        else:  # an embedded Python that cannot start another: Vela in this process, unprotected
            answer = _run_vela_in_process(arguments, log_path)
    except vela_process.VelaProcessDied as death:
        raise VelaDied(_failure_message(target, f"Vela {death.reason}", _read_log(log_path))) from None
    log = _read_log(log_path)
    if answer.get("rejected_arguments"):
        *_, reason = log.strip().splitlines() or ["Vela rejected its arguments"]
        raise VelaCompileError(_failure_message(target, reason, ""))
    if answer.get("key_error") is not None:
        raise _ReportKeyError(str(answer["key_error"]))
    if (failure := answer.get("failure")) is not None:
        raise VelaCompileError(_failure_message(target, str(failure), log))
    logger.debug("Vela output for %s:\n%s", target, log)
    if answer["status"] != 0:
        raise VelaCompileError(_failure_message(target, f"exit status {answer['status']}", log))
    return log


def _run_vela_in_process(arguments: list[str], log_path: Path) -> dict[str, object]:
    with open(log_path, "w") as log, contextlib.redirect_stdout(log), contextlib.redirect_stderr(log):
        return vela_server.run_vela(arguments)


def _read_log(log_path: Path) -> str:
    return log_path.read_text(errors="replace") if log_path.exists() else ""


def _failure_message(target: str, reason: str, log: str) -> str:
    message = f"Vela failed to compile the TOSA graph for {target}: {reason.strip()}"
    if tail := log.strip().splitlines()[-_LOG_TAIL_LINES:]:
        message += "\nLast lines of Vela's output:\n" + "\n".join(tail)
    return message


def _read_raw_output(npz_path: Path) -> VelaBinStream:
    # allow_pickle stays off: the quantization entries in the file are object arrays we do not need.
    with np.load(npz_path, allow_pickle=False) as raw:
        return VelaBinStream(
            cmd_data=raw["cmd_data"].tobytes(),
            weight_data=raw["weight_data"].tobytes(),
            scratch_size=int(raw["scratch_size"]),
            inputs=_io_tensors(raw, "input"),
            outputs=_io_tensors(raw, "output"),
        )


def _io_tensors(raw: np.lib.npyio.NpzFile, prefix: str) -> tuple[IoTensor, ...]:
    shapes = np.asarray(raw[f"{prefix}_shape"]).reshape(-1, IO_RANK)
    return tuple(
        IoTensor(tuple(int(d) for d in shape), int(elem_size), int(offset), int(region))
        for shape, elem_size, offset, region in zip(
            shapes, raw[f"{prefix}_elem_size"], raw[f"{prefix}_offset"], raw[f"{prefix}_region"], strict=True
        )
    )


def _cycles(summary_csv: str) -> tuple[int, int]:
    (row,) = csv.DictReader(io.StringIO(summary_csv))
    return int(float(row["cycles_total"])), int(float(row["cycles_npu"]))
