"""Every op test case (arm/ops/<op>.py TEST_CASES) lowered for Ethos-U55-128 and Ethos-U85-256: the NPU
model running Vela's command stream equals the TOSA reference model on the same int8 inputs, bit for bit.

Test ids start with the target's short name (``u55_conv2d_3x3``), so ``-k u55_`` picks one target.
Cases whose support rule keeps them on the CPU for a target have no command stream and are not listed.
A case whose flow fails before Vela is skipped with the reason: its own test target
(//arm/ops:<op>_<target>_INT) reports that failure.
"""

from __future__ import annotations

import dataclasses

import pytest
import torch

from arm.ethosu.npu_model.binding import NpuModel
from arm.ethosu.npu_model.oracle import compare_delegate, quantized_inputs
from arm.ethosu.npu_model.sharding import this_shard
from arm.flow import resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.ops import registry
from arm.ops.op_test_case import OpTestCase


@dataclasses.dataclass(frozen=True)
class NpuTarget:
    short: str  # "u55"
    name: str  # the flow's and the NPU model's target name
    harness_name: str  # the op harness's name for it in OpTestCase.cpu_targets


TARGETS = (NpuTarget("u55", "ethos-u55-128", "u55_INT"), NpuTarget("u85", "ethos-u85-256", "u85_INT"))


@dataclasses.dataclass(frozen=True)
class NamedCase:
    target: NpuTarget
    op: str
    name: str
    case: OpTestCase

    @property
    def test_id(self) -> str:
        return f"{self.target.short}_{self.op}_{self.name}"


def _npu_cases() -> list[NamedCase]:
    return [
        NamedCase(target, op, name, case)
        for target in TARGETS
        for op in registry.op_names()
        for name, case in registry.test_cases(op).items()
        if target.harness_name not in case.cpu_targets
    ]


CASES = this_shard(_npu_cases())


@pytest.fixture(scope="module")
def npu_models() -> dict[str, NpuModel]:
    return {target.name: NpuModel(target.name) for target in TARGETS}


@pytest.mark.parametrize("named", CASES, ids=[named.test_id for named in CASES])
def test_npu_model_matches_tosa_reference(named: NamedCase, npu_models: dict[str, NpuModel]) -> None:
    torch.set_num_threads(1)
    case = named.case
    try:
        result = run_flow(ModelSpec(case.module, case.inputs, case.calibration_inputs()),
                          resolve_target(named.target.name), progress=False)
    except Exception as error:  # noqa: BLE001 - any flow failure belongs to the op's own test
        pytest.skip(f"the flow failed before Vela ({type(error).__name__}: {str(error)[:200]}); "
                    f"see //arm/ops:{named.op}_{named.target.harness_name}")
    if len(result.artifacts.tosa) != 1 or len(result.artifacts.vela) != 1:
        pytest.skip(f"lowered to delegates {list(result.delegate_ids)}, not one Ethos-U delegate")
    (tosa,), (vela,) = result.artifacts.tosa, result.artifacts.vela
    inputs = quantized_inputs(tosa, [tensor.numpy() for tensor in case.inputs])
    comparisons = compare_delegate(tosa, vela, inputs, npu_models[named.target.name])
    differing = [comparison.describe() for comparison in comparisons if comparison.mismatches]
    assert not differing, f"{named.test_id}: the NPU model departs from the TOSA reference model: {'; '.join(differing)}"
