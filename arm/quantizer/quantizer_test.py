"""The quantizer's API (set_global, set_io, set_module_type, set_module_name, a8w4), checked through the
flow: what each setting quantizes, and that the delegate still matches its quantized module on the TOSA
reference model."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import torch
import tosa_reference_model

from arm.artifacts import TosaArtifact
from arm.flow import FlowResult, Target, resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.ops.testing.compare import assert_close
from arm.quantizer import (
    EthosUQuantizer,
    get_symmetric_a8w4_quantization_config,
    get_symmetric_a16w8_quantization_config,
    get_symmetric_quantization_config,
)
from arm.quantizer.module_configs import ModuleConfigs

torch.set_num_threads(1)


class _Block(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(16, 16)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x))


class _Net(torch.nn.Module):
    """body (two _Blocks) then head (a Linear)."""

    def __init__(self) -> None:
        super().__init__()
        self.body = torch.nn.Sequential(_Block(), _Block())
        self.head = torch.nn.Linear(16, 8)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.body(x))


def _spec() -> ModelSpec:
    with torch.random.fork_rng():
        torch.manual_seed(0)
        module = _Net().eval()
    generator = torch.Generator().manual_seed(1)
    samples = [(torch.randn(2, 16, generator=generator),) for _ in range(4)]
    return ModelSpec(module, samples[0], samples)


def _with_quantizer(target_name: str, configure) -> Target:
    target = resolve_target(target_name)

    def make(spec):
        return configure(EthosUQuantizer(spec).set_global(get_symmetric_quantization_config()))

    return dataclasses.replace(target, kind=dataclasses.replace(target.kind, make_quantizer=make))


def _linear_weight_ranges(result: FlowResult) -> dict[str, int]:
    """Largest |integer weight| of each linear in the quantized module, by the weight's module path."""
    ranges = {}
    for name, value in result.quantized_module.named_buffers():
        if value.dtype == torch.int8 and value.dim() == 2:
            ranges[name] = int(value.abs().max())
    return ranges


def _matches_quantized_module(result: FlowResult, inputs: tuple[torch.Tensor, ...]) -> TosaArtifact:
    """The one delegate, run on the TOSA reference model, is within one output step of the quantized module."""
    (tosa,) = result.artifacts.tosa
    outputs, status = tosa_reference_model.run(
        tosa.flatbuffer, [io.quantize(tensor.numpy()) for io, tensor in zip(tosa.inputs, inputs)]
    )
    assert status == tosa_reference_model.GraphStatus.TOSA_VALID
    (io,) = tosa.outputs
    expected = result.quantized_module(*inputs).detach().numpy()
    assert_close(io.dequantize(np.asarray(outputs[0])), expected, atol=1.01 * io.scale, what="delegate vs quantized")
    return tosa


def test_innermost_name_beats_type_beats_global() -> None:
    exported = torch.export.export(_Net().eval(), (torch.randn(2, 16),))
    int8, a8w4, a16w8 = (
        get_symmetric_quantization_config(),
        get_symmetric_a8w4_quantization_config(),
        get_symmetric_a16w8_quantization_config(),
    )
    configs = ModuleConfigs(global_config=int8, by_type={torch.nn.Linear: a8w4}, by_name={"body.1": a16w8, "head": None})
    linears = {
        str(node.meta["nn_module_stack"][next(reversed(node.meta["nn_module_stack"]))][0]): node
        for node in exported.graph.nodes
        if node.target == torch.ops.aten.linear.default
    }
    by_path = {path.replace("L['self'].", ""): configs.config_for(node) for path, node in linears.items()}
    assert by_path == {"body.0.linear": a8w4, "body.1.linear": a16w8, "head": None}
    relu = next(node for node in exported.graph.nodes if node.target == torch.ops.aten.relu.default)
    assert configs.config_for(relu) is int8  # body.0's relu: no name or type of its own
    configs.by_name["body"] = None  # outer name: body.1 (inner) still wins inside body.1
    assert configs.config_for(linears[next(p for p in linears if p.endswith("body.1.linear"))]) is a16w8


def test_set_module_name_none_keeps_that_module_float_on_the_cpu() -> None:
    spec = _spec()
    result = run_flow(spec, _with_quantizer("tosa-INT", lambda q: q.set_module_name("head", None)), progress=False)
    assert result.delegate_ids == ("TOSABackend",)
    assert len(_linear_weight_ranges(result)) == 2  # the head's weight stays float
    reasons = " ".join(reason for _, reason in result.rejected)
    assert "linear" in reasons or "addmm" in reasons  # the head, decomposed for its CPU kernels
    # The body alone is delegated: its last output is the head's input, still within a step.
    (tosa,) = result.artifacts.tosa
    assert len(tosa.outputs) == 1 and tosa.outputs[0].shape == (2, 16)


def test_a8w4_for_linear_types_holds_int4_weights_and_matches_the_reference_model() -> None:
    spec = _spec()
    target = _with_quantizer(
        "tosa-INT", lambda q: q.set_module_type(torch.nn.Linear, get_symmetric_a8w4_quantization_config())
    )
    result = run_flow(spec, target, progress=False)
    ranges = _linear_weight_ranges(result)
    assert len(ranges) == 3 and max(ranges.values()) == 7, ranges
    _matches_quantized_module(result, spec.example_inputs)


def test_a8w4_linear_compiles_with_vela_for_the_u85() -> None:
    spec = _spec()
    target = _with_quantizer(
        "ethos-u85-256", lambda q: q.set_module_type(torch.nn.Linear, get_symmetric_a8w4_quantization_config())
    )
    result = run_flow(spec, target, progress=False)
    (vela,) = result.artifacts.vela
    assert vela.cpu_ops == () and vela.npu_cycles > 0
    assert max(_linear_weight_ranges(result).values()) == 7


def test_set_io_int16_around_an_int8_body_on_the_u85() -> None:
    spec = _spec()
    result = run_flow(
        spec, _with_quantizer("ethos-u85-256", lambda q: q.set_io(get_symmetric_a16w8_quantization_config())),
        progress=False,
    )
    tosa = _matches_quantized_module(result, spec.example_inputs)
    assert [io.dtype for io in tosa.inputs + tosa.outputs] == [np.dtype(np.int16)] * 2
    assert max(_linear_weight_ranges(result).values()) == 127  # weights stay int8


def test_a_quantizer_without_configs_says_how_to_fix_it() -> None:
    exported = torch.export.export(_Net().eval(), (torch.randn(2, 16),))
    quantizer = EthosUQuantizer(resolve_target("tosa-INT").compile_spec)
    with pytest.raises(ValueError, match="set_global"):
        quantizer.annotate(exported.module())
    with pytest.raises(TypeError, match="module class"):
        quantizer.set_module_type("Linear", None)


def test_a_bias_is_dequantized_on_the_exact_accumulator_grid_of_its_input_and_weight_scales() -> None:
    """The bias scale is float64(input scale) * float64(weight scale), not that product rounded to float32:
    the int32 accumulator adds the bias on exactly that grid, so the quantized model (in float64) and the
    integer program agree on sums near a half step (bench/README.md "MobileViT-xxs U85 in float64")."""
    spec = _spec()
    result = run_flow(spec, resolve_target("tosa-INT"), progress=False)
    module = result.quantized_module
    checked = 0
    for node in module.graph.nodes:
        if node.target != torch.ops.aten.linear.default or len(node.args) < 3:
            continue
        activation, weight, bias = node.args[:3]
        activation_scale = float(activation.args[1])
        weight_scales = getattr(module, weight.args[1].target)
        bias_scales = getattr(module, bias.args[1].target)
        assert bias_scales.dtype == torch.float64
        exact = activation_scale * weight_scales.to(torch.float64)
        assert torch.equal(bias_scales, exact)
        assert not torch.equal(exact.to(torch.float32).to(torch.float64), exact)  # float32 would round it
        checked += 1
    assert checked == 3
