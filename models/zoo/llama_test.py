"""The Llama-architecture decoder (models/zoo/llama.py) through the flow for one target.

The target comes from LLAMA_TARGET (one Bazel test per target, tagged by it). Asserted:

* the flow ends without an error and the .pte holds only the target's delegates;
* the delegated share is at least what this branch reaches (``MIN_DELEGATED_SHARE``), and every node
  left on the CPU carries a reason naming it;
* the int64 token ids stay int64 at the program's boundary and no delegate sees int64;
* Ethos-U: every delegate's Vela command stream runs on the functional NPU model bit for bit like its
  TOSA graph on the TOSA reference model, on seeded random integer inputs (its inputs come from CPU
  ops, so the test feeds each delegate directly), except the ``KNOWN_DEPARTURES``, asserted to persist;
* the whole program (its CPU embedding on ExecuTorch's host runtime, its delegate on the TOSA reference
  model) is within PROGRAM_TOLERANCE_STEPS output steps of the quantized torch model.
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

import numpy as np
import pytest
import torch
from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.scalar_type import ScalarType

from arm.ethosu.npu_model.binding import NpuModel
from arm.ethosu.npu_model.oracle import compare_delegate
from arm.flow import FlowResult, resolve_target, run_flow
from models.zoo import llama

torch.set_num_threads(1)

TARGET = os.environ.get("LLAMA_TARGET", "tosa-INT")

# Measured: one partition on every target; on the U55 (no GATHER; its one-hot lookup of the 256x64 table
# costs more than the CPU's copy of the rows, arm/ops/embedding.py) the embedding gather and
# the token ids' int64 -> int32 cast stay on the CPU (124 of 126 computing nodes delegated, 0.984), and on
# the U85 too (copying the int8 rows costs less than its one-hot lookup, arm/ops/embedding.py); on
# tosa-INT only the cast does. The causal mask (arange comparisons) is evaluated while quantizing and lowered inside the
# softmax (arm/ops/softmax.py, masked). The bound leaves room for one small op to move, not a block.
MIN_DELEGATED_SHARE = {"tosa-INT": 0.95, "ethos-u55-128": 0.95, "ethos-u85-256": 0.95}

# (delegate index, output index) -> what departs: Vela's command stream on the NPU model does not compute
# what the TOSA graph does. Asserted to persist, so a fixed Vela or NPU model makes the test fail and the
# entry goes (as the op harness's known_departures).
# None now. Until the head transposes moved in front of the rotary embedding's RESCALEs (arm/tosa/layout.py,
# _hoist_above_widening), the U55 stream departed (1975 of 4096 logits, by at most 3 steps on seed 0), in
# the rotated queries and keys computed through rotate_half's last-dim slices in the heads-last layout.
KNOWN_DEPARTURES: dict[str, dict[tuple[int, int], str]] = {}

# The whole program against the quantized torch model (float32), on the first PROGRAM_SAMPLES calibration
# inputs. Not 1 step: the quantized torch model computes softmax, RMSNorm's rsqrt and SiLU in float between
# its quantize nodes, the integer lowering (14-bit exp and a Newton-Raphson reciprocal in the softmax,
# tables) lands one step off now and then (the op cases bound each op), and such steps inside two
# decoder layers are amplified by the final RMSNorm (dividing by a small per-token RMS) and the LM head.
# Measured on TOSA INT and the U55 (the same program up to the exp lookup; seed-0 weights, inputs 0-2):
# at most 8, 3 and 6 steps (means 0.29 and 0.54 on inputs 0 and 1), 20-46% of the 4096 logits off by
# a step or more. A lowering
# error (a wrong scale, zero point, axis or mask) moves most logits by tens of steps.
PROGRAM_SAMPLES = 2
PROGRAM_TOLERANCE_STEPS = 10
PROGRAM_MEAN_TOLERANCE_STEPS = 0.75


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


def test_the_partly_delegated_program_matches_the_quantized_model(result: FlowResult, tmp_path: Path) -> None:
    """The whole .pte, its CPU embedding and cast on ExecuTorch's host runtime and its delegate on the TOSA
    reference model (runtime/crosscheck's PartitionedProgramOracle), against the quantized torch model."""
    from runtime.crosscheck.partitioned_program_oracle import PartitionedProgramOracle

    pte = tmp_path / "llama.pte"
    pte.write_bytes(result.pte)
    for index, tosa in enumerate(result.artifacts.tosa):  # beside the .pte, named as arm_pte names them
        (tmp_path / ("llama.tosa" if index == 0 else f"llama_{index}.tosa")).write_bytes(tosa.flatbuffer)
    program = PartitionedProgramOracle(pte)
    assert program.cpu_run_count >= 1, "the embedding should run on the CPU, through ExecuTorch's host runtime"
    scale, zero_point = _output_grid(result.quantized_module)
    for sample in llama.model().calibration_inputs[:PROGRAM_SAMPLES]:
        (logits,) = program.run([sample[0].numpy()])
        with torch.no_grad():
            expected = result.quantized_module(*sample)
        difference = np.abs(_steps(torch.from_numpy(np.asarray(logits)), scale, zero_point) - _steps(expected, scale, zero_point))
        print(f"{TARGET}: logits at most {difference.max()} steps from the quantized torch model, mean "
              f"{difference.mean():.3f}, {np.count_nonzero(difference)} of {difference.size} differ")  # fmt: skip
        assert difference.max() <= PROGRAM_TOLERANCE_STEPS and difference.mean() <= PROGRAM_MEAN_TOLERANCE_STEPS, (
            f"{TARGET}: logits {difference.max()} steps (mean {difference.mean():.3f}) from the quantized torch model; "
            f"bounds {PROGRAM_TOLERANCE_STEPS} (mean {PROGRAM_MEAN_TOLERANCE_STEPS})"
        )


def _output_grid(module: torch.fx.GraphModule) -> tuple[float, int]:
    """(scale, zero point) of the dequantize that gives the model's output."""
    (node,) = [
        node
        for node in module.graph.nodes
        if node.op == "call_function" and "dequantize_per_tensor" in str(node.target)
        and "output" in {user.op for user in node.users}
    ]  # fmt: skip
    return float(node.args[1]), int(node.args[2])


def _steps(real: torch.Tensor, scale: float, zero_point: int) -> np.ndarray:
    return (np.round(real.double().numpy() / scale) + zero_point).astype(np.int64)


def _random_integers(generator: np.random.Generator, shape: tuple[int, ...], dtype: np.dtype) -> np.ndarray:
    info = np.iinfo(dtype)
    low, high = max(info.min, -128), min(info.max, 127)  # int32 inputs are indices or small sums
    return generator.integers(low, high + 1, size=shape, dtype=np.int64).astype(dtype)
