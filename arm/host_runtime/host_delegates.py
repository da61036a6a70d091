"""Delegates the C++ runtime has no backend for, run from Python in their place in the program.

The runtime calls ``init`` once per delegate with its blob and ``execute`` with the DelegateCall's tensors
(the delegate's inputs, then its outputs, whose memory ``execute`` fills). ``VgfBackend`` runs the VGF on
Vulkan (lavapipe on a host, arm/vgf/runner.py); ``TOSABackend`` runs the TOSA graph on the TOSA
reference model. Both see the tensors exactly as the program lays them out; the flow lowers each
partition with I/O in the program's own shapes (layout changes stay inside the graph).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Protocol, Sequence

import numpy as np


class HostDelegateError(RuntimeError):
    """A host delegate could not load its blob or run."""


class HostBackend(Protocol):
    def init(self, index: int, blob: bytes) -> None: ...

    def input_count(self, index: int) -> int: ...

    def run(self, index: int, inputs: Sequence[np.ndarray]) -> list[np.ndarray]: ...

    def close(self) -> None: ...


class TosaReferenceBackend:
    """``TOSABackend``: the blob is a TOSA 1.0 flatbuffer, run on the TOSA reference model."""

    backend_id = "TOSABackend"

    def __init__(self) -> None:
        self._graphs: dict[int, bytes] = {}

    def init(self, index: int, blob: bytes) -> None:
        from tosa.TosaGraph import TosaGraph

        try:
            TosaGraph.GetRootAs(blob, 0).Regions(0).Blocks(0)
        except Exception as error:  # a corrupt flatbuffer raises whatever its reader trips over
            raise HostDelegateError(f"delegate {index}: the TOSABackend blob is not a TOSA graph ({error})") from error
        self._graphs[index] = blob

    def input_count(self, index: int) -> int:
        from tosa.TosaGraph import TosaGraph

        return TosaGraph.GetRootAs(self._graphs[index], 0).Regions(0).Blocks(0).InputsLength()

    def run(self, index: int, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        import tosa_reference_model

        outputs, status = tosa_reference_model.run(self._graphs[index], list(inputs))
        if status != tosa_reference_model.GraphStatus.TOSA_VALID:
            raise HostDelegateError(f"delegate {index}: the TOSA reference model reports {status}")
        return [np.asarray(output) for output in outputs]

    def close(self) -> None:
        self._graphs.clear()


def _vgf_input_count(vgf: bytes) -> int:
    """How many of the VGF's bound tensors are inputs, as ``vgf_dump --scenario-template`` describes them."""
    spec = importlib.util.find_spec("vgf_lib")
    if spec is None or spec.origin is None:
        raise HostDelegateError("Arm's VGF library is not installed: `pip install ai-ml-sdk-vgf-library==0.11.0`")
    vgf_dump = Path(spec.origin).parent / "binaries" / "bin" / "vgf_dump"
    with tempfile.TemporaryDirectory(prefix="arm_run_vgf_") as scratch:
        path = Path(scratch) / "graph.vgf"
        path.write_bytes(vgf)
        dumped = subprocess.run([str(vgf_dump), "--input", str(path), "--scenario-template"], capture_output=True, text=True)
    if dumped.returncode != 0:
        raise HostDelegateError(f"vgf_dump cannot read the VgfBackend blob: {dumped.stderr.strip()}")
    template = json.loads(dumped.stdout)
    return sum(1 for resource in template["resources"] if "src" in resource.get("tensor", {}))


class VgfVulkanBackend:
    """``VgfBackend``: the blob is a VGF file, run on Vulkan by arm/vgf's worker process."""

    backend_id = "VgfBackend"

    def __init__(self) -> None:
        self._vgfs: dict[int, tuple[bytes, int]] = {}
        self._runner = None

    def init(self, index: int, blob: bytes) -> None:
        self._vgfs[index] = (blob, _vgf_input_count(blob))

    def input_count(self, index: int) -> int:
        return self._vgfs[index][1]

    def run(self, index: int, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        from arm.vgf.runner import VgfRunError, VgfRunner

        if self._runner is None:
            self._runner = VgfRunner()
        try:
            return self._runner.run(self._vgfs[index][0], inputs)
        except VgfRunError as error:
            raise HostDelegateError(f"delegate {index}: {error}") from error

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None


def default_host_backends() -> list[HostBackend]:
    return [VgfVulkanBackend(), TosaReferenceBackend()]
