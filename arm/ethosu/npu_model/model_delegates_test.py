"""A model's Ethos-U .pte (built by arm_pte): every delegate's command stream on the NPU model equals the
TOSA reference model on the partition's TOSA graph, bit for bit, for a few seeded random integer inputs.

The test target names the .pte and the NPU it was compiled for in the environment (NPU_MODEL_PTE,
NPU_MODEL_TARGET, NPU_MODEL_SAMPLES); the TOSA graphs are the ones arm_pte wrote beside the .pte, so no
flow runs here. Each delegate prints the NPU model's seconds per inference.
"""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np
import pytest

from arm.ethosu.npu_model.binding import NpuModel
from arm.ethosu.npu_model.oracle import compare_outputs, npu_outputs, reference_outputs
from arm.ethosu.npu_model.pte_delegates import EthosUDelegate, load_ethos_u_delegates, random_integer_inputs

PTE = Path(os.environ["NPU_MODEL_PTE"])
TARGET = os.environ["NPU_MODEL_TARGET"]
SAMPLES = int(os.environ["NPU_MODEL_SAMPLES"])
DELEGATES = load_ethos_u_delegates(PTE)


@pytest.fixture(scope="module")
def npu() -> NpuModel:
    return NpuModel(TARGET)


@pytest.mark.parametrize("delegate", DELEGATES, ids=[f"delegate{d.index}" for d in DELEGATES])
def test_delegate_matches_tosa_reference_bit_for_bit(delegate: EthosUDelegate, npu: NpuModel) -> None:
    rng = np.random.default_rng(delegate.index)
    npu_seconds = []
    for sample in range(SAMPLES):
        inputs = random_integer_inputs(delegate.tosa, rng)
        start = time.perf_counter()
        got = npu_outputs(delegate.tosa, delegate.bin_stream, inputs, npu)
        npu_seconds.append(time.perf_counter() - start)
        comparisons = compare_outputs(got, reference_outputs(delegate.tosa, inputs))
        differing = [comparison.describe() for comparison in comparisons if comparison.mismatches]
        assert not differing, f"{PTE.name} delegate {delegate.index}, sample {sample}: {'; '.join(differing)}"
    print(f"{PTE.name} delegate {delegate.index} on the {TARGET} model: {min(npu_seconds):.3f} s per inference")
