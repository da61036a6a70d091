"""How far a whole delegated program's outputs are from its own quantized torch model, in output steps.

The program runs on the host without our runtime (arm.ethosu.npu_model.program_oracle: its boundary
quantize/dequantize in numpy, every delegate's TOSA graph on the TOSA reference model); the flow's
converted pt2e module, evaluated in float64 (arm.report.float64_quantized), is the oracle. Used by the
off-list campaign (models/offlist.py --numerics). A program with CPU operators besides its boundary
quantize/dequantize (token models: the int64 ids' cast to int32, an embedding) runs its CPU runs on
ExecuTorch's host runtime instead (runtime.crosscheck.partitioned_program_oracle), its delegates still
on the TOSA reference model.
"""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import numpy as np
import torch

from arm.flow import FlowResult
from arm.report.float64_quantized import as_float64, in_float64, on_grid, output_grids


@dataclasses.dataclass(frozen=True)
class OutputDistance:
    """One output on one input: the largest distance in steps of its grid and how many values differ."""

    output: int
    max_lsb: int
    differing: int
    size: int


def distances_from_quantized_model(result: FlowResult, samples: list[tuple[torch.Tensor, ...]]) -> list[OutputDistance]:
    """Each output on each sample."""
    from arm.ethosu.npu_model.program_oracle import ProgramOracle
    from runtime.crosscheck.partitioned_program_oracle import PartitionedProgramOracle

    if result.quantized_module is None:
        raise ValueError("the program was not quantized: there is no integer grid to measure on")
    if len(result.artifacts.tosa) != len(result.delegate_ids):
        raise ValueError(f"{len(result.delegate_ids)} delegates but {len(result.artifacts.tosa)} TOSA graphs were reported")
    grids = output_grids(result.quantized_module)
    reference = in_float64(result.quantized_module)
    with tempfile.TemporaryDirectory(prefix="offlist_numerics_") as directory:
        pte = Path(directory) / "program.pte"
        pte.write_bytes(result.pte)
        for index, artifact in enumerate(result.artifacts.tosa):
            pte.with_name(f"program{'' if index == 0 else f'_{index}'}.tosa").write_bytes(artifact.flatbuffer)
        program = PartitionedProgramOracle(pte) if result.cpu_compute_nodes else ProgramOracle(pte)
        distances = []
        for sample in samples:
            outputs = program.run([_program_input(tensor) for tensor in sample])
            with torch.no_grad():
                expected = reference(*(as_float64(tensor) for tensor in sample))
            expected = [expected] if isinstance(expected, torch.Tensor) else list(expected)
            for index, (got, want, grid) in enumerate(zip(outputs, expected, grids, strict=True)):
                if grid is None:
                    raise ValueError(f"output {index} is not the dequantize of an int8 grid; nothing to count steps on")
                difference = np.abs(on_grid(got, *grid) - on_grid(want, *grid))
                distances.append(OutputDistance(index, int(difference.max()), int(np.count_nonzero(difference)), difference.size))
    return distances


def _program_input(tensor: torch.Tensor) -> np.ndarray:
    """Floats as float32 (the program quantizes them); integer ids keep their type."""
    return tensor.numpy().astype(np.float32) if tensor.is_floating_point() else tensor.numpy()
