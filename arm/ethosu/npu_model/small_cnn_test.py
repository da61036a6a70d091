"""models/small_cnn lowered for Ethos-U55-128 and Ethos-U85-256: the delegate's command stream on the NPU
model equals the TOSA reference model bit for bit, for several inputs. (Ids name the target: -k u55.)"""

from __future__ import annotations

import pytest
import torch

from arm.ethosu.npu_model.binding import NpuModel
from arm.ethosu.npu_model.oracle import compare_delegate, quantized_inputs
from arm.flow import resolve_target, run_flow
from models.small_cnn import model

# Inputs checked beyond the example input (each is one NPU model run, ~10 ms).
EXTRA_INPUTS = 4


@pytest.mark.parametrize("target", ["ethos-u55-128", "ethos-u85-256"], ids=["u55", "u85"])
def test_small_cnn_matches_tosa_reference_bit_for_bit(target: str) -> None:
    torch.set_num_threads(1)
    spec = model()
    result = run_flow(spec, resolve_target(target), progress=False)
    assert len(result.artifacts.tosa) == len(result.artifacts.vela) == 1, result.delegate_ids
    (tosa,), (vela,) = result.artifacts.tosa, result.artifacts.vela
    npu = NpuModel(target)
    for sample in [spec.example_inputs, *spec.calibration_inputs[1 : 1 + EXTRA_INPUTS]]:
        inputs = quantized_inputs(tosa, [tensor.numpy() for tensor in sample])
        differing = [c.describe() for c in compare_delegate(tosa, vela, inputs, npu) if c.mismatches]
        assert not differing, "; ".join(differing)
