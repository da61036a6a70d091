"""pte_runner runs a whole delegated .pte on the host: its Ethos-U delegates on the functional NPU model of
the configuration the command stream names, its CPU ops on the runtime's kernels. The outputs equal, bit
for bit, what program_oracle.py computes without our runtime (the q/dq ops in numpy as ExecuTorch's
kernels compute them, the delegates on the TOSA reference model from the .tosa arm_pte wrote).

Set by pte_runner_oracle_test (defs.bzl): PTE (the program), ORACLE_DIR (input<i>.npy, expected<i>.npy),
NPU (the configuration the program was compiled for, e.g. Ethos-U85-256).
"""

from __future__ import annotations

import os
import pathlib
import subprocess

import numpy as np

WORKSPACE = pathlib.Path(os.path.abspath(__file__)).parents[2]
RUNNER = WORKSPACE / "runtime" / "runner" / "pte_runner"
PTE = WORKSPACE / os.environ["PTE"]
ORACLE = WORKSPACE / os.environ["ORACLE_DIR"]
NPU = os.environ["NPU"]


def _files(prefix: str) -> list[pathlib.Path]:
    return sorted(ORACLE.glob(f"{prefix}*.npy"), key=lambda path: int(path.stem[len(prefix) :]))


def _run(*args: str | pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(RUNNER), *map(str, args)], capture_output=True, text=True, timeout=600)


def test_the_program_runs_end_to_end_and_equals_the_oracle(tmp_path: pathlib.Path):
    inputs, expected = _files("input"), _files("expected")
    assert inputs and expected, f"the oracle directory {ORACLE} holds no input*.npy / expected*.npy"
    arguments = ["--model", PTE, "--output-dir", tmp_path]
    for path in inputs:
        arguments += ["--input", path]
    for path in expected:
        arguments += ["--expected-output", path]
    # No --npu flag: the NPU model is the default when no driver is attached.
    result = _run(*arguments)
    assert result.returncode == 0, f"pte_runner exited {result.returncode}:\n{result.stdout}\n{result.stderr}"
    assert f"Ethos-U delegates ran on the functional model of an {NPU}" in result.stdout, result.stdout
    # pte_runner compared bit for bit already; compare here too, independently of its own check.
    for index, path in enumerate(expected):
        got, want = np.load(tmp_path / f"output{index}.npy"), np.load(path)
        assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
        assert got.tobytes() == want.tobytes(), f"output {index}: {np.count_nonzero(got != want)} elements differ"


def test_without_an_npu_the_delegate_says_so(tmp_path: pathlib.Path):
    arguments = ["--model", PTE, "--output-dir", tmp_path, "--npu=none"]
    for path in _files("input"):
        arguments += ["--input", path]
    result = _run(*arguments)
    assert result.returncode == 1
    assert "no NPU driver is attached to the Ethos-U backend" in result.stderr, result.stderr


def test_asking_for_a_driver_on_the_host_is_a_clear_error(tmp_path: pathlib.Path):
    result = _run("--model", PTE, "--output-dir", tmp_path, "--npu", "driver")
    assert result.returncode == 1
    assert "no Ethos-U driver can be attached on this host" in result.stderr and "--npu=model" in result.stderr
