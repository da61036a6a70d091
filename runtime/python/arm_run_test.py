"""The Python runtime (arm.run): load a .pte, run it on numpy or torch inputs through the C++ runtime, the
CLI beside arm.compile, and clear errors for unusable programs and inputs. Expected outputs come from
program_oracle.py (the q/dq ops in numpy as ExecuTorch computes them, delegates on the TOSA reference
model), never from our runtime.
"""

from __future__ import annotations

import os
import pathlib

import numpy as np
import pytest

from arm import run
from arm.run import EXIT_BAD_INPUT, main

WORKSPACE = pathlib.Path(os.path.abspath(__file__)).parents[2]
MODELS = WORKSPACE / "models"
ORACLES = WORKSPACE / "runtime" / "python"
U55 = MODELS / "small_cnn_u55_pte.pte"
U85 = MODELS / "small_cnn_u85_pte.pte"
TOSA = MODELS / "small_cnn_tosa_pte.pte"


def _oracle(program: str) -> tuple[np.ndarray, np.ndarray]:
    directory = ORACLES / f"{program}_arm_run_test_oracle"
    return np.load(directory / "input0.npy"), np.load(directory / "expected0.npy")


def test_a_u55_program_runs_on_numpy_and_equals_the_oracle():
    x, expected = _oracle("small_cnn_u55")
    with run.load(U55) as program:
        assert program.inputs == [run.TensorSpec(np.dtype(np.float32), x.shape)]
        (output,) = program.run([x])
        assert program.npu == "Ethos-U55-128"
    assert output.dtype == expected.dtype and output.tobytes() == expected.tobytes()


def test_torch_inputs_give_the_same_bytes_as_numpy():
    import torch  # only here: the other cases show a numpy-only run never imports it
    x, expected = _oracle("small_cnn_u55")
    with run.load(U55) as program:
        (from_torch,) = program.run([torch.from_numpy(x.copy())])
        (again,) = program.run([x])
    assert from_torch.tobytes() == expected.tobytes() == again.tobytes()


def test_the_npu_model_follows_the_stream_configuration():
    x, _ = _oracle("small_cnn_u55")
    with run.load(U85) as program:
        (output,) = program.run([x])
        assert program.npu == "Ethos-U85-256"
    assert output.shape == program.outputs[0].shape and np.isfinite(output).all()


def test_a_tosa_delegate_runs_on_the_reference_model_and_equals_the_oracle():
    x, expected = _oracle("small_cnn_tosa")
    with run.load(TOSA) as program:
        (output,) = program.run([x])
        assert program.npu is None
    assert output.tobytes() == expected.tobytes()


def test_without_an_npu_the_ethos_u_delegate_says_so():
    x, _ = _oracle("small_cnn_u55")
    with run.load(U55, npu="none") as program:
        with pytest.raises(run.RuntimeRunError, match="no NPU driver is attached to the Ethos-U backend") as raised:
            program.run([x])
    assert raised.value.code == 7  # NotSupported


def test_a_wrong_input_shape_names_what_the_method_wants():
    with run.load(U55) as program:
        with pytest.raises(ValueError, match=r"input 0 is float32\[1, 3, 16, 16\]; the method wants float32\[1, 3, 32, 32\]"):
            program.run([np.zeros((1, 3, 16, 16), np.float32)])
        with pytest.raises(ValueError, match="the method takes 1 inputs, 2 given"):
            program.run([np.zeros((1, 3, 32, 32), np.float32)] * 2)


def test_a_corrupt_program_is_refused_with_the_reason(tmp_path: pathlib.Path):
    corrupt = bytearray(U55.read_bytes())
    corrupt[4:8] = b"XXXX"
    path = tmp_path / "corrupt.pte"
    path.write_bytes(bytes(corrupt))
    with pytest.raises(run.RuntimeRunError, match="not an ExecuTorch program: file identifier 'XXXX'") as raised:
        run.load(path)
    assert raised.value.code == 2  # InvalidProgram


def test_the_cli_writes_outputs_equal_to_the_oracle(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture):
    x, expected = _oracle("small_cnn_u55")
    np.save(tmp_path / "x.npy", x)
    assert main([str(U55), "--input", str(tmp_path / "x.npy"), "--output-dir", str(tmp_path / "out")]) == 0
    assert np.load(tmp_path / "out" / "output0.npy").tobytes() == expected.tobytes()
    assert "Ethos-U delegates ran on the functional model of an Ethos-U55-128" in capsys.readouterr().out


def test_the_cli_rejects_a_missing_model_and_a_wrong_input(tmp_path: pathlib.Path, capsys: pytest.CaptureFixture):
    assert main([str(tmp_path / "absent.pte")]) == EXIT_BAD_INPUT
    assert "no such .pte file" in capsys.readouterr().err
    np.save(tmp_path / "x.npy", np.zeros((2, 2), np.int8))
    assert main([str(U55), "--input", str(tmp_path / "x.npy")]) == EXIT_BAD_INPUT
    assert "input 0 is int8[2, 2]" in capsys.readouterr().err


def test_the_cli_makes_seeded_inputs_for_a_two_command_demo(tmp_path: pathlib.Path):
    # program_oracle.py draws its inputs the same way (uniform [-1, 1), seed 0).
    x, expected = _oracle("small_cnn_u55")
    assert main([str(U55), "--random-inputs", "--output-dir", str(tmp_path)]) == 0
    assert np.load(tmp_path / "input0.npy").tobytes() == x.tobytes()
    assert np.load(tmp_path / "output0.npy").tobytes() == expected.tobytes()
