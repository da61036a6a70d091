"""A node Vela refuses stays on the CPU alone; the rest of its partition stays on the NPU; the .pte runs.

A 7x7 stride-4 convolution with padding 3 (PVT-v2's patch embedding) between two convolutions the U55
runs. Vela 5.2.0 refuses the padded stride-4 CONV2D for the U55 ("Non-passthrough operation (Conv2D)
could not run on NPU"), which conv2d's support rule admits; the flow normally lowers it as a
space-to-depth and a stride-1 CONV2D (arm/ops/common/space_to_depth.py), so the test turns that rewrite
off to hand Vela the convolution as it is. The backend then finds the refused node by compiling parts of
the partition (arm.ethosu.vela_refusals) and the flow lowers again with it alone on the CPU (its fused
relu follows it there): two delegates. The program runs with its CPU part on ExecuTorch's host runtime and
its delegates on the TOSA reference model (runtime/crosscheck's oracle) and must compute what the
quantized module computes, within one output step.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

import arm.ops.conv2d
from arm.flow import resolve_target, run_flow
from arm.model_spec import ModelSpec
from runtime.crosscheck.partitioned_program_oracle import PartitionedProgramOracle

torch.set_num_threads(1)


class _PatchEmbeddingBetweenConvolutions(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.patches = torch.nn.Conv2d(8, 16, 7, stride=4, padding=3)
        self.head = torch.nn.Conv2d(16, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.patches(torch.relu(self.stem(x)))))


def test_only_the_refused_convolution_stays_on_the_cpu(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(arm.ops.conv2d, "needs_space_to_depth", lambda window, output_hw, spec: False)
    torch.manual_seed(0)
    module = _PatchEmbeddingBetweenConvolutions().eval()
    generator = torch.Generator().manual_seed(0)
    samples = [(torch.randn(1, 3, 16, 16, generator=generator),) for _ in range(2)]
    result = run_flow(ModelSpec(module, samples[0], samples), resolve_target("ethos-u55-128"), progress=False)

    assert result.delegate_ids == ("EthosUBackend", "EthosUBackend")
    assert sorted(result.cpu_compute_nodes) == ["aten_convolution_default_1", "aten_relu_default_1"]
    reasons = dict(result.rejected)
    assert reasons["aten_convolution_default_1"].startswith("node aten_convolution_default_1 (aten.convolution.default): ")
    assert "Vela refuses its TOSA CONV2D on ethos-u55-128" in reasons["aten_convolution_default_1"]
    assert "Non-passthrough operation (Conv2D) could not run on NPU" in reasons["aten_convolution_default_1"]
    assert "aten_convolution_default_1 stays on the CPU" in reasons["aten_relu_default_1"]

    pte = tmp_path / "model.pte"
    pte.write_bytes(result.pte)
    for index, tosa in enumerate(result.artifacts.tosa):
        pte.with_name(f"model{'_' + str(index) if index else ''}.tosa").write_bytes(tosa.flatbuffer)
    program = PartitionedProgramOracle(pte)
    assert program.cpu_run_count >= 1
    (dequantize_output,) = [node for node in result.quantized_module.graph.nodes if node.op == "output"][0].args[0]
    step = float(dequantize_output.args[1])
    for (x,) in samples:
        (output,) = program.run([x.numpy()])
        expected = result.quantized_module(x).detach().numpy()
        assert np.abs(output - expected).max() <= step * 1.01, "the program departs from its quantized module"
