"""TOSA -> VGF with Arm's ML SDK model converter (PyPI ``ai-ml-sdk-model-converter``, pinned 0.11.0).

The converter is a native binary shipped in the wheel; it runs as a subprocess on files in a private
temporary directory, so the VGF bytes depend on the TOSA graph and the flags only.
"""

from __future__ import annotations

import importlib.util
import pathlib
import re
import subprocess
import tempfile

from tosa.Op import Op

_PACKAGE = "model_converter"
_INSTALL_HINT = (
    "install Arm's ML SDK model converter: `pip install ai-ml-sdk-model-converter==0.11.0` "
    "(pinned in third_party/python/requirements.in; Bazel builds get it from the lock)"
)
# How the converter's MLIR diagnostics name the operator they are about: in the TOSA dialect
# ("'tosa.avg_pool2d' op ...") or, after lowering, in SPIR-V's ("'spirv.Tosa.AvgPool2D' op ...").
_FAILED_OP = re.compile(r"error: '(?:tosa|spirv\.Tosa)\.([A-Za-z0-9_]+)' op (.*)")
# TOSA operator names without underscores ("AVGPOOL2D") -> as the specification spells them ("AVG_POOL2D").
_TOSA_OPS = {name.replace("_", ""): name for name in vars(Op) if not name.startswith("_")}


class VgfConversionError(RuntimeError):
    """The model converter rejected a TOSA graph; ``tosa_op`` names the operator when it said which."""

    def __init__(self, message: str, tosa_op: str | None):
        super().__init__(message)
        self.tosa_op = tosa_op


def model_converter_binary() -> pathlib.Path:
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or spec.origin is None:
        raise VgfConversionError(f"the VGF backend needs Arm's model-converter: {_INSTALL_HINT}", None)
    binary = pathlib.Path(spec.origin).parent / "binaries" / "bin" / "model-converter"
    if not binary.is_file():
        raise VgfConversionError(f"{binary} is missing from the {_PACKAGE} package: {_INSTALL_HINT}", None)
    return binary


def convert_tosa_to_vgf(tosa_flatbuffer: bytes, flags: tuple[str, ...] = ()) -> bytes:
    """Converts one TOSA 1.0 flatbuffer to VGF bytes, or raises VgfConversionError naming the failed op."""
    with tempfile.TemporaryDirectory(prefix="arm_vgf_") as tmp:
        tosa_path = pathlib.Path(tmp) / "graph.tosa"
        vgf_path = pathlib.Path(tmp) / "graph.vgf"
        tosa_path.write_bytes(tosa_flatbuffer)
        command = [str(model_converter_binary()), *flags, "--input", str(tosa_path), "--output", str(vgf_path)]
        process = subprocess.run(command, capture_output=True, text=True, check=False)
        output = f"{process.stdout}{process.stderr}".strip()
        if process.returncode != 0 or not vgf_path.is_file():
            raise _conversion_error(output, process.returncode)
        return vgf_path.read_bytes()


def _conversion_error(output: str, status: int) -> VgfConversionError:
    match = _FAILED_OP.search(output)
    if match is None:
        return VgfConversionError(
            f"model-converter failed (exit status {status}) on the TOSA graph without naming an operator. "
            f"Converter output:\n{output[-4000:]}",
            None,
        )
    dialect_name, complaint = match.groups()
    tosa_op = _TOSA_OPS.get(dialect_name.upper().replace("_", ""), dialect_name)
    return VgfConversionError(
        f"model-converter cannot convert TOSA operator {tosa_op} to VGF: {complaint.strip()}. Keep the ATen op "
        f"that lowers to {tosa_op} on the CPU for VGF targets (its support rule), or move to an ML SDK that "
        f"converts it. Converter output:\n{output[-4000:]}",
        tosa_op,
    )
