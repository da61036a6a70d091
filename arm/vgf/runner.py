"""Runs VGF files on a Vulkan device from Python: numpy arrays in, numpy arrays out.

    with VgfRunner() as runner:
        outputs = runner.run(vgf_bytes, [input_array, ...])

Inputs are the VGF's own tensors (int8 for an INT graph, float32 for an FP one) in the order of the
TOSA graph's inputs. The work happens in one long-lived worker process (worker.py) that carries the
Vulkan environment (vulkan.py): the loader reads that environment once per process, so it cannot be set
from inside a process that is already running, and a driver crash is reported instead of killing the
caller.
"""

from __future__ import annotations

import os
import pathlib
import pickle
import subprocess
import sys
import tempfile
from typing import Sequence

import numpy as np

from arm.vgf.vulkan import VulkanEnvironment, locate_vulkan

_WORKER = pathlib.Path(__file__).with_name("worker.py")


class VgfRunError(RuntimeError):
    """Vulkan could not run a VGF (or the worker running it died)."""


class VgfRunner:
    def __init__(self, environment: VulkanEnvironment | None = None):
        self._environment = environment
        self._scratch: tempfile.TemporaryDirectory | None = None
        self._worker: subprocess.Popen | None = None

    def __enter__(self) -> VgfRunner:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def run(self, vgf: bytes, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        worker = self._started_worker()
        try:
            pickle.dump((vgf, [np.asarray(array) for array in inputs]), worker.stdin)
            worker.stdin.flush()
            status, value = pickle.load(worker.stdout)
        except (BrokenPipeError, EOFError) as error:
            self.close()
            raise VgfRunError(f"the Vulkan worker process died ({error!r}); its stderr is above") from error
        if status != "ok":
            raise VgfRunError(f"running the VGF on Vulkan failed: {value}")
        return value

    def close(self) -> None:
        if self._worker is not None:
            self._worker.stdin.close()
            self._worker.wait()
            self._worker = None
        if self._scratch is not None:
            self._scratch.cleanup()
            self._scratch = None

    def _started_worker(self) -> subprocess.Popen:
        if self._worker is None:
            environment = self._environment or locate_vulkan()
            self._scratch = tempfile.TemporaryDirectory(prefix="arm_vgf_vulkan_")
            variables = environment.process_environment(pathlib.Path(self._scratch.name))
            self._worker = subprocess.Popen(
                [sys.executable, str(_WORKER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                env={**os.environ, **variables},
            )
        return self._worker
