"""Runs an Ethos-U delegate on the NPU model and on the TOSA reference model, for bit-exact comparison.

Vela compiles the delegate's TOSA graph; both models get the same integer inputs (the TOSA graph's, laid
out as Vela's command stream expects them, which is the same bytes) and must produce the same integers.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
import tosa_reference_model

from arm.artifacts import TosaArtifact
from arm.ethosu.npu_model.binding import NpuModel
from arm.tosa.reference_io import reference_input, reference_output


@dataclasses.dataclass(frozen=True)
class OutputComparison:
    """One delegate output: what the NPU model wrote and what the TOSA reference model computed."""

    index: int
    npu: np.ndarray
    reference: np.ndarray

    @property
    def mismatches(self) -> int:
        return int(np.count_nonzero(self.npu != self.reference))

    @property
    def max_difference(self) -> int:
        if self.npu.size == 0:
            return 0
        return int(np.max(np.abs(self.npu.astype(np.int64) - self.reference.astype(np.int64))))

    def describe(self) -> str:
        return (
            f"output {self.index} {self.reference.dtype}{list(self.reference.shape)}: {self.mismatches} of "
            f"{self.reference.size} values differ, by at most {self.max_difference}"
        )


def reference_outputs(tosa: TosaArtifact, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    outputs, status = tosa_reference_model.run(tosa.flatbuffer, [reference_input(np.asarray(x)) for x in inputs])
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        raise AssertionError(f"the TOSA reference model rejected the graph ({tosa.spec}): {status}")
    return [reference_output(output, io.dtype) for output, io in zip(outputs, tosa.outputs, strict=True)]


def npu_outputs(tosa: TosaArtifact, bin_stream: bytes, inputs: Sequence[np.ndarray], model: NpuModel) -> list[np.ndarray]:
    """The delegate's outputs from the NPU model (Vela's ``bin_stream`` of ``tosa``), typed and shaped as the TOSA graph's."""
    run = model.run_bin_stream(bin_stream, [np.asarray(value, dtype=io.dtype) for io, value in zip(tosa.inputs, inputs)])
    return [raw.view(np.uint8).view(io.dtype).reshape(io.shape) for raw, io in zip(run.outputs, tosa.outputs, strict=True)]


def compare_delegate(
    tosa: TosaArtifact, bin_stream: bytes, inputs: Sequence[np.ndarray], model: NpuModel
) -> list[OutputComparison]:
    """Both models on the same integer inputs of one delegate (``inputs`` in the TOSA graph's terms)."""
    return compare_outputs(npu_outputs(tosa, bin_stream, inputs, model), reference_outputs(tosa, inputs))


def compare_outputs(npu: Sequence[np.ndarray], reference: Sequence[np.ndarray]) -> list[OutputComparison]:
    return [OutputComparison(index, got, want) for index, (got, want) in enumerate(zip(npu, reference, strict=True))]


def quantized_inputs(tosa: TosaArtifact, real_inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """A delegate's integer inputs for real-valued model inputs (a delegate that takes the model's inputs)."""
    if len(tosa.inputs) != len(real_inputs):
        raise ValueError(f"the TOSA graph takes {len(tosa.inputs)} inputs, {len(real_inputs)} given")
    return [io.quantize(np.asarray(value)) for io, value in zip(tosa.inputs, real_inputs)]
