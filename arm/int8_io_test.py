"""int8 I/O: the program takes and returns int8 on the quantizer's own grids, and the NPU work is unchanged."""

import functools

import pytest
import torch
from executorch.exir._serialize._program import deserialize_pte_binary

from arm.flow import FlowError, FlowResult, resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.tosa.quantization import is_dequantize, is_quantize


class _ConvNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, kernel_size=3, padding=1)
        self.head = torch.nn.Conv2d(8, 4, kernel_size=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.conv(x)))


class _TokenIdsToo(torch.nn.Module):
    """A float input beside an int64 one: only the float one has a grid."""

    def forward(self, x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        return torch.relu(x) + ids.to(torch.float32)


def _spec(module: torch.nn.Module, *shapes: tuple[int, ...]) -> ModelSpec:
    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(1)
    samples = [tuple(torch.randn(shape, generator=generator) for shape in shapes) for _ in range(4)]
    return ModelSpec(module.eval(), samples[0], samples)


@functools.cache
def _compiled(int8_io: bool) -> FlowResult:
    torch.manual_seed(0)
    return run_flow(_spec(_ConvNet(), (1, 3, 8, 8)), resolve_target("ethos-u55-128"), int8_io=int8_io, progress=False)


def _program(pte: bytes):
    program = deserialize_pte_binary(pte)
    return getattr(program, "program", program)


def _config_value(program, name: str) -> object:
    (plan,) = [plan for plan in program.execution_plan if plan.name == name]
    value = plan.values[plan.outputs[0]].val
    return getattr(value, "double_val", getattr(value, "int_val", None))


def _boundary_qparams(quantized: torch.fx.GraphModule) -> tuple[tuple, tuple]:
    """(scale, zero point) of the first quantize and the last dequantize of the quantized torch model."""
    nodes = list(quantized.graph.nodes)
    first_quantize = next(node for node in nodes if is_quantize(node))
    last_dequantize = next(node for node in reversed(nodes) if is_dequantize(node))
    return tuple(first_quantize.args[1:3]), tuple(last_dequantize.args[1:3])


def test_program_io_is_int8_on_the_quantizers_grids() -> None:
    result = _compiled(True)
    program = _program(result.pte)
    forward = program.execution_plan[0]
    assert forward.name == "forward"
    tensors = [forward.values[index].val for index in (*forward.inputs, *forward.outputs)]
    assert [tensor.scalar_type.name for tensor in tensors] == ["CHAR", "CHAR"]

    (input_scale, input_zp), (output_scale, output_zp) = _boundary_qparams(result.quantized_module)
    assert _config_value(program, "forward_input0_scale") == pytest.approx(input_scale, rel=0, abs=0)
    assert _config_value(program, "forward_input0_zp") == input_zp
    assert _config_value(program, "forward_output0_scale") == pytest.approx(output_scale, rel=0, abs=0)
    assert _config_value(program, "forward_output0_zp") == output_zp
    assert [(b.side, b.scale, b.zero_point) for b in result.io] == [
        ("input", input_scale, input_zp),
        ("output", output_scale, output_zp),
    ]


def test_the_npu_work_is_the_same_and_nothing_is_left_on_the_cpu() -> None:
    floats, int8s = _compiled(False), _compiled(True)
    # The same TOSA graph and command stream: the delegate computes what it computed on the int8 values the
    # removed CPU quantize would have given it.
    assert [a.flatbuffer for a in int8s.artifacts.tosa] == [a.flatbuffer for a in floats.artifacts.tosa]
    assert floats.rejected and all("quantize" in name for name, _ in floats.rejected)  # the boundary q/dq
    assert int8s.rejected == []
    assert len(int8s.pte) < len(floats.pte) + 4096


def test_boundaries_without_a_grid_stay_as_they_are() -> None:
    spec = _spec(_TokenIdsToo(), (1, 16), (1, 16))
    spec = ModelSpec(spec.module, (spec.example_inputs[0], torch.arange(16).reshape(1, 16)))
    result = run_flow(spec, resolve_target("ethos-u55-128"), int8_io=True, progress=False)
    described = [boundary.describe() for boundary in result.io]
    assert described[1].startswith("input 1: unchanged")


def test_a_float_target_refuses_int8_io() -> None:
    with pytest.raises(FlowError, match="int8 inputs and outputs need a quantized program"):
        run_flow(_spec(_ConvNet(), (1, 3, 8, 8)), resolve_target("tosa-FP"), int8_io=True, progress=False)
