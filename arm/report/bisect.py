"""Where a delegate departs from its quantized torch model: each layer's own error, one segment at a time.

``arm.report.layer_error`` runs a whole partition and shows the error *carried* to every layer, which
grows with depth whatever its cause. To find the op that adds it, every probed layer (a TOSA tensor
holding a quantized torch node's int values, see layer_error.find_probes) is recomputed alone: the
partition's TOSA graph is cut (tosa_probes.segment) to the operators between the nearest probed layers
above it and the layer itself, the cut is fed the quantized torch model's own int values at those
layers, and its result is compared with the quantized torch model's value at the layer. That *local*
error is what the lowering of this layer (and of any unprobed layers folded into the same segment,
such as a layer norm whose tensor has no name of its own) adds, free of everything upstream.

    python -m arm.report.bisect --model models.zoo.deit_tiny:small --target ethos-u55-128 --samples 4

prints every layer in graph order (local and carried error in steps of the layer's int grid), the
layers with the largest local error, the local error summed up by op, and the first layer in graph
order whose local differences are not all at ties.

A tie is an element whose quantized-model value sits on a half step of its grid: which way it rounds
is a convention (torch rounds half to even, TOSA's RESCALE and pools half up), not a lowering fault,
so differences there are counted apart. ``--float64`` evaluates the quantized model in float64 (its
quantize and dequantize ops on the same integer grids, without float32's rounding), so a tie is
exactly one rather than a hair either side of it: float32 noise then decides nothing.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import json
import math
import sys
from typing import Sequence

import numpy as np
import torch
from torch.fx import Node

from arm.artifacts import TosaArtifact
from arm.report.accumulator_grid import accumulator_bias_scales
from arm.report.float64_quantized import FLOAT64_FORMS
from arm.report.layer_error import RESHAPED_INFIX, _Probe, _Recorder, find_layers, find_probes
from arm.report.tosa_probes import (
    OperatorInfo,
    TensorInfo,
    TosaProbeError,
    operator_table,
    run_graph,
    run_with_probes,
    segment,
    segment_operators,
    tensor_names,
    tensor_table,
)


@dataclasses.dataclass
class _Steps:
    """Differences from the quantized torch model in steps of the layer's int grid, over all samples."""

    max: int = 0
    total: float = 0.0
    squared: float = 0.0
    differing: int = 0
    at_ties: int = 0  # differing elements whose quantized-model value sat on a half step
    count: int = 0

    def add(self, delegate: np.ndarray, expected: np.ndarray, ties: np.ndarray | None = None) -> None:
        # Flat: a probe may be a reshape of the layer's tensor (same elements, same order).
        steps = np.abs(delegate.astype(np.int64).reshape(-1) - expected.astype(np.int64).reshape(-1))
        self.max = max(self.max, int(steps.max(initial=0)))
        self.total += float(steps.sum())
        self.squared += float(np.sum(steps.astype(np.float64) ** 2))
        self.differing += int(np.count_nonzero(steps))
        if ties is not None:
            self.at_ties += int(np.count_nonzero((steps != 0) & ties.reshape(-1)))
        self.count += steps.size

    @property
    def mean(self) -> float:
        return self.total / self.count if self.count else 0.0

    @property
    def rms(self) -> float:
        return float(np.sqrt(self.squared / self.count)) if self.count else 0.0


@dataclasses.dataclass(frozen=True)
class LayerBisection:
    """One layer's error against the quantized torch model, in steps of its int grid.

    ``local_*``: its segment alone, fed the quantized torch model's values; ``carried_*``: the whole
    partition fed only at its inputs. ``folded`` names unprobed layers inside the segment, ``tosa_ops``
    counts the segment's TOSA operators (constants left out).
    """

    layer: str
    op: str
    depth: int
    partition: int
    tensor: str  # the TOSA tensor holding the layer
    local_max: int
    local_mean: float
    local_rms: float
    local_differing: float  # share of elements not equal
    local_differing_at_ties: int  # of the differing elements (all samples), how many at half-step ties
    local_differing_count: int
    carried_max: int
    carried_mean: float
    folded: tuple[str, ...]
    tosa_ops: dict[str, int]


@dataclasses.dataclass(frozen=True)
class _Segment:
    layer: str
    probe: _Probe
    graph: bytes
    reads: tuple[str, ...]  # the segment's inputs, in feeding order
    read_info: tuple[TensorInfo, ...]
    operators: tuple[OperatorInfo, ...]


def bisect_layers(
    quantized: torch.fx.GraphModule,
    edge_graph: torch.fx.GraphModule,
    artifacts: Sequence[TosaArtifact],
    samples: Sequence[tuple[torch.Tensor, ...]],
    *,
    float64: bool = False,
) -> list[LayerBisection]:
    """Every probed layer's local and carried error over ``samples`` (see the module docstring);
    ``float64`` evaluates the quantized model in float64."""
    recorder_class = _Float64Recorder if float64 else _Recorder
    tie_tolerance = _TIE_TOLERANCE_STEPS[float64]
    layers = find_layers(quantized, quantized)
    by_name = {layer.name: layer for layer in layers}
    layer_names = set(by_name)
    quantized_names = {node.name for node in quantized.graph.nodes}
    probes, partition_inputs = find_probes(edge_graph, artifacts, layer_names, quantized_names)
    keep = {layer.quantize for layer in layers} | {source for pairs in partition_inputs for _, source in pairs if source}

    with torch.no_grad():
        first = recorder_class(quantized, keep)
        first.run(*samples[0])
    probes = _matching_probes(probes, artifacts, by_name, first.values)
    probes = _consistent_probes(probes, _segments(artifacts, probes, partition_inputs),
                                _carried(first, artifacts, partition_inputs, probes, by_name))  # fmt: skip
    keep |= set(probes)  # the probed layers' values before quantization: where they sit on a tie
    segments = _segments(artifacts, probes, partition_inputs)
    source_of_input = {
        (partition, tensor): source for partition, pairs in enumerate(partition_inputs) for tensor, source in pairs
    }
    probe_layer = {(probe.partition, probe.tensor): layer for layer, probe in probes.items()}

    local = collections.defaultdict(_Steps)
    carried = collections.defaultdict(_Steps)
    with torch.no_grad():
        for sample in samples:
            recorder = recorder_class(quantized, keep)
            recorder.run(*sample)
            expected = {layer: _ints(recorder, by_name[layer].quantize, probe) for layer, probe in probes.items()}
            ties = {layer: _ties(recorder, layer, by_name[layer].quantize, probe, tie_tolerance)
                    for layer, probe in probes.items()}  # fmt: skip
            for layer, steps in _carried(recorder, artifacts, partition_inputs, probes, by_name).items():
                carried[layer].add(*steps)
            for item in segments:
                feeds = []
                for tensor in item.reads:
                    source = source_of_input.get((item.probe.partition, tensor))
                    if source is not None:
                        feeds.append(recorder.values[source].numpy())
                    else:
                        feeds.append(expected[probe_layer[(item.probe.partition, tensor)]])
                feeds = [value.reshape(info.shape).astype(info.dtype) for info, value in zip(item.read_info, feeds)]
                (result,) = run_graph(item.graph, feeds)
                local[item.layer].add(result.reshape(expected[item.layer].shape), expected[item.layer], ties[item.layer])

    folded = _folded_layers(quantized, set(probes), layer_names)
    rows = []
    for item in segments:
        layer = by_name[item.layer]
        mine, whole = local[item.layer], carried[item.layer]
        rows.append(
            LayerBisection(
                layer=layer.name,
                op=layer.op,
                depth=layer.depth,
                partition=item.probe.partition,
                tensor=item.probe.tensor,
                local_max=mine.max,
                local_mean=mine.mean,
                local_rms=mine.rms,
                local_differing=mine.differing / mine.count if mine.count else 0.0,
                local_differing_at_ties=mine.at_ties,
                local_differing_count=mine.differing,
                carried_max=whole.max,
                carried_mean=whole.mean,
                folded=folded.get(layer.name, ()),
                tosa_ops=dict(collections.Counter(op.op for op in item.operators if not op.op.startswith("CONST"))),
            )
        )
    return sorted(rows, key=lambda row: row.depth)


def _carried(
    recorder: _Recorder,
    artifacts: Sequence[TosaArtifact],
    partition_inputs: list[list[tuple[str, str]]],
    probes: dict[str, _Probe],
    by_name: dict,
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per probed layer, (the whole partition's value, the quantized torch model's) for one sample."""
    pairs_of_layer = {}
    for partition, (artifact, pairs) in enumerate(zip(artifacts, partition_inputs)):
        if any(source not in recorder.values for _, source in pairs):
            continue
        feeds = [recorder.values[source].numpy().astype(io.dtype).reshape(io.shape)
                 for (_, source), io in zip(pairs, artifact.inputs)]  # fmt: skip
        wanted = [probe.tensor for probe in probes.values() if probe.partition == partition]
        whole = run_with_probes(artifact.flatbuffer, feeds, wanted)
        for layer, probe in probes.items():
            if probe.partition == partition:
                pairs_of_layer[layer] = (whole[probe.tensor], _ints(recorder, by_name[layer].quantize, probe))
    return pairs_of_layer


def _consistent_probes(
    probes: dict[str, _Probe], segments: Sequence[_Segment], carried: dict[str, tuple[np.ndarray, np.ndarray]]
) -> dict[str, _Probe]:
    """Drops probes whose tensor evidently holds another layer.

    Export renumbers nodes, so a name can lead the provenance to a different node of the same name
    (a transpose's tensor named after another transpose). Such a probe is far off the quantized model in
    the whole graph while every layer reading it is close: an error cannot vanish through the exact
    reshapes and transposes that follow one, whereas a real fault is carried on.
    """

    def mean_steps(layer: str) -> float:
        delegate, expected = carried[layer]
        # Flat: a probe may be a reshape of the layer's tensor (same elements, same order), as in _Steps.add.
        steps = delegate.astype(np.int64).reshape(-1) - expected.astype(np.int64).reshape(-1)
        return float(np.mean(np.abs(steps)))

    tensor_layer = {(probe.partition, probe.tensor): layer for layer, probe in probes.items()}
    readers: dict[str, list[str]] = collections.defaultdict(list)
    for item in segments:
        for tensor in item.reads:
            source = tensor_layer.get((item.probe.partition, tensor))
            if source is not None:
                readers[source].append(item.layer)
    wrong = {
        layer for layer in probes
        if layer in carried and readers[layer] and mean_steps(layer) > 1.0
        and all(reader in carried and 4 * mean_steps(reader) + 1 < mean_steps(layer) for reader in readers[layer])
    }  # fmt: skip
    return {layer: probe for layer, probe in probes.items() if layer not in wrong}


def _ints(recorder: _Recorder, quantize: str, probe: _Probe) -> np.ndarray:
    """The quantized torch model's ints at a layer, in the probe tensor's layout."""
    return _in_probe_layout(recorder.values[quantize].numpy(), probe)


def _in_probe_layout(value: np.ndarray, probe: _Probe) -> np.ndarray:
    return value.transpose(0, 2, 3, 1) if probe.nhwc else value


# How near a half step (in steps of the layer's grid) a value must be to count as a tie: float64 computes
# the grids' values to ~1e-12 of a step, float32 to ~1e-5 of one for the int8 and int16 ranges.
_TIE_TOLERANCE_STEPS = {True: 1e-6, False: 1e-4}


def _ties(recorder: _Recorder, layer: str, quantize: str, probe: _Probe, tolerance: float) -> np.ndarray:
    """Where the layer's value before quantization sits on a half step of its grid (probe layout)."""
    scale, _ = recorder.grids[quantize]
    steps = recorder.values[layer].double().numpy() / scale
    ties = np.abs(steps - np.floor(steps) - 0.5) < tolerance
    return _in_probe_layout(ties, probe)


class _Float64Recorder(_Recorder):
    """``_Recorder`` that evaluates the quantized model in float64: quantize and dequantize on the same
    integer grids (``round(x / scale)`` half to even, then the zero point and the clamp), every other op
    on float64 operands.

    The (de)quantize forms are float64_quantized.py's, the very functions of the whole-module oracle
    (the zoo audit, the off-list numerics): quantize divides by the scale, so an exact half step rounds
    to even as the exact fractions do. A convolution's bias sits on its accumulator grid
    (accumulator_grid.py), as there."""

    def __init__(self, module: torch.fx.GraphModule, keep: set[str]):
        super().__init__(module, keep)
        self._bias_scales = accumulator_bias_scales(module)

    def call_function(self, target: object, args: tuple, kwargs: dict) -> object:
        node = self._current
        if node.name in self._bias_scales:
            args = (args[0], self._bias_scales[node.name], *args[2:])
        form = FLOAT64_FORMS.get(target)
        if form is not None:
            return form(*args, **kwargs)
        if target is torch.ops.aten._assert_tensor_metadata.default:
            return None  # export's check of a .float() cast (GPT-Neo's scores) would refuse the float64 copy
        return super().call_function(target, *_in_float64((args, kwargs)))

    def run_node(self, node: Node) -> object:
        self._current = node
        return super().run_node(node)


def _in_float64(value: object) -> object:
    if isinstance(value, torch.Tensor):
        return value.double() if value.is_floating_point() else value
    if isinstance(value, (list, tuple)):
        return type(value)(_in_float64(item) for item in value)
    if isinstance(value, dict):
        return {key: _in_float64(item) for key, item in value.items()}
    return value


def _matching_probes(
    probes: dict[str, _Probe], artifacts: Sequence[TosaArtifact], layers: dict, values: dict[str, torch.Tensor]
) -> dict[str, _Probe]:
    """The probes whose TOSA tensor has the layer's shape (in its layout).

    A lowering may leave a node's name on a tensor of another layout (a transpose folded away); its
    elements then sit elsewhere, and feeding or comparing it would report an error no op made.
    """
    tables = [tensor_table(artifact.flatbuffer) for artifact in artifacts]
    kept = {}
    for layer, probe in probes.items():
        value = values.get(layers[layer].quantize)
        if value is None:
            continue
        shape = tuple(value.shape)
        if probe.nhwc and len(shape) != 4:
            continue  # an NHWC tensor named after a node of another rank holds something else
        if probe.nhwc:
            shape = (shape[0], shape[2], shape[3], shape[1])
        found = tables[probe.partition][probe.tensor].shape
        # A reshape of the layer's tensor (RESHAPED_INFIX) holds its elements in order: compared flat.
        reshaped = RESHAPED_INFIX in probe.tensor and math.prod(found) == math.prod(shape)
        if found == shape or reshaped:
            kept[layer] = probe
    return kept


def _segments(
    artifacts: Sequence[TosaArtifact], probes: dict[str, _Probe], partition_inputs: list[list[tuple[str, str]]]
) -> list[_Segment]:
    segments = []
    for partition, artifact in enumerate(artifacts):
        operators = operator_table(artifact.flatbuffer)
        names = tensor_names(artifact.flatbuffer)
        table = tensor_table(artifact.flatbuffer)
        inputs = {tensor for tensor, _ in partition_inputs[partition]}
        boundary = inputs | {probe.tensor for probe in probes.values() if probe.partition == partition}
        for layer, probe in probes.items():
            if probe.partition != partition:
                continue
            kept, reads = segment_operators(operators, [probe.tensor], boundary)
            if not kept or any(name not in boundary for name in reads):
                continue  # the probe is a partition input, or reads something no layer holds
            try:
                graph = segment(artifact.flatbuffer, reads, [probe.tensor], operators, names)
            except TosaProbeError:
                continue
            segments.append(_Segment(layer, probe, graph, tuple(reads), tuple(table[name] for name in reads), tuple(kept)))
    return segments


def _folded_layers(quantized: torch.fx.GraphModule, probed: set[str], layer_names: set[str]) -> dict[str, tuple[str, ...]]:
    """Per probed layer, the unprobed layers between it and the probed layers above it."""
    nodes = {node.name: node for node in quantized.graph.nodes}
    folded: dict[str, tuple[str, ...]] = {}
    for name in probed:
        found: list[str] = []
        stack: list[Node] = list(nodes[name].all_input_nodes)
        seen: set[Node] = set()
        while stack:
            node = stack.pop()
            if node in seen or node.name in probed:
                continue
            seen.add(node)
            if node.name in layer_names:
                found.append(node.name)
            stack.extend(node.all_input_nodes)
        folded[name] = tuple(sorted(found))
    return folded


def by_op(rows: Sequence[LayerBisection]) -> list[tuple[str, int, float, int]]:
    """(op, layers, mean local error in steps, largest local error), largest mean first.

    A segment that folds unprobed layers is counted under its own op and named with the folded ops'
    layers in the per-layer table; the op of the probed layer is what a fix starts from."""
    groups: dict[str, list[LayerBisection]] = collections.defaultdict(list)
    for row in rows:
        groups[row.op].append(row)
    summary = [
        (op, len(items), sum(item.local_mean for item in items) / len(items), max(item.local_max for item in items))
        for op, items in groups.items()
    ]
    return sorted(summary, key=lambda item: -item[2])


def first_departure(rows: Sequence[LayerBisection]) -> LayerBisection | None:
    """The first layer in graph order whose local differences are not all at half-step ties: the op
    whose lowering departs from the quantized model's semantics (later ones may inherit it only through
    the carried error, which the local one leaves out)."""
    return next((row for row in rows if row.local_differing_count > row.local_differing_at_ties), None)


def format_table(rows: Sequence[LayerBisection], *, top: int = 10) -> str:
    lines = [f"{'depth':>5} {'layer':<28} {'op':<26} {'local max/mean/differ':>24} {'at ties':>8} "
             f"{'carried max/mean':>17}  folded / TOSA ops"]  # fmt: skip
    for row in rows:
        lines.append(_format_row(row))
    lines.append("")
    lines.append(f"largest local error (mean steps), top {top}:")
    for row in sorted(rows, key=lambda row: (-row.local_mean, -row.local_max))[:top]:
        lines.append(_format_row(row))
    lines.append("")
    lines.append("local error by op: op, layers, mean steps, largest step")
    for op, count, mean, largest in by_op(rows):
        lines.append(f"  {op:<32} {count:>4} {mean:8.4f} {largest:5d}")
    lines.append("")
    first = first_departure(rows)
    lines.append("first departure not at ties: " + ("none" if first is None else _format_row(first)))
    return "\n".join(lines)


def _format_row(row: LayerBisection) -> str:
    ops = ",".join(f"{name}x{count}" for name, count in sorted(row.tosa_ops.items()))
    folded = ("+" + ",".join(row.folded) + " ") if row.folded else ""
    return (
        f"{row.depth:>5} {row.layer:<28.28} {row.op:<26.26} {row.local_max:>7} {row.local_mean:7.4f} {row.local_differing:7.2%}"
        f" {row.local_differing_at_ties:>8} {row.carried_max:>7} {row.carried_mean:8.4f}  {folded}{ops}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m arm.report.bisect", description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="model factory, e.g. models.zoo.deit_tiny:small")
    parser.add_argument("--target", default="ethos-u55-128", help="an integer target (tosa-INT, ethos-u55-128, ...)")
    parser.add_argument("--samples", type=int, default=4, help="calibration inputs to quantize with and compare on")
    parser.add_argument("--top", type=int, default=10, help="how many of the worst layers to list")
    parser.add_argument("--float64", action="store_true",
                        help="evaluate the quantized model in float64 (exact ties; the bench compares with float32)")
    parser.add_argument("--json", help="also write the rows to this file")
    args = parser.parse_args(argv)

    from arm.flow import resolve_target, run_flow
    from arm.model_spec import load_model_spec

    spec = load_model_spec(args.model)
    target = resolve_target(args.target)
    if not target.is_quantized:
        parser.error(f"{args.target} runs float: there is no quantized torch model to bisect against")
    result = run_flow(spec, target, calibration_samples=args.samples)
    samples = spec.calibration_inputs[: args.samples]
    rows = bisect_layers(result.quantized_module, result.edge_graph, result.artifacts.tosa, samples, float64=args.float64)
    print(format_table(rows, top=args.top))
    if args.json:
        with open(args.json, "w") as out:
            json.dump([dataclasses.asdict(row) for row in rows], out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
