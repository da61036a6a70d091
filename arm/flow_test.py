import pytest
import torch
from executorch.runtime import Runtime

from arm.artifacts import TosaArtifact
from arm.ethosu.bin_stream import parse_bin_stream
from arm.flow import STAGES, EthosUOptions, FlowError, resolve_target, run_flow
from arm.model_spec import ModelSpec

torch.set_num_threads(1)


class ConvRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 8, kernel_size=3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x))


def _model() -> ModelSpec:
    generator = torch.Generator().manual_seed(0)
    torch.manual_seed(0)
    samples = [(torch.rand(1, 3, 8, 8, generator=generator) * 2 - 1,) for _ in range(4)]
    return ModelSpec(ConvRelu().eval(), samples[0], samples)


@pytest.fixture(scope="module")
def u55_result():
    return run_flow(_model(), resolve_target("ethos-u55-128"), progress=False)


def test_ethos_u_pte_loads_in_host_runtime_up_to_the_delegate(u55_result, capfd):
    program = Runtime.get().load_program(u55_result.pte)
    assert set(program.method_names) == {"forward"}
    # The host runtime has no Ethos-U delegate: loading must stop at the delegate lookup, not earlier.
    with pytest.raises(RuntimeError):
        program.load_method("forward")
    assert "Backend EthosUBackend is not registered" in capfd.readouterr().err


def test_ethos_u_result_holds_one_delegate_and_its_artifacts(u55_result):
    assert u55_result.delegate_ids == ("EthosUBackend",)
    (tosa,) = u55_result.artifacts.tosa
    (vela,) = u55_result.artifacts.vela
    assert isinstance(tosa, TosaArtifact) and tosa.spec.startswith("TOSA-1.0+INT")
    assert vela.cpu_ops == () and vela.npu_cycles > 0
    stream = parse_bin_stream(vela.bin_stream)
    assert len(stream.inputs) == len(tosa.inputs) and len(stream.outputs) == len(tosa.outputs)
    assert vela.bin_stream in u55_result.pte
    assert list(u55_result.stage_seconds) == list(STAGES)
    assert u55_result.quantized_module is not None


def test_flow_is_deterministic(u55_result):
    again = run_flow(_model(), resolve_target("ethos-u55-128"), progress=False)
    assert again.pte == u55_result.pte
    assert again.artifacts.tosa[0].flatbuffer == u55_result.artifacts.tosa[0].flatbuffer


def test_float_target_skips_quantization():
    result = run_flow(_model(), resolve_target("tosa-FP"), progress=False)
    assert result.quantized_module is None
    assert "quantize" not in result.stage_seconds
    assert result.delegate_ids == ("TOSABackend",)
    assert result.artifacts.tosa[0].spec == "TOSA-1.0+FP"


def test_progress_has_one_line_per_stage(capsys):
    run_flow(_model(), resolve_target("tosa-INT"), calibration_samples=2)
    lines = capsys.readouterr().err.splitlines()
    assert lines[1].startswith("[2/5] quantize (2 calibration samples) ... ") and lines[1].endswith(" s")
    assert lines[4].startswith("[5/5] serialize ... ")


def test_unknown_target_is_rejected():
    with pytest.raises(FlowError, match="unknown target 'ethos-u99'"):
        resolve_target("ethos-u99")


def test_vela_options_need_an_ethos_u_target():
    with pytest.raises(FlowError, match="only apply to Ethos-U targets"):
        resolve_target("tosa-INT", EthosUOptions(memory_mode="Shared_Sram"))
