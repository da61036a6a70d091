"""Per-layer error of a quantized model: float model vs quantized torch model vs the delegate.

A *layer* is a point where the quantized torch graph puts a value on an int grid: a node followed by a
quantize (the model inputs' quantization included). Each sample runs through

- the float model (its export, every node's output recorded),
- the quantized torch model (pt2e's converted module: the int values and their grid at each layer),
- each delegated partition's TOSA graph on the TOSA reference model, its inputs taken from the
  quantized torch model, with the tensor of every layer exposed as an output (arm.report.tosa_probes),

and the layer's statistics accumulate over all samples (see report_data.LayerError). A float node
whose output batch norm rescales (conv before BN folding) is compared after the batch norm, as that
is what the folded quantized conv computes.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Sequence

import numpy as np
import torch
from torch.fx import Interpreter, Node

from arm.artifacts import TosaArtifact
from arm.report.provenance import is_dequantize, is_quantize, op_name, origin
from arm.report.report_data import SQNR_CAP_DB, LayerError
from arm.report.tosa_probes import TensorInfo, run_with_probes, tensor_table
from arm.tosa.reshape_sinking import RESHAPED_INFIX

_INT_DTYPES = (np.dtype(np.int8), np.dtype(np.int16))


@dataclasses.dataclass(frozen=True)
class _Layer:
    name: str  # node of the quantized torch graph whose output the quantize puts on its grid
    quantize: str  # that quantize node
    op: str
    depth: int
    float_node: str | None  # the float graph's node to compare with
    upstream: tuple[str, ...]  # the nearest layers feeding this one


@dataclasses.dataclass(frozen=True)
class _Probe:
    """Where one layer's int tensor sits in a partition's TOSA graph."""

    partition: int
    tensor: str
    nhwc: bool


@dataclasses.dataclass
class _Stats:
    signal: float = 0.0
    error_quantized: float = 0.0
    error_delegate: float = 0.0
    dot_quantized: float = 0.0
    norm_quantized: float = 0.0
    dot_delegate: float = 0.0
    norm_delegate: float = 0.0
    lsb_max: int = 0
    lsb_sum: float = 0.0
    lsb_count: int = 0

    def add_quantized(self, reference: np.ndarray, quantized: np.ndarray) -> None:
        self.signal += float(np.sum(reference * reference))
        self.error_quantized += float(np.sum((quantized - reference) ** 2))
        self.dot_quantized += float(np.sum(reference * quantized))
        self.norm_quantized += float(np.sum(quantized * quantized))

    def add_delegate(self, reference: np.ndarray, delegate: np.ndarray, lsb: np.ndarray) -> None:
        self.error_delegate += float(np.sum((delegate - reference) ** 2))
        self.dot_delegate += float(np.sum(reference * delegate))
        self.norm_delegate += float(np.sum(delegate * delegate))
        self.lsb_max = max(self.lsb_max, int(lsb.max(initial=0)))
        self.lsb_sum += float(lsb.sum())
        self.lsb_count += lsb.size


class _Recorder(Interpreter):
    """Runs a graph and keeps the outputs (and, for quantize nodes, the grid) of the named nodes."""

    def __init__(self, module: torch.fx.GraphModule, keep: set[str]):
        super().__init__(module)
        self.keep = keep
        self.values: dict[str, torch.Tensor] = {}
        self.grids: dict[str, tuple[float, int]] = {}

    def run_node(self, node: Node) -> Any:
        result = super().run_node(node)
        if node.name in self.keep:
            self.values[node.name] = result
            if is_quantize(node):
                args, _ = self.fetch_args_kwargs_from_env(node)
                self.grids[node.name] = (float(args[1]), int(args[2]))
        return result


def find_layers(quantized: torch.fx.GraphModule, float_graph: torch.fx.GraphModule) -> list[_Layer]:
    """The layers of the quantized graph in graph order, each with its float counterpart and inputs."""
    float_nodes = {node.name: node for node in float_graph.graph.nodes}
    layer_of: dict[Node, str] = {}
    layers: list[_Layer] = []
    for node in quantized.graph.nodes:
        if node.op not in ("call_function", "placeholder") or is_quantize(node) or is_dequantize(node):
            continue
        quantize = next((user for user in node.users if is_quantize(user)), None)
        if quantize is None:
            continue
        layer_of[node] = node.name
        layers.append(
            _Layer(
                name=node.name,
                quantize=quantize.name,
                op="input" if node.op == "placeholder" else op_name(node),
                depth=len(layers),
                float_node=_float_counterpart(float_nodes.get(node.name)),
                upstream=tuple(_upstream_layers(node, layer_of)),
            )
        )
    return layers


def _float_counterpart(node: Node | None) -> str | None:
    """``node``, or the batch norm output it feeds alone (the quantized conv has the norm folded in)."""
    if node is None:
        return None
    while len(node.users) == 1:
        (user,) = node.users
        if "batch_norm" not in str(user.target):
            break
        node = user
        getitems = [item for item in node.users if "getitem" in str(item.target) and item.args[1] == 0]
        if getitems:
            node = getitems[0]
    return node.name


def _upstream_layers(node: Node, layer_of: dict[Node, str]) -> list[str]:
    """The nearest layers above ``node``: its inputs, looked through until each path meets a layer."""
    found: list[str] = []
    stack = list(node.all_input_nodes)
    seen: set[Node] = set()
    while stack:
        current = stack.pop()
        if current in seen:
            continue
        seen.add(current)
        if current in layer_of:
            found.append(layer_of[current])
        else:
            stack.extend(current.all_input_nodes)
    return sorted(set(found))


def find_probes(
    edge_graph: torch.fx.GraphModule, artifacts: Sequence[TosaArtifact], layer_names: set[str], quantized_names: set[str]
) -> tuple[dict[str, _Probe], list[list[tuple[str, str]]]]:
    """Per layer, the TOSA tensor holding it; per partition, (TOSA input, quantized torch node) pairs."""
    probes: dict[str, _Probe] = {}
    inputs: list[list[tuple[str, str]]] = []
    lowered = [
        getattr(edge_graph, node.args[0].target)
        for node in edge_graph.graph.nodes
        if node.op == "call_function" and "executorch_call_delegate" in str(node.target)
    ]
    for partition, (module, artifact) in enumerate(zip(lowered, artifacts, strict=True)):
        program = module.original_module
        tensors = tensor_table(artifact.flatbuffer)
        placeholders = {node.name: node for node in program.graph.nodes if node.op == "placeholder"}
        inputs.append([(io.name, origin(placeholders[io.name], quantized_names)) for io in artifact.inputs])
        for node in program.graph.nodes:
            if node.op != "call_function" or is_quantize(node) or is_dequantize(node):
                continue
            layer = origin(node, layer_names)
            quantize = next((user for user in node.users if is_quantize(user)), None)
            if layer is None or quantize is None:
                continue
            # getitem (of native_layer_norm, max_pool2d_with_indices, ...) makes no tensor of its own:
            # its source's tensor holds the value.
            names = [quantize.name, node.name]
            if "getitem" in str(node.target) and isinstance(node.args[0], Node):
                names.append(node.args[0].name)
            names += _reshaped_source_names(node)
            probe = _probe(tensors, partition, names)
            if probe is not None and layer not in probes:
                probes[layer] = probe
    return probes, inputs


# Ops whose output holds their input's values in the same (row-major) order.
_REORDER_FREE = ("view_copy", "_unsafe_view", "squeeze_copy", "unsqueeze_copy", "alias_copy", "clone", "_clone_dim_order")


def _reshaped_source_names(node: Node) -> list[str]:
    """For a reshape, the names its input's tensor may carry (through the q/dq between them): the TOSA
    graph passes fold reshape chains (arm.tosa.reshape_sinking), leaving no tensor named after it."""
    parts = op_name(node).split(".")  # namespace.op[.overload]
    if len(parts) < 2 or parts[1] not in _REORDER_FREE or not node.args or not isinstance(node.args[0], Node):
        return []
    names, source = [], node.args[0]
    while isinstance(source, Node) and (is_dequantize(source) or is_quantize(source)):
        names.append(source.name)
        source = source.args[0] if source.args else None
    if isinstance(source, Node) and source.op == "call_function":
        names.append(source.name)
    return names


def _probe(tensors: dict[str, TensorInfo], partition: int, names: Sequence[str]) -> _Probe | None:
    """The int tensor the lowering named after one of ``names`` (the quantize first, then its producer).

    The lowering names a tensor after its edge node, with ``_nhwc`` for the channels-last copy that
    convolutions leave behind; either holds the layer's values on its int grid.
    """
    for name in names:
        for tensor, nhwc in ((name, False), (f"{name}_nhwc", True)):
            info = tensors.get(tensor)
            if info is not None and info.dtype in _INT_DTYPES:
                return _Probe(partition, tensor, nhwc and len(info.shape) == 4)
    # arm.tosa.reshape_sinking moves a reshape below the operator that wrote the layer and names the
    # result ``{name}_as_{shape}``: the same elements in the same (row-major) order.
    for name in names:
        reshaped = [tensor for tensor, info in tensors.items() if tensor.startswith(f"{name}{RESHAPED_INFIX}")
                    and info.dtype in _INT_DTYPES]  # fmt: skip
        if len(reshaped) == 1:
            return _Probe(partition, reshaped[0], False)
    return None



def analyze_layers(
    float_graph: torch.fx.GraphModule,
    quantized: torch.fx.GraphModule,
    edge_graph: torch.fx.GraphModule | None,
    artifacts: Sequence[TosaArtifact],
    samples: Sequence[tuple[torch.Tensor, ...]],
    placement_of: dict[str, int | None],
) -> list[LayerError]:
    """The per-layer error over ``samples`` (see the module docstring).

    ``placement_of`` maps a layer to its partition (None: on the CPU); layers it lacks were folded or
    removed on the way to the .pte.
    """
    layers = find_layers(quantized, float_graph)
    layer_names = {layer.name for layer in layers}
    quantized_names = {node.name for node in quantized.graph.nodes}
    probes, partition_inputs = ({}, []) if edge_graph is None else find_probes(
        edge_graph, artifacts, layer_names, quantized_names
    )
    keep_quantized = {layer.quantize for layer in layers} | {
        source for pairs in partition_inputs for _, source in pairs if source
    }
    keep_float = {layer.float_node for layer in layers if layer.float_node}
    stats = {layer.name: _Stats() for layer in layers}

    with torch.no_grad():
        for sample in samples:
            reference = _Recorder(float_graph, keep_float)
            reference.run(*sample)
            recorder = _Recorder(quantized, keep_quantized)
            recorder.run(*sample)
            delegate = _run_partitions(artifacts, partition_inputs, probes, recorder.values)
            for layer in layers:
                if layer.float_node is None:
                    continue
                _accumulate(stats[layer.name], layer, reference.values[layer.float_node], recorder, delegate.get(layer.name))

    return _layer_errors(layers, stats, placement_of)


def _run_partitions(
    artifacts: Sequence[TosaArtifact],
    partition_inputs: list[list[tuple[str, str]]],
    probes: dict[str, _Probe],
    values: dict[str, torch.Tensor],
) -> dict[str, np.ndarray]:
    """Each partition's TOSA graph on the quantized torch model's values at its inputs: layer -> ints."""
    results: dict[str, np.ndarray] = {}
    for partition, (artifact, pairs) in enumerate(zip(artifacts, partition_inputs)):
        if any(source is None or source not in values for _, source in pairs):
            continue  # an input the quantized torch graph does not hold: this partition is not compared
        feeds = [
            values[source].numpy().astype(io.dtype).reshape(io.shape) for (_, source), io in zip(pairs, artifact.inputs)
        ]
        wanted = {layer: probe for layer, probe in probes.items() if probe.partition == partition}
        tensors = run_with_probes(artifact.flatbuffer, feeds, [probe.tensor for probe in wanted.values()])
        for layer, probe in wanted.items():
            value = tensors[probe.tensor]
            results[layer] = value.transpose(0, 3, 1, 2) if probe.nhwc else value
    return results


def _accumulate(
    stats: _Stats, layer: _Layer, reference: torch.Tensor, recorder: _Recorder, delegate: np.ndarray | None
) -> None:
    scale, zero_point = recorder.grids[layer.quantize]
    ints = recorder.values[layer.quantize].numpy().astype(np.int64)
    real = reference.detach().numpy().astype(np.float64).reshape(ints.shape)
    stats.add_quantized(real, (ints - zero_point) * scale)
    if delegate is not None and delegate.size == ints.size:
        delegate_ints = delegate.astype(np.int64).reshape(ints.shape)
        stats.add_delegate(real, (delegate_ints - zero_point) * scale, np.abs(delegate_ints - ints))


def _sqnr_db(signal: float, error: float) -> float:
    if error == 0.0:
        return math.inf
    if signal == 0.0:
        return -math.inf
    return 10.0 * math.log10(signal / error)


def _cosine(dot: float, norm_a: float, norm_b: float) -> float:
    denominator = math.sqrt(norm_a * norm_b)
    return dot / denominator if denominator else 1.0


def _where(layer: _Layer, placement_of: dict[str, int | None]) -> str:
    if layer.op == "input":
        return "model input"
    if layer.name not in placement_of:
        return "not in the program"
    partition = placement_of[layer.name]
    return "CPU" if partition is None else f"partition {partition}"


def _layer_errors(
    layers: list[_Layer], stats: dict[str, _Stats], placement_of: dict[str, int | None]
) -> list[LayerError]:
    sqnr: dict[str, float] = {}
    errors: list[LayerError] = []
    for layer in layers:
        if layer.float_node is None:
            continue
        s = stats[layer.name]
        has_delegate = s.lsb_count > 0
        quantized_db = _sqnr_db(s.signal, s.error_quantized)
        delegate_db = _sqnr_db(s.signal, s.error_delegate) if has_delegate else None
        sqnr[layer.name] = delegate_db if delegate_db is not None else quantized_db
        inputs = [sqnr[name] for name in layer.upstream if name in sqnr]
        # A model input has nothing upstream and is not ranked; every other layer is measured against the
        # worst of what reached it. Exact layers (infinite SQNR) count as the cap.
        own = min(sqnr[layer.name], SQNR_CAP_DB)
        drop = min(min(inputs), SQNR_CAP_DB) - own if inputs else 0.0
        errors.append(
            LayerError(
                layer=layer.name,
                op=layer.op,
                depth=layer.depth,
                partition=placement_of.get(layer.name),
                where=_where(layer, placement_of),
                sqnr_quantized_db=quantized_db,
                cosine_quantized=_cosine(s.dot_quantized, s.signal, s.norm_quantized),
                sqnr_delegate_db=delegate_db,
                cosine_delegate=_cosine(s.dot_delegate, s.signal, s.norm_delegate) if has_delegate else None,
                lsb_max=s.lsb_max if has_delegate else None,
                lsb_mean=s.lsb_sum / s.lsb_count if has_delegate else None,
                drop_db=drop,
            )
        )
    return errors
