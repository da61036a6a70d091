"""``arm.run`` runs a whole delegated .pte on the host through the C++ runtime (CPU ops on its kernels,
Ethos-U delegates on the NPU model, VGF delegates on lavapipe, TOSA delegates on the reference model), and
its outputs equal, bit for bit, what program_oracle.py computes without our runtime.

Set by arm_run_oracle_test (defs.bzl): PTE (the program), ORACLE_DIR (input<i>.npy, expected<i>.npy).
"""

from __future__ import annotations

import os
import pathlib

import numpy as np

from arm import run

WORKSPACE = pathlib.Path(os.path.abspath(__file__)).parents[2]
PTE = WORKSPACE / os.environ["PTE"]
ORACLE = WORKSPACE / os.environ["ORACLE_DIR"]


def _files(prefix: str) -> list[pathlib.Path]:
    return sorted(ORACLE.glob(f"{prefix}*.npy"), key=lambda path: int(path.stem[len(prefix) :]))


def test_the_program_runs_end_to_end_and_equals_the_oracle():
    inputs = [np.load(path) for path in _files("input")]
    expected = [np.load(path) for path in _files("expected")]
    assert inputs and expected, f"the oracle directory {ORACLE} holds no input*.npy / expected*.npy"
    with run.load(PTE) as program:
        outputs = program.run(inputs)
    assert len(outputs) == len(expected)
    for index, (got, want) in enumerate(zip(outputs, expected)):
        assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
        assert got.tobytes() == want.tobytes(), f"output {index}: {np.count_nonzero(got != want)} of {want.size} differ"
