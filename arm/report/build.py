"""Builds a Report from one run of the flow: placement, Vela's figures and the per-layer error."""

from __future__ import annotations

import importlib.metadata
from typing import Sequence

import torch
from executorch.exir._serialize._program import deserialize_pte_binary

from arm.ethosu.bin_stream import parse_bin_stream
from arm.flow import FlowResult
from arm.report.cpu_measurements import measured_cpu_cost
from arm.report.layer_error import analyze_layers
from arm.report.placement import place_nodes
from arm.report.provenance import origin
from arm.report.report_data import Header, PlacedNode, Report, VelaLayer
from arm.report.vela_layers import partition_costs, read_per_layer, summary_row

_VERSIONED_PACKAGES = ("torch", "executorch", "ethos-u-vela", "tosa-tools")


def build_report(
    result: FlowResult,
    model_name: str,
    samples: Sequence[tuple[torch.Tensor, ...]],
    *,
    float_graph: torch.fx.GraphModule | None = None,
    quantized_graph: torch.fx.GraphModule | None = None,
) -> Report:
    """The report of ``result``.

    Args:
        model_name: what the header calls the model (the factory, e.g. ``models.small_cnn:model``).
        samples: inputs the per-layer error runs (the calibration inputs).
        float_graph: the float reference; defaults to the flow's own export before quantization.
        quantized_graph: the quantized torch model; defaults to the flow's own. Both are for a model
            the flow got already quantized (``quantize=False``).
    """
    if result.edge_graph is None:
        raise ValueError("the flow result has no edge graph; it comes from an older arm.flow")
    quantized = quantized_graph if quantized_graph is not None else result.quantized_module
    layer_names = {node.name for node in quantized.graph.nodes} if quantized is not None else set()
    placement = place_nodes(result.edge_graph, dict(result.rejected), layer_names)
    vela_layers = _vela_layers(result, layer_names)
    notes: list[str] = []

    errors = []
    if quantized is None:
        reason = "runs float" if not result.target.is_quantized else "got a model that was quantized already"
        notes.append(f"{result.target.name} {reason}: there is no float and quantized pair to compare layer by layer.")
    else:
        reference = float_graph if float_graph is not None else result.float_program.module()
        placement_of = _placement_of_layers(placement)
        try:
            errors = analyze_layers(
                reference, quantized, result.edge_graph, result.artifacts.tosa, samples, placement_of
            )
        except Exception as error:  # a graph the comparison cannot follow still gets placement and time
            notes.append(f"The per-layer error could not be computed: {type(error).__name__}: {error}")
    return Report(
        header=_header(result, model_name),
        placement=placement,
        vela_layers=vela_layers,
        partitions=partition_costs([artifact.summary_csv for artifact in result.artifacts.vela]),
        errors=errors,
        error_samples=len(samples),
        error_reference="TOSA reference model (the delegate's TOSA graph, every layer exposed as an output)",
        cpu_cost=measured_cpu_cost(model_name, result.target.name),
        notes=notes,
    )


def _placement_of_layers(placement: list[PlacedNode]) -> dict[str, int | None]:
    """Layer -> its compute node's partition (None: CPU); a delegated node wins over a CPU q/dq one."""
    placement_of: dict[str, int | None] = {}
    for node in placement:
        if node.layer is None or node.kind != "compute":
            continue
        if placement_of.get(node.layer) is None:
            placement_of[node.layer] = node.partition
    return placement_of


def _vela_layers(result: FlowResult, layer_names: set[str]) -> list[VelaLayer]:
    lowered = [
        getattr(result.edge_graph, node.args[0].target)
        for node in result.edge_graph.graph.nodes
        if node.op == "call_function" and "executorch_call_delegate" in str(node.target)
    ]
    rows: list[VelaLayer] = []
    for partition, (module, artifact) in enumerate(zip(lowered, result.artifacts.vela)):
        nodes = list(module.original_module.graph.nodes)
        layer_of = {node.name: origin(node, layer_names) for node in nodes}
        rows.extend(read_per_layer(artifact.per_layer_csv, partition, set(layer_of), layer_of))
    return rows


def _header(result: FlowResult, model_name: str) -> Header:
    spec = result.target.compile_spec
    vela_config = {}
    arenas = {"CPU planned memory (.pte memory plan)": _planned_bytes(result.pte)}
    if result.target.is_ethos_u:
        vela_config = {
            "accelerator": spec.target,
            "system config": spec.system_config,
            "memory mode": spec.memory_mode,
            "extra flags": " ".join(spec.extra_flags) or "none",
        }
        for index, artifact in enumerate(result.artifacts.vela):
            arenas[f"NPU scratch, partition {index} (Vela)"] = parse_bin_stream(artifact.bin_stream).scratch_size
            row = summary_row(artifact.summary_csv)
            arenas[f"SRAM used, partition {index} (Vela)"] = int(float(row["sram_memory_used"]) * 1024)
    return Header(
        model=model_name,
        target=result.target.name,
        vela_config=vela_config,
        stage_seconds=dict(result.stage_seconds),
        pte_bytes=len(result.pte),
        arena_bytes=arenas,
        versions={name: _version(name) for name in _VERSIONED_PACKAGES},
    )


def _planned_bytes(pte: bytes) -> int:
    program = deserialize_pte_binary(pte).program
    return sum(int(size) for plan in program.execution_plan for size in plan.non_const_buffer_sizes)


def _version(package: str) -> str:
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"
