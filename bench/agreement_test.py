"""bench.agreement's float64 measure, bench.float64_reference and bench.peer_agreement's parts, on tiny
inputs (one small compile with our flow; the peer is not run)."""

import pytest
import torch

from arm.flow import resolve_target, run_flow
from arm.model_spec import ModelSpec
from bench.agreement import measure_agreement
from bench.float64_reference import quantized_in_float64
from bench.peer_agreement import Boundary, boundary_of, graph_digest, saved_tosa
from bench.pte_program import read_pte


def test_the_float64_reference_widens_a_constant_a_decomposition_made_without_a_dtype():
    # The peer's softmax and attention decompositions make constants with aten.full and no dtype: float32.
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    third = graph.call_function(torch.ops.aten.full.default, ([4], 1 / 3))
    graph.output(graph.call_function(torch.ops.aten.mul.Tensor, (x, third)))
    module = torch.fx.GraphModule(torch.nn.Module(), graph)
    values = torch.arange(1, 5, dtype=torch.float64)
    exact = values * (1 / 3)
    assert not torch.equal(module(values), exact)  # as converted: 1/3 rounded to float32
    widened = quantized_in_float64(module)
    assert widened(values).dtype == torch.float64 and torch.equal(widened(values), exact)


def test_the_float64_reference_quantizes_a_program_input_as_the_pte_does():
    # 1.50535 / 0.0187 (the float32 scale) is above 80.5 in float64 and rounds down to 80.5 (even: 80)
    # in float32's x * (1 / scale): the .pte's CPU quantize gives 80, exact float64 arithmetic 81.
    scale = float(torch.tensor(0.0187, dtype=torch.float32))
    graph = torch.fx.Graph()
    x = graph.placeholder("x")
    qdq = torch.ops.quantized_decomposed
    codes = graph.call_function(qdq.quantize_per_tensor.default, (x, scale, 0, -128, 127, torch.int8))
    graph.output(graph.call_function(qdq.dequantize_per_tensor.default, (codes, scale, 0, -128, 127, torch.int8)))
    module = torch.fx.GraphModule(torch.nn.Module(), graph)
    pixel = torch.tensor([1.5053499937057495], dtype=torch.float32)
    assert torch.round(pixel.double() / scale).item() == 81
    assert qdq.quantize_per_tensor(pixel, scale, 0, -128, 127, torch.int8).item() == 80
    widened = quantized_in_float64(module)
    assert widened(pixel.double()).item() == 80 * scale  # the .pte's code, dequantized in float64


def test_one_delegate_programs_error_in_float64_steps_and_its_boundary_read_from_the_quantized_model():
    """A conv + ReLU + linear on tosa-INT: the boundary grids read from the quantized torch model are the
    ones the .pte holds (what bench.peer_agreement relies on for the peer), and the delegate's error
    against the quantized model in float64 is a whole number of output steps."""
    torch.manual_seed(0)
    module = torch.nn.Sequential(
        torch.nn.Conv2d(3, 8, 3), torch.nn.ReLU(), torch.nn.Flatten(), torch.nn.Linear(8 * 6 * 6, 10)
    ).eval()
    samples = [(torch.randn(1, 3, 8, 8),) for _ in range(3)]
    result = run_flow(ModelSpec(module, samples[0], samples), resolve_target("tosa-INT"), progress=False)
    program = read_pte(result.pte)
    assert boundary_of(result.quantized_module) == Boundary(program.input_quantization, program.output_quantization)
    (tosa,) = [artifact.flatbuffer for artifact in result.artifacts.tosa]
    agreements = measure_agreement(
        tosa, program.input_quantization, program.output_quantization, module, result.quantized_module, samples
    )
    exact, step = agreements.vs_quantized_float64, program.output_quantization[0].scale
    assert exact.samples == 3 and exact.max_steps is not None
    assert exact.max_abs_error == pytest.approx(exact.max_steps * step, abs=1e-12)
    # Convolution, ReLU and linear layers: our lowering computes the quantized graph's exact arithmetic
    # (measured 0 steps; in float32 the reference can land a tie the other way, in float64 it cannot).
    assert (exact.max_steps, exact.elements_off, exact.max_abs_error) == (0, 0, 0.0)
    assert agreements.vs_quantized.max_steps is not None and agreements.vs_float.max_steps is None
    assert graph_digest(result.quantized_module) == graph_digest(result.quantized_module)


def test_the_peers_saved_graph_is_found_in_the_first_folder_holding_it_and_only_as_one_partition(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir(), second.mkdir()
    (second / "bert_tosa-INT_peer_0.tosa").write_bytes(b"x")
    (first / "llama_tosa-INT_peer_0.tosa").write_bytes(b"x")
    (first / "llama_tosa-INT_peer_1.tosa").write_bytes(b"x")
    assert saved_tosa("bert", "tosa-INT", [first, second]) == second / "bert_tosa-INT_peer_0.tosa"
    with pytest.raises(ValueError, match="more than one peer partition"):
        saved_tosa("llama", "tosa-INT", [first, second])
    with pytest.raises(FileNotFoundError, match="--run-peer --pairs deit_tiny@ethos-u55-128"):
        saved_tosa("deit_tiny", "ethos-u55-128", [first, second])
