"""A partition whose Vela run crashes stays on the CPU, with the crash as its reason, and the .pte runs.

Vela is the faulty test server (arm.ethosu.faulty_vela_server), which segfaults on any graph with a
TOSA MUL: the model's only partition holds one, so the flow keeps it on the CPU and the program runs in
ExecuTorch's host runtime, where it must compute what the quantized module computes.
"""

import pytest
import torch
from executorch.runtime import Runtime

from arm.ethosu import vela_process
from arm.flow import resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.ops.testing.compare import assert_close

torch.set_num_threads(1)


class _ConvTimesItself(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.conv(x))
        return y * y


def test_crashing_partition_falls_back_with_the_signal_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    server = vela_process.VelaProcess("arm.ethosu.faulty_vela_server", ("--fault", "segv", "--when-op", "MUL"))
    monkeypatch.setattr(vela_process, "_shared", server)
    torch.manual_seed(0)
    module = _ConvTimesItself().eval()
    generator = torch.Generator().manual_seed(0)
    samples = [(torch.randn(1, 3, 8, 8, generator=generator),) for _ in range(2)]
    try:
        result = run_flow(ModelSpec(module, samples[0], samples), resolve_target("ethos-u55-128"))
    finally:
        server.close()

    assert result.delegate_ids == ()
    reasons = dict(result.rejected)
    for node in ("aten_convolution_default", "aten_mul_tensor"):
        assert "Vela failed to compile the TOSA graph for ethos-u55-128: Vela crashed with SIGSEGV" in reasons[node]
        assert reasons[node].startswith(f"node {node}: ")
    assert "crashed with SIGSEGV" in capsys.readouterr().err
    (output,) = Runtime.get().load_program(result.pte).load_method("forward").execute([samples[1][0]])
    expected = result.quantized_module(samples[1][0]).detach().numpy()
    assert_close(output.numpy(), expected, atol=1e-5, what="program on the CPU")
