"""The Llama-architecture decoder (models/zoo/llama.py) through the flow for one target.

The target comes from LLAMA_TARGET (one Bazel test per target, tagged by it). Asserted:

* the flow ends without an error and the .pte holds only the target's delegates;
* the delegated share is at least what this branch reaches (``MIN_DELEGATED_SHARE``), and every node
  left on the CPU carries a reason naming it;
* the int64 token ids stay int64 at the program's boundary and no delegate sees int64;
* Ethos-U: every delegate's Vela command stream runs on the functional NPU model bit for bit like its
  TOSA graph on the TOSA reference model, on seeded random integer inputs (its inputs come from CPU
  ops, so the test feeds each delegate directly), except the ``KNOWN_DEPARTURES``, asserted to persist;
* where one delegate computes the whole program, its output is within one output step of the quantized
  torch model.
"""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest
import torch
import tosa_reference_model
from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.scalar_type import ScalarType

from arm.ethosu.npu_model.binding import NpuModel
from arm.ethosu.npu_model.oracle import compare_delegate
from arm.flow import FlowResult, resolve_target, run_flow
from arm.ops.testing.compare import assert_close
from models.zoo import llama

torch.set_num_threads(1)

TARGET = os.environ.get("LLAMA_TARGET", "tosa-INT")

# Measured: 124 of 126 computing nodes delegated on the U55 and U85 (0.984), in one partition; the
# embedding gather (no GATHER in Vela 5.2.0 for either NPU) and the token ids' int64 -> int32 cast stay
# on the CPU. The causal mask (arange comparisons) is evaluated while quantizing and lowered inside the
# softmax (arm/ops/softmax.py, masked). The bound leaves room for one small op to move, not a block.
MIN_DELEGATED_SHARE = {"tosa-INT": 0.95, "ethos-u55-128": 0.95, "ethos-u85-256": 0.95}

# (delegate index, output index) -> what departs: Vela's command stream on the NPU model does not compute
# what the TOSA graph does. Asserted to persist, so a fixed Vela or NPU model makes the test fail and the
# entry goes (as the op harness's known_departures).
# Not yet isolated to one operator: when the attention ran on the CPU (three partitions), exactly the
# rotated queries and keys departed, both computed through rotate_half's two half-width slices of the
# last dim, which matches the op harness's known U55 split departure (Vela 5.2.0 reads both slices from
# x = 0); the masked attention itself is bit-exact on the U55 (scaled_dot_product_attention's causal and
# grouped_causal cases), and the U85 runs the same graph bit-exactly. In one partition the departure
# reaches the logits. Seed 0: 1975 of 4096 logits differ, by at most 3 steps.
_ROTARY_SLICES = "computed through rotate_half's last-dim slices (likely the known Vela 5.2.0 U55 slice departure)"
KNOWN_DEPARTURES = {
    "ethos-u55-128": {(0, 0): f"logits [1, 16, 256]: {_ROTARY_SLICES}"},
}


@pytest.fixture(scope="module")
def result() -> FlowResult:
    return run_flow(llama.model(), resolve_target(TARGET), progress=False)


def test_delegated_share_and_reasons(result: FlowResult) -> None:
    backend = result.target.compile_spec.backend_id
    print(
        f"{TARGET}: {len(result.delegate_ids)} delegates, {len(result.delegated)} nodes delegated, "
        f"{len(result.cpu_compute_nodes)} on the CPU, share {result.delegated_share:.3f}"
    )
    assert result.delegate_ids and set(result.delegate_ids) == {backend}
    assert result.delegated_share >= MIN_DELEGATED_SHARE[TARGET], (
        f"{len(result.delegated)} nodes delegated, {len(result.cpu_compute_nodes)} on the CPU: "
        f"{result.cpu_compute_nodes}"
    )
    reasons = dict(result.rejected)
    for name in result.cpu_compute_nodes:
        assert name in reasons[name], f"the reason for {name} does not name it: {reasons[name]}"


def test_token_ids_stay_int64_outside_and_int32_inside(result: FlowResult) -> None:
    plan = deserialize_pte_binary(result.pte).program.execution_plan[0]
    (token_ids,) = [plan.values[index].val for index in plan.inputs]
    assert token_ids.scalar_type == ScalarType.LONG and list(token_ids.sizes) == [1, llama.TOKENS]
    for tosa in result.artifacts.tosa:
        assert all(io.dtype != np.int64 for io in tosa.inputs + tosa.outputs)


@functools.cache
def _npu_model() -> NpuModel:
    return NpuModel(TARGET)


@pytest.mark.skipif(not TARGET.startswith("ethos-u"), reason="the NPU model runs Ethos-U command streams")
def test_every_delegate_is_bit_exact_on_the_npu_model(result: FlowResult) -> None:
    assert len(result.artifacts.tosa) == len(result.artifacts.vela) > 0
    generator = np.random.default_rng(0)
    departing: dict[tuple[int, int], str] = {}
    for index, (tosa, vela) in enumerate(zip(result.artifacts.tosa, result.artifacts.vela)):
        inputs = [_random_integers(generator, io.shape, io.dtype) for io in tosa.inputs]
        for comparison in compare_delegate(tosa, vela.bin_stream, inputs, _npu_model()):
            if comparison.mismatches:
                departing[(index, comparison.index)] = comparison.describe()
    known = KNOWN_DEPARTURES.get(TARGET, {})
    assert set(departing) == set(known), f"departing from the TOSA reference model: {departing}; known: {known}"


def test_a_whole_program_delegate_matches_the_quantized_model(result: FlowResult) -> None:
    if result.cpu_compute_nodes or len(result.artifacts.tosa) != 1:
        pytest.skip(f"{len(result.cpu_compute_nodes)} nodes on the CPU: no single delegate computes the program")
    (tosa,) = result.artifacts.tosa
    spec = llama.model()
    inputs = [io.quantize(tensor.numpy()) for io, tensor in zip(tosa.inputs, spec.example_inputs)]
    outputs, status = tosa_reference_model.run(tosa.flatbuffer, inputs)
    assert status == tosa_reference_model.GraphStatus.TOSA_VALID
    (io,) = tosa.outputs
    expected = result.quantized_module(*spec.example_inputs).detach().numpy()
    assert_close(io.dequantize(np.asarray(outputs[0])), expected, atol=1.01 * io.scale, what="logits")


def _random_integers(generator: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    low, high = max(info.min, -128), min(info.max, 127)  # int32 inputs are indices or small sums
    return generator.integers(low, high + 1, size=shape, dtype=np.int64).astype(dtype)
