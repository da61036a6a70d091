"""Every op test case (arm/ops/<op>.py TEST_CASES) lowered for Ethos-U55-128: the NPU model running
Vela's command stream equals the TOSA reference model on the same int8 inputs, bit for bit.

Cases whose support rule keeps them on the CPU for the U55 have no command stream and are not listed.
A case whose flow fails before Vela is skipped with the reason: its own test target
(//arm/ops:<op>_u55_INT) reports that failure.
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

TARGET = "ethos-u55-128"
# The harness's name for this target in OpTestCase.cpu_targets.
CPU_TARGET_NAME = "u55_INT"
MACS_PER_CYCLE = 128


@dataclasses.dataclass(frozen=True)
class NamedCase:
    op: str
    name: str
    case: OpTestCase

    @property
    def test_id(self) -> str:
        return f"{self.op}_{self.name}"


def _npu_cases() -> list[NamedCase]:
    return [
        NamedCase(op, name, case)
        for op in registry.op_names()
        for name, case in registry.test_cases(op).items()
        if CPU_TARGET_NAME not in case.cpu_targets
    ]


CASES = this_shard(_npu_cases())


@pytest.fixture(scope="module")
def npu() -> NpuModel:
    return NpuModel(MACS_PER_CYCLE)


@pytest.mark.parametrize("named", CASES, ids=[named.test_id for named in CASES])
def test_npu_model_matches_tosa_reference(named: NamedCase, npu: NpuModel) -> None:
    torch.set_num_threads(1)
    case = named.case
    try:
        result = run_flow(ModelSpec(case.module, case.inputs, case.calibration_inputs()), resolve_target(TARGET),
                          progress=False)
    except Exception as error:  # noqa: BLE001 - any flow failure belongs to the op's own test
        pytest.skip(f"the flow failed before Vela ({type(error).__name__}: {str(error)[:200]}); "
                    f"see //arm/ops:{named.op}_u55_INT")
    if len(result.artifacts.tosa) != 1 or len(result.artifacts.vela) != 1:
        pytest.skip(f"lowered to delegates {list(result.delegate_ids)}, not one Ethos-U delegate")
    (tosa,), (vela,) = result.artifacts.tosa, result.artifacts.vela
    inputs = quantized_inputs(tosa, [tensor.numpy() for tensor in case.inputs])
    comparisons = compare_delegate(tosa, vela, inputs, npu)
    differing = [comparison.describe() for comparison in comparisons if comparison.mismatches]
    assert not differing, f"{named.test_id}: the NPU model departs from the TOSA reference model: {'; '.join(differing)}"
