"""The report's numbers against independent ones, on the small CNN for Ethos-U55-128.

- time: the rows equal Vela's own per-operator CSV, and add up to the total of its summary CSV;
- placement: every node of the delegated sub-graph is placed in its partition, every CPU node carries
  the partitioner's reason;
- error: the last layer's SQNR equals the one computed from PyTorch's float and quantized modules
  called directly, and from the TOSA reference model run on the unmodified delegate graph;
- a layer whose quantization scale is made 8x too fine (it saturates) is the one the report singles out;
- bisection (arm.report.bisect): a cut TOSA graph recomputes the whole graph's values bit for bit, and a
  RESCALE multiplier broken in the delegate's graph is found at its layer and nowhere else; the quantized
  model evaluated in float64 gives float32's codes except at half-step ties, which it finds.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math

import numpy as np
import pytest
import torch
import tosa_reference_model
from torchao.quantization.pt2e import allow_exported_model_train_eval

from arm.compile import main as compile_main
from arm.flow import _quantize, resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.report.build import build_report
from arm.report.page import find_chart_library, render_html
from arm.report.bisect import _Float64Recorder, _Recorder, bisect_layers, first_departure, format_table
from arm.report.tosa_probes import (
    TosaProbeError,
    graph_outputs,
    operator_table,
    run_graph,
    run_with_probes,
    segment,
    segment_operators,
    tensor_table,
)
from tosa import TosaGraph
from models.small_cnn import model as small_cnn

SAMPLES = 4
TARGET = "ethos-u55-128"
MIS_SCALED_LAYER = "relu_1"
MIS_SCALE = 8.0


@pytest.fixture(scope="module")
def spec() -> ModelSpec:
    return small_cnn()


@pytest.fixture(scope="module")
def compiled(spec):
    result = run_flow(spec, resolve_target(TARGET), calibration_samples=SAMPLES, progress=False)
    return result, build_report(result, "models.small_cnn:model", spec.calibration_inputs[:SAMPLES])


def _sqnr_db(reference: list[np.ndarray], test: list[np.ndarray]) -> float:
    signal = sum(float(np.sum(r.astype(np.float64) ** 2)) for r in reference)
    noise = sum(float(np.sum((t.astype(np.float64) - r.astype(np.float64)) ** 2)) for r, t in zip(reference, test))
    return 10 * math.log10(signal / noise)


def test_vela_rows_are_vela_per_layer_csv(compiled):
    result, report = compiled
    (vela,) = result.artifacts.vela
    rows = list(csv.DictReader(io.StringIO(vela.per_layer_csv)))
    assert len(report.vela_layers) == len(rows) > 5
    for layer, row in zip(report.vela_layers, rows):
        assert (layer.operator, layer.tensor) == (row["Original Operator"], row["Name"])
        assert layer.cycles == int(row["Op Cycles"])
        assert layer.compute_cycles == int(row["NPU"])
        assert layer.macs == int(row["MAC Count"])
    assert sum(layer.cycles for layer in report.vela_layers) == vela.total_cycles
    (partition,) = report.partitions
    assert partition.total_cycles == vela.total_cycles and partition.share == 1.0
    top = report.top_layers()
    assert [layer.cycles for layer in top] == sorted((int(row["Op Cycles"]) for row in rows), reverse=True)[:10]
    # Conv rows name the layer they compute (the relu their output is clamped by): read from the graph.
    conv_layers = {layer.layer for layer in report.vela_layers if layer.operator == "Conv2D"}
    assert {"relu", "relu_2", "conv2d_3", "linear"} <= conv_layers


def test_placement_covers_every_node_with_reasons(compiled):
    result, report = compiled
    lowered = next(module for name, module in result.edge_graph.named_children() if name.startswith("lowered_module"))
    compute = {
        node.name for node in lowered.original_module.graph.nodes
        if node.op == "call_function" and "quantize" not in str(node.target)
    }
    placed = {node.name for node in report.placement if node.partition == 0 and node.kind == "compute"}
    assert placed == compute
    cpu = {node.name: node.reason for node in report.placement if node.partition is None}
    assert cpu == dict(result.rejected)
    assert all(node.backend == "EthosUBackend" for node in report.placement if node.partition == 0)


def test_tosa_probes_leave_the_graph_as_it_was(compiled, spec):
    result, _ = compiled
    (artifact,) = result.artifacts.tosa
    x = artifact.inputs[0].quantize(spec.calibration_inputs[0][0].numpy())
    (plain,), _ = tosa_reference_model.run(artifact.flatbuffer, [x])
    probes = [name for name, info in tensor_table(artifact.flatbuffer).items() if info.dtype == np.int8][:12]
    probed = run_with_probes(artifact.flatbuffer, [x], probes)
    (output,) = graph_outputs(artifact.flatbuffer)
    np.testing.assert_array_equal(probed[output].reshape(-1), np.asarray(plain).reshape(-1))
    assert set(probes) <= set(probed)


def test_last_layer_error_matches_pytorch_and_the_reference_model(compiled, spec):
    result, report = compiled
    samples = spec.calibration_inputs[:SAMPLES]
    with torch.no_grad():
        floats = [spec.module(*sample).numpy() for sample in samples]
        quantized = [result.quantized_module(*sample).numpy() for sample in samples]
    (artifact,) = result.artifacts.tosa
    delegate = []
    for sample in samples:
        (out,), _ = tosa_reference_model.run(artifact.flatbuffer, [artifact.inputs[0].quantize(sample[0].numpy())])
        delegate.append(artifact.outputs[0].dequantize(np.asarray(out)).reshape(floats[0].shape))

    last = report.errors[-1]
    assert last.layer == "linear" and last.depth == len(report.errors) - 1
    assert last.sqnr_quantized_db == pytest.approx(_sqnr_db(floats, quantized), abs=1e-3)
    assert last.sqnr_delegate_db == pytest.approx(_sqnr_db(floats, delegate), abs=1e-3)
    assert 20 < last.sqnr_delegate_db < 80
    # The input's own quantization comes first and is not ranked.
    assert report.errors[0].op == "input" and report.errors[0].drop_db == 0.0


def _mis_scaled(spec: ModelSpec) -> torch.fx.GraphModule:
    """The small CNN quantized as the flow does, then ``MIS_SCALED_LAYER``'s grid made 8x too fine."""
    target = resolve_target(TARGET)
    exported = torch.export.export(spec.module.eval(), spec.example_inputs)
    quantized = _quantize(exported, target.quantizer(), spec.calibration_inputs[:SAMPLES])
    (quantize,) = [
        user for node in quantized.graph.nodes if node.name == MIS_SCALED_LAYER
        for user in node.users if "quantize_per_tensor" in str(user.target)
    ]
    for node in [quantize, *quantize.users]:
        args = list(node.args)
        args[1] = args[1] / MIS_SCALE
        node.args = tuple(args)
    quantized.recompile()
    # run_flow puts its module in eval mode, which pt2e modules refuse unless told that it is harmless.
    allow_exported_model_train_eval(quantized)
    return quantized


class _Holder(torch.nn.Module):
    """Gives the flow an ordinary module around a pt2e one (whose eval() returns None)."""

    def __init__(self, graph: torch.fx.GraphModule):
        super().__init__()
        self.quantized = graph

    def forward(self, *inputs: torch.Tensor) -> torch.Tensor:
        return self.quantized(*inputs)


def test_mis_scaled_layer_is_singled_out(compiled, spec):
    _, clean = compiled
    broken = _mis_scaled(spec)
    result = run_flow(
        ModelSpec(_Holder(broken), spec.example_inputs, spec.calibration_inputs[:SAMPLES]),
        resolve_target(TARGET),
        quantize=False,
        progress=False,
    )
    float_graph = torch.export.export(spec.module.eval(), spec.example_inputs).module()
    report = build_report(
        result, "mis-scaled small CNN", spec.calibration_inputs[:SAMPLES], float_graph=float_graph, quantized_graph=broken
    )
    worst = report.worst_layer()
    assert worst.layer == MIS_SCALED_LAYER
    clean_drop = next(error.drop_db for error in clean.errors if error.layer == MIS_SCALED_LAYER)
    assert worst.drop_db > clean_drop + 10
    # The saturation is in the model, not in the delegate: the NPU graph agrees with the broken torch model.
    assert worst.lsb_max is not None and worst.lsb_max <= 1


def test_page_is_self_contained(compiled):
    _, report = compiled
    page = render_html(report, find_chart_library())
    assert page.count("<script") == 4  # data, error hook, Chart.js, page script: all inline
    for external in ("<script src", "<link", "src=\"http", "href=\"http", "url(", "@import"):
        assert external not in page
    assert "Chart.js v4.5.1" in page
    assert report.to_json().replace("</", "<\\/") in page


def test_cli_needs_an_output_and_a_chart_library(tmp_path, capsys):
    def compile_(*extra: str) -> tuple[int, str]:
        status = compile_main(["--model", "models.small_cnn:model", "--target", TARGET, *extra])
        return status, capsys.readouterr().err

    status, message = compile_()
    assert status == 2 and "nothing to write" in message
    status, message = compile_("--report", str(tmp_path / "r.html"), "--chart-library", str(tmp_path / "none.js"))
    assert status == 2 and "chart.umd.min.js" in message
    assert not (tmp_path / "r.html").exists()


class _CpuIsland(torch.nn.Module):
    """conv, relu | where (compare + select: CPU on the U55) | conv, relu, conv: two partitions."""

    def __init__(self):
        super().__init__()
        self.first = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.second = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.last = torch.nn.Conv2d(8, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.first(x))
        x = torch.where(x > 0.1, x, x * 0.5)
        return self.last(torch.relu(self.second(x)))


def test_cpu_island_between_two_partitions():
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    samples = [(torch.rand(1, 3, 16, 16, generator=generator) * 2 - 1,) for _ in range(SAMPLES)]
    result = run_flow(ModelSpec(_CpuIsland().eval(), samples[0], samples), resolve_target(TARGET), progress=False)
    report = build_report(result, "cpu island", samples)

    assert [partition.partition for partition in report.partitions] == [0, 1]
    assert sum(partition.share for partition in report.partitions) == pytest.approx(1.0)
    order = [node.partition for node in report.placement if node.kind == "compute"]
    island = [node for node in report.placement if node.kind == "compute" and node.partition is None]
    assert order.index(None) > order.index(0) and len(order) - 1 - order[::-1].index(None) < order.index(1)
    assert {node.op for node in island} == {"aten.gt.Scalar", "aten.where.self"}
    assert all(node.reason and node.name in node.reason for node in island)
    # The second partition is fed the quantized torch model's values at its inputs and compared layer by layer.
    second = [error for error in report.errors if error.partition == 1]
    assert second and all(error.sqnr_delegate_db is not None and error.lsb_max <= 1 for error in second)
    assert next(error.where for error in report.errors if error.layer == "where") == "CPU"



def test_segments_recompute_the_graph_bit_exactly(compiled, spec):
    """A segment fed the whole graph's own values at its cut gives what the whole graph gives."""
    result, _ = compiled
    (artifact,) = result.artifacts.tosa
    x = artifact.inputs[0].quantize(spec.calibration_inputs[0][0].numpy())
    operators = operator_table(artifact.flatbuffer)
    (output,) = graph_outputs(artifact.flatbuffer)
    table = tensor_table(artifact.flatbuffer)
    cut = [op.outputs[0] for op in operators if op.op == "RESCALE" and table[op.outputs[0]].dtype == np.int8][2]
    whole = run_with_probes(artifact.flatbuffer, [x], [cut])
    kept, reads = segment_operators(operators, [output], {cut})
    assert cut in reads and 0 < len(kept) < len(operators)
    feeds = [whole[cut] if name == cut else x for name in reads]
    (alone,) = run_graph(segment(artifact.flatbuffer, reads, [output]), feeds)
    np.testing.assert_array_equal(alone.reshape(-1), whole[output].reshape(-1))
    # A segment that would need a tensor it is not given is refused.
    with pytest.raises(TosaProbeError, match="not a segment input"):
        segment(artifact.flatbuffer, [], [output])


def _with_multiplier_scaled(flatbuffer: bytes, rescale_output: str, factor: float) -> bytes:
    """The graph with the RESCALE writing ``rescale_output`` given multipliers ``factor`` times its own."""
    (operator,) = [op for op in operator_table(flatbuffer) if op.op == "RESCALE" and op.outputs[0] == rescale_output]
    multiplier = operator.inputs[1]
    block = TosaGraph.TosaGraph.GetRootAs(flatbuffer, 0).Regions(0).Blocks(0)
    (tensor,) = [block.Tensors(i) for i in range(block.TensorsLength()) if block.Tensors(i).Name().decode() == multiplier]
    data = tensor._tab.Vector(tensor._tab.Offset(10))  # TosaTensor.data (field slot 10)
    values = np.frombuffer(flatbuffer, np.int32, tensor.DataLength() // 4, data)
    out = bytearray(flatbuffer)
    out[data : data + values.nbytes] = np.round(values * factor).astype(np.int32).tobytes()
    return bytes(out)


def test_bisect_names_the_layer_whose_lowering_is_wrong(compiled, spec):
    """One layer's RESCALE multiplier made 0.8x in the TOSA graph: the bisection puts all the local error
    there, while the layers above it and the clean graph stay within a step of the quantized model."""
    result, _ = compiled
    samples = spec.calibration_inputs[:SAMPLES]
    clean = bisect_layers(result.quantized_module, result.edge_graph, result.artifacts.tosa, samples)
    assert len(clean) >= 5 and all(row.local_max <= 1 for row in clean)

    (artifact,) = result.artifacts.tosa
    broken_row = next(row for row in clean if row.layer == MIS_SCALED_LAYER)
    broken_tensor = _rescale_feeding(artifact.flatbuffer, broken_row.tensor)
    broken = dataclasses.replace(artifact, flatbuffer=_with_multiplier_scaled(artifact.flatbuffer, broken_tensor, 0.8))
    rows = bisect_layers(result.quantized_module, result.edge_graph, [broken], samples)
    worst = max(rows, key=lambda row: row.local_mean)
    assert worst.layer == MIS_SCALED_LAYER and worst.local_mean > 2
    assert all(row.local_max <= 1 for row in rows if row.layer != MIS_SCALED_LAYER)
    # The whole graph carries the error on: the last layer is off although its own lowering is right.
    assert rows[-1].carried_max > 1 and rows[-1].local_max <= 1
    assert first_departure(rows).layer == MIS_SCALED_LAYER and first_departure(clean) is None
    print(format_table(rows))


def test_float64_codes_differ_from_float32_only_at_ties(compiled, spec):
    """The float64 evaluation (bisect --float64) quantizes every layer as float32 torch does, but where
    float32's rounding of a value near a half step decides the side."""
    result, _ = compiled
    quantized = result.quantized_module
    quantizes = {node.name: node.args[0].name for node in quantized.graph.nodes if "quantize_per_tensor" in str(node.target)
                 and "dequantize" not in str(node.target) and node.args[0].op == "call_function"}  # fmt: skip
    keep = set(quantizes) | set(quantizes.values())
    compared = near_ties = 0
    with torch.no_grad():
        for sample in spec.calibration_inputs[:SAMPLES]:
            single, double = _Recorder(quantized, keep), _Float64Recorder(quantized, keep)
            single.run(*sample)
            double.run(*sample)
            for quantize, layer in quantizes.items():
                assert double.values[layer].dtype == torch.float64
                scale, _ = double.grids[quantize]
                steps = double.values[layer].numpy() / scale
                distance_to_half = np.abs(steps - np.floor(steps) - 0.5)
                differ = double.values[quantize].numpy() != single.values[quantize].numpy()
                assert np.all(distance_to_half[differ] < 1e-3), quantize
                compared += steps.size
                near_ties += int(np.count_nonzero(distance_to_half < 1e-3))
    assert compared > 1000 and near_ties < compared // 100


def _rescale_feeding(flatbuffer: bytes, tensor: str) -> str:
    """The output of the last RESCALE on the way to ``tensor`` (through reshapes, transposes, clamps)."""
    producer = {name: op for op in operator_table(flatbuffer) for name in op.outputs}
    while producer[tensor].op != "RESCALE":
        tensor = producer[tensor].inputs[0]
    return tensor
