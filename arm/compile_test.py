import textwrap

import pytest

from arm.compile import EXIT_BAD_INPUT, main

MODEL_FILE = textwrap.dedent(
    """
    import torch
    from arm.model_spec import ModelSpec

    class ConvRelu(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 4, kernel_size=3, padding=1)

        def forward(self, x):
            return torch.relu(self.conv(x))

    def model():
        torch.manual_seed(0)
        generator = torch.Generator().manual_seed(0)
        samples = [(torch.rand(1, 3, 8, 8, generator=generator),) for _ in range(4)]
        return ModelSpec(ConvRelu(), samples[0], samples)

    def not_a_model_spec():
        return torch.nn.ReLU()
    """
)


@pytest.fixture(autouse=True)
def workdir(tmp_path, monkeypatch):
    """A fresh working directory holding the model package ``cli_models``; outputs use relative paths."""
    (tmp_path / "cli_models").mkdir()
    (tmp_path / "cli_models" / "__init__.py").write_text("")
    (tmp_path / "cli_models" / "conv.py").write_text(MODEL_FILE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def _compile(*arguments: str) -> int:
    return main(["--model", "cli_models.conv:model", "--target", "ethos-u55-128", *arguments])


def test_writes_deterministic_outputs(workdir):
    for run in ("a", "b"):
        outputs = ["--output", f"{run}/m.pte", "--tosa-output", f"{run}/m.tosa"]
        assert _compile(*outputs, "--vela-summary-output", f"{run}/m.csv", "--calibration-samples", "2") == 0
    for name in ("m.pte", "m.tosa", "m.csv"):
        assert (workdir / "a" / name).read_bytes() == (workdir / "b" / name).read_bytes(), name
    assert not list(workdir.glob("*/.*.tmp"))


@pytest.mark.parametrize(
    "arguments, message",
    [
        (["--target", "ethos-u99"], "unknown target 'ethos-u99'"),
        (["--model", "cli_models.missing:model"], "cannot import model module 'cli_models.missing'"),
        (["--model", "cli_models.conv:not_a_model_spec"], "returned ReLU; a model factory must return"),
        (["--model", "cli_models.conv"], "must look like 'package.module:function'"),
        (["--target", "tosa-INT", "--vela-summary-output", "s.csv"], "--vela-summary-output needs an Ethos-U target"),
        (["--vela-flag", "--no-such-vela-flag"], "Vela failed to compile the TOSA graph for ethos-u55-128"),
    ],
)
def test_bad_input_exits_2_with_one_message_and_no_outputs(workdir, capsys, arguments, message):
    # argparse keeps the last value of a repeated option, so ``arguments`` override _compile's defaults.
    assert _compile(*arguments, "--output", "out/m.pte", "--tosa-output", "out/m.tosa") == EXIT_BAD_INPUT
    error = capsys.readouterr().err
    assert message in error
    assert "Traceback" not in error
    assert not (workdir / "out").exists()
