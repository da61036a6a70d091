"""pte_runner gives the same outputs as ExecuTorch's own host runtime (the executorch wheel), bit for bit.

The programs come from //runtime/testdata:float_programs and :quantized_programs (exported by ExecuTorch, no delegates). The wheel's
Python runtime links the portable and optimized kernels; its quantized kernels ship as a separate library
that registers itself when loaded, so the test loads it first.
"""

from __future__ import annotations

import ctypes
import importlib.util
import os
import pathlib
import subprocess

import numpy as np
import pytest
import torch

# The runfiles tree (not the source tree __file__ links to) holds the built programs and runner.
WORKSPACE = pathlib.Path(os.path.abspath(__file__)).parents[2]
PROGRAM_DIRS = [WORKSPACE / "runtime" / "testdata" / name for name in ("float_programs", "quantized_programs")]
RUNNER = WORKSPACE / "runtime" / "runner" / "pte_runner"
PROGRAM_PATHS = {path.stem: path for directory in PROGRAM_DIRS for path in directory.glob("*.pte")}
PROGRAMS = sorted(PROGRAM_PATHS)


def _load_executorch_quantized_kernels() -> None:
    package = pathlib.Path(importlib.util.find_spec("executorch").submodule_search_locations[0])
    ctypes.CDLL(str(package / "lib" / "libexecutorch_kernels_quantized.so"), mode=ctypes.RTLD_GLOBAL)


@pytest.fixture(scope="module")
def executorch_runtime():
    from executorch.runtime import Runtime

    runtime = Runtime.get()
    _load_executorch_quantized_kernels()
    return runtime


def _inputs(program: str) -> list[pathlib.Path]:
    return sorted(PROGRAM_PATHS[program].parent.glob(f"{program}_input*.npy"))


def _run_pte_runner(*args: str | pathlib.Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(RUNNER), *map(str, args)], capture_output=True, text=True, timeout=60)


def test_the_programs_are_present():
    assert set(PROGRAMS) == {"cond", "conv_layout", "mlp_fp32", "mlp_int8", "mlp_qdq_edges", "softmax"}


def _expect_same_outputs(program: str, inputs: list[pathlib.Path], executorch_runtime, tmp_path: pathlib.Path):
    result = _run_pte_runner("--model", PROGRAM_PATHS[program],
                             *[arg for path in inputs for arg in ("--input", path)], "--output-dir", tmp_path)
    assert result.returncode == 0, result.stderr
    assert "runtime arena:" in result.stdout

    method = executorch_runtime.load_program(PROGRAM_PATHS[program]).load_method("forward")
    expected = method.execute([torch.from_numpy(np.load(path)) for path in inputs])
    assert len(expected) == len(list(tmp_path.glob("output*.npy")))
    for index, reference in enumerate(expected):
        ours = np.load(tmp_path / f"output{index}.npy")
        reference = reference.numpy()
        assert ours.dtype == reference.dtype and ours.shape == reference.shape
        # Bytes, not values: NaN payloads and -0.0 must match too.
        assert ours.tobytes() == reference.tobytes(), f"output {index}: max |diff| {np.abs(ours - reference).max()}"


@pytest.mark.parametrize("program", PROGRAMS)
def test_outputs_match_executorch_bit_for_bit(program: str, executorch_runtime, tmp_path: pathlib.Path):
    _expect_same_outputs(program, _inputs(program), executorch_runtime, tmp_path)


def test_the_other_branch_of_cond_matches_too(executorch_runtime, tmp_path: pathlib.Path):
    predicate, x = _inputs("cond")
    assert np.load(predicate).all(), "the generated predicate should take the first branch"
    false_predicate = tmp_path / "false.npy"
    np.save(false_predicate, np.array([False]))
    _expect_same_outputs("cond", [false_predicate, x], executorch_runtime, tmp_path)


def test_a_truncated_program_is_reported(tmp_path: pathlib.Path):
    pte = PROGRAM_PATHS["mlp_fp32"].read_bytes()
    truncated = tmp_path / "truncated.pte"
    truncated.write_bytes(pte[: len(pte) // 2])
    result = _run_pte_runner("--model", truncated, "--input", _inputs("mlp_fp32")[0], "--output-dir", tmp_path)
    assert result.returncode == 1
    assert "error: InvalidProgram: truncated .pte" in result.stderr


def test_a_too_small_planned_buffer_says_how_much_is_needed(tmp_path: pathlib.Path):
    result = _run_pte_runner("--model", PROGRAM_PATHS["mlp_fp32"], "--input", _inputs("mlp_fp32")[0],
                             "--planned-buffer-bytes", "64", "--output-dir", tmp_path)
    assert result.returncode == 1
    assert "ArenaTooSmall" in result.stderr and "needs 800 bytes, 64 given" in result.stderr, result.stderr
