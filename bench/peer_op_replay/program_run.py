"""Runs a compiled program as a whole, without our runtime: the numbers a replayed case is judged by.

The .pte's CPU instructions run on ExecuTorch's own host runtime and each delegate on the TOSA reference
model (TOSA targets) or on the functional NPU model with Vela's command stream (Ethos-U targets), through
runtime/crosscheck's PartitionedProgramOracle. That oracle reads each partition's TOSA graph from files
beside a .pte and only knows integer graphs; here the graphs come straight from the flow's artifacts,
with their own input and output types, so float (TOSA FP) programs run too.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from arm.flow import FlowResult
from runtime.crosscheck.partitioned_program_oracle import (
    DelegateRun,
    OracleError,
    PartitionedProgramOracle,
    split_program,
)


class FlowProgramOracle(PartitionedProgramOracle):
    """``PartitionedProgramOracle`` over a ``FlowResult``: the .pte bytes and the TOSA graphs it lowered."""

    def __init__(self, result: FlowResult, ethos_u_on_npu_model: bool):
        plan, runs = split_program(result.pte)
        delegate_count = sum(isinstance(run, DelegateRun) for run in runs)
        if delegate_count != len(result.artifacts.tosa):
            raise OracleError(f"{delegate_count} delegate calls but {len(result.artifacts.tosa)} TOSA graphs lowered")
        self._set_up(plan, runs, result.artifacts.tosa, ethos_u_on_npu_model)


def run_program(result: FlowResult, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The program's outputs for ``inputs``; Ethos-U delegates run on the NPU model of their target."""
    oracle = FlowProgramOracle(result, ethos_u_on_npu_model=result.target.is_ethos_u)
    # copy(order="C") keeps a 0-d input 0-d (np.ascontiguousarray makes it 1-d).
    return oracle.run([np.array(value, order="C") for value in inputs])
