"""arm.compile as a persistent worker writes what a lone process writes, and sees edited model files."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

MODEL_FILE = textwrap.dedent(
    """
    import torch
    from arm.model_spec import ModelSpec

    CHANNELS = {channels}

    class ConvRelu(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, CHANNELS, kernel_size=3, padding=1)

        def forward(self, x):
            return torch.relu(self.conv(x))

    def model():
        torch.manual_seed(0)
        samples = [(torch.rand(1, 3, 8, 8),) for _ in range(3)]
        return ModelSpec(ConvRelu(), samples[0], samples)
    """
)

ARM_ROOT = Path(__file__).resolve().parents[1]


def _write_model(workdir: Path, channels: int) -> None:
    (workdir / "worker_models").mkdir(exist_ok=True)
    (workdir / "worker_models" / "__init__.py").write_text("")
    (workdir / "worker_models" / "conv.py").write_text(MODEL_FILE.format(channels=channels))


def _arguments(target: str, output: str) -> list[str]:
    return ["--model", "worker_models.conv:model", "--target", target, "--output", output]


def _environment(workdir: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(workdir), str(ARM_ROOT)])}


def _compile_alone(workdir: Path, arguments: list[str]) -> None:
    # Through a params file, as Bazel runs the action when no worker is used.
    params = workdir / "alone.params"
    params.write_text("\n".join(arguments) + "\n")
    command = [sys.executable, "-m", "arm.compile", f"@{params}"]
    subprocess.run(command, cwd=workdir, env=_environment(workdir), check=True, capture_output=True)


class _Worker:
    def __init__(self, workdir: Path):
        self.process = subprocess.Popen(
            [sys.executable, "-m", "arm.compile", "--persistent_worker"],
            cwd=workdir,
            env=_environment(workdir),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
        )
        self.next_id = 0

    def request(self, arguments: list[str]) -> dict:
        self.next_id += 1
        # Bazel writes requests without whitespace and, as here, not always one per line.
        message = json.dumps({"arguments": arguments, "requestId": self.next_id}, separators=(",", ":"))
        self.process.stdin.write(message.encode())
        self.process.stdin.flush()
        response = json.loads(self.process.stdout.readline())
        assert response["requestId"] == self.next_id
        return response

    def close(self) -> int:
        self.process.stdin.close()
        return self.process.wait(timeout=60)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    _write_model(tmp_path, channels=4)
    return tmp_path


def test_worker_outputs_equal_a_lone_process(workdir: Path) -> None:
    targets = ("ethos-u55-128", "tosa-INT")
    for target in targets:
        _compile_alone(workdir, _arguments(target, f"alone/{target}.pte"))
    worker = _Worker(workdir)
    try:
        for target in targets:
            response = worker.request(_arguments(target, f"worker/{target}.pte"))
            assert response["exitCode"] == 0, response["output"]
            assert "wrote worker/" in response["output"]  # the compile's own messages reach Bazel
    finally:
        assert worker.close() == 0
    for target in targets:
        alone = (workdir / "alone" / f"{target}.pte").read_bytes()
        assert (workdir / "worker" / f"{target}.pte").read_bytes() == alone, target


def test_worker_reads_an_edited_model_file_and_reports_bad_requests(workdir: Path) -> None:
    worker = _Worker(workdir)
    try:
        assert worker.request(_arguments("tosa-INT", "four.pte"))["exitCode"] == 0
        _write_model(workdir, channels=6)
        assert worker.request(_arguments("tosa-INT", "six.pte"))["exitCode"] == 0
        bad = worker.request(_arguments("ethos-u99", "bad.pte"))
        assert bad["exitCode"] == 2 and "unknown target 'ethos-u99'" in bad["output"]
    finally:
        assert worker.close() == 0
    _compile_alone(workdir, _arguments("tosa-INT", "six_alone.pte"))
    assert (workdir / "six.pte").read_bytes() == (workdir / "six_alone.pte").read_bytes()
    assert (workdir / "four.pte").read_bytes() != (workdir / "six.pte").read_bytes()
    assert not (workdir / "bad.pte").exists()
