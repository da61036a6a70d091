"""The ``EthosUBackend`` delegate: TOSA lowering followed by Vela.

The class name is the delegate id the ExecuTorch runtime looks up, so it must stay ``EthosUBackend``.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import final

from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult
from executorch.exir.backend.compile_spec_schema import CompileSpec
from torch.export.exported_program import ExportedProgram

from arm.artifacts import report_tosa, report_vela
from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.bin_stream import parse_bin_stream, write_bin_stream
from arm.ethosu.delegate_io import DelegateIoError, align_delegate_io, read_inputs
from arm.ethosu.vela import VelaCompileError, VelaDied, compile_tosa, start_vela
from arm.ethosu.vela_departures import departures
from arm.ethosu.vela_refusals import RefusalSearch, candidates, refused_operator_types, units_of
from arm.fallback import LoweringError
from arm.ops.common.node_info import describe
from arm.tosa.graph import TosaGraph
from arm.tosa.lowering import lower_to_tosa_graph

logger = logging.getLogger(__name__)


@final
class EthosUBackend(BackendDetails):
    @staticmethod
    def preprocess(edge_program: ExportedProgram, compile_specs: list[CompileSpec]) -> PreprocessResult:
        spec = EthosUCompileSpec.from_list(compile_specs)
        start_vela()  # its process starts while the partition lowers to TOSA
        graph, tosa = lower_to_tosa_graph(edge_program, spec.tosa_spec)
        _keep_departing_nodes_on_cpu(edge_program, tosa.flatbuffer, spec.target)
        report_tosa(tosa)
        try:
            vela = compile_tosa(tosa.flatbuffer, spec)
        except Exception as error:  # Vela rejected the graph or crashed: what it refuses falls back to the CPU
            nodes = tuple(node.name for node in edge_program.graph.nodes if node.op == "call_function")
            headline, *_ = str(error).splitlines() or [""]
            logger.debug("Vela failed on a partition of %d nodes: %s", len(nodes), error)
            # Only a refusal is searched for: a probe of a graph that crashes or hangs Vela would cost a
            # restart of its process, or the whole timeout, each time.
            if isinstance(error, VelaCompileError) and not isinstance(error, VelaDied):
                _keep_refused_nodes_on_cpu(edge_program, graph, spec, headline)
            # Every node left on the CPU is reported with this reason: its first line says it, Vela's
            # log tail goes to the debug log once.
            reason = f"Vela could not compile the partition ({type(error).__name__}: {headline})"
            raise LoweringError(nodes, reason) from error
        try:  # the blob's I/O entries must be the delegate's arguments, one for one
            stream = align_delegate_io(parse_bin_stream(vela.bin_stream), tosa.inputs, tosa.outputs, read_inputs(tosa.flatbuffer))
        except DelegateIoError as error:
            nodes = tuple(node.name for node in edge_program.graph.nodes if node.op == "call_function")
            raise LoweringError(nodes, f"the partition's inputs and outputs do not line up with Vela's: {error}") from error
        vela = dataclasses.replace(vela, bin_stream=write_bin_stream(stream))
        report_vela(vela)
        return PreprocessResult(processed_bytes=vela.bin_stream)


def _keep_departing_nodes_on_cpu(edge_program: ExportedProgram, tosa_flatbuffer: bytes, target: str) -> None:
    """Raises a LoweringError for the nodes whose TOSA operators Vela would compile wrongly on ``target``."""
    found = departures(tosa_flatbuffer, target)
    if not found:
        return
    names = [node.name for node in edge_program.graph.nodes if node.op == "call_function"]
    nodes: dict[str, str] = {}
    for departure in found:
        # Lowerings name their TOSA tensors after the FX node that emits them (node name + suffix).
        owners = [name for name in names if departure.output.startswith(name)]
        node = max(owners, key=len) if owners else departure.output
        nodes.setdefault(node, departure.reason)
    reasons = list(nodes.values()) if len(nodes) == 1 else [f"{node}: {reason}" for node, reason in nodes.items()]
    raise LoweringError(tuple(nodes), "; ".join(reasons))


def _keep_refused_nodes_on_cpu(edge_program: ExportedProgram, graph: TosaGraph, spec: EthosUCompileSpec, headline: str) -> None:
    """Raises a LoweringError for the nodes Vela refuses alone (arm.ethosu.vela_refusals), so that only
    they stay on the CPU; returns when there are none, or when the graph has regions (control flow),
    whose operators a part of the main block cannot hold."""
    if graph.regions:
        return
    nodes = {node.name: node for node in edge_program.graph.nodes if node.op == "call_function"}
    search = RefusalSearch(graph, lambda part: _vela_compiles(part.serialize(), spec))
    try:
        refused = search.refused(candidates(units_of(graph, list(nodes)), headline))
    except Exception as error:  # noqa: BLE001 (a failed search must not end the compile: the partition falls back whole)
        logger.debug("Vela refusal search failed after %d probes: %s", search.probes, error)
        return
    logger.debug("Vela refusal search: %d probe compiles, refused: %s", search.probes, refused and [u.node for u in refused])
    if not refused or len(refused) == len(nodes):
        return
    reasons = {
        unit.node: f"{describe(nodes[unit.node])}: Vela refuses its TOSA "
        f"{', '.join(refused_operator_types(unit, headline))} on {spec.target} ({headline}); "
        "the rest of its partition runs on the NPU"
        for unit in refused
    }
    raise LoweringError(tuple(reasons), "; ".join(reasons.values()), reasons)


def _vela_compiles(tosa_flatbuffer: bytes, spec: EthosUCompileSpec) -> bool:
    """Whether Vela compiles the graph whole onto the NPU; a crash counts as a refusal."""
    try:
        compile_tosa(tosa_flatbuffer, spec)
    except VelaCompileError:
        return False
    return True
