"""Runs a compiled program as a whole, without our runtime: the numbers a replayed case is judged by.

The .pte's CPU instructions run on ExecuTorch's own host runtime and each delegate on the TOSA reference
model (TOSA targets) or on the functional NPU model with Vela's command stream (Ethos-U targets), through
runtime/crosscheck's PartitionedProgramOracle. That oracle reads each partition's TOSA graph from files
beside a .pte and only knows integer graphs; here the graphs come straight from the flow's artifacts,
with their own input and output types, so float (TOSA FP) programs run too.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np

from arm.flow import FlowResult
from runtime.crosscheck.partitioned_program_oracle import (
    DelegateRun,
    OracleError,
    PartitionedProgramOracle,
    planned_tensor,
    split_program,
)


class FlowProgramOracle(PartitionedProgramOracle):
    """``PartitionedProgramOracle`` over a ``FlowResult``: the .pte bytes and the TOSA graphs it lowered."""

    def __init__(self, result: FlowResult, ethos_u_on_npu_model: bool):
        # The base class's set-up, with the graphs taken from the flow instead of from .tosa files.
        self.ethos_u_on_npu_model = ethos_u_on_npu_model
        self._npu_models: dict[str, object] = {}
        self._runtime = None
        self.plan, runs = split_program(result.pte)
        delegate_count = sum(isinstance(run, DelegateRun) for run in runs)
        if delegate_count != len(result.artifacts.tosa):
            raise OracleError(f"{delegate_count} delegate calls but {len(result.artifacts.tosa)} TOSA graphs lowered")
        self.graphs = list(result.artifacts.tosa)
        self.runs = []
        for run in runs:
            if isinstance(run, DelegateRun):
                count = len(self.graphs[run.delegate].inputs)
                run = dataclasses.replace(run, inputs=run.inputs[:count], outputs=run.inputs[count:])
                if any(t is None for t in run.inputs + run.outputs):
                    raise OracleError(f"delegate {run.delegate} takes a constant or non-tensor argument")
            self.runs.append(run)
        self.inputs = [planned_tensor(self.plan, v) for v in self.plan.inputs]
        self.outputs = [planned_tensor(self.plan, v) for v in self.plan.outputs]
        if any(t is None for t in self.inputs + self.outputs):
            raise OracleError("a program input or output is not a planned tensor")


def run_program(result: FlowResult, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The program's outputs for ``inputs``; Ethos-U delegates run on the NPU model of their target."""
    oracle = FlowProgramOracle(result, ethos_u_on_npu_model=result.target.is_ethos_u)
    return oracle.run([np.ascontiguousarray(value) for value in inputs])
