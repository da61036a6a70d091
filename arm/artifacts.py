"""Intermediate products of a lowering (TOSA graphs, Vela output), collected without touching the .pte.

Backends' ``preprocess`` is a static hook called deep inside executorch's ``to_backend``; passing paths
through the compile spec would write them into the .pte (and make its bytes depend on the machine).
Instead a caller opens a collection scope and every backend reports what it produced into it:

    with collect_artifacts() as artifacts:
        lower_to_pte(...)
    artifacts.tosa[0].flatbuffer
"""

from __future__ import annotations

import contextlib
import contextvars
import dataclasses
from typing import Iterator

import numpy as np


@dataclasses.dataclass(frozen=True)
class TensorIo:
    """One input or output of a delegated graph as the delegate sees it.

    ``shape`` and ``dtype`` are those of the TOSA tensor; for integer tensors that stand for quantized
    values, ``scale`` and ``zero_point`` say how they map to real numbers (real = scale * (q - zero_point)).
    """

    name: str
    shape: tuple[int, ...]
    dtype: np.dtype
    scale: float | None = None
    zero_point: int | None = None

    def quantize(self, real: np.ndarray) -> np.ndarray:
        if self.scale is None:
            return real.astype(self.dtype)
        info = np.iinfo(self.dtype)
        q = np.round(real / self.scale) + self.zero_point
        return np.clip(q, info.min, info.max).astype(self.dtype)

    def dequantize(self, values: np.ndarray) -> np.ndarray:
        if self.scale is None:
            return values.astype(np.float32)
        return ((values.astype(np.float32) - self.zero_point) * self.scale).astype(np.float32)


@dataclasses.dataclass(frozen=True)
class TosaArtifact:
    """A serialized TOSA graph for one delegated partition and the description of its I/O."""

    flatbuffer: bytes
    inputs: tuple[TensorIo, ...]
    outputs: tuple[TensorIo, ...]
    spec: str  # e.g. "TOSA-1.0+INT"


@dataclasses.dataclass(frozen=True)
class VelaArtifact:
    """Vela's result for one partition: the bin stream stored in the .pte and Vela's own report."""

    bin_stream: bytes
    summary_csv: str
    total_cycles: int
    npu_cycles: int
    cpu_ops: tuple[str, ...]  # TOSA operators Vela left to the CPU; empty when all run on the NPU
    log: str
    # Vela's per-operator CSV (cycles by kind, MACs, staging use; one row per NPU operator, named after
    # its TOSA output tensor); empty if Vela wrote none.
    per_layer_csv: str = ""


@dataclasses.dataclass
class Artifacts:
    tosa: list[TosaArtifact] = dataclasses.field(default_factory=list)
    vela: list[VelaArtifact] = dataclasses.field(default_factory=list)


_current: contextvars.ContextVar[Artifacts | None] = contextvars.ContextVar("arm_artifacts", default=None)


@contextlib.contextmanager
def collect_artifacts() -> Iterator[Artifacts]:
    artifacts = Artifacts()
    token = _current.set(artifacts)
    try:
        yield artifacts
    finally:
        _current.reset(token)


def report_tosa(artifact: TosaArtifact) -> None:
    if (artifacts := _current.get()) is not None:
        artifacts.tosa.append(artifact)


def report_vela(artifact: VelaArtifact) -> None:
    if (artifacts := _current.get()) is not None:
        artifacts.vela.append(artifact)
