"""Reads intermediate tensors of a TOSA graph from the TOSA reference model.

The reference model returns only the graph's outputs, and its ``dump_intermediates`` mode prints every
tensor as text (20 s for MobileNetV2). Instead the flatbuffer gets more outputs: the block's output list
is a vector of strings reached through a forward offset, so a new list appended at the end of the
buffer, with the offset pointing at it, exposes any tensor without rebuilding (or reordering) the rest.
The graph the delegate runs is thus measured as it is, operator for operator.
"""

from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import os
import struct
import sys
from typing import Iterator, Mapping, Sequence

import numpy as np
import tosa_reference_model
from tosa import DType, TosaGraph

# Field slots (vtable byte offsets) of TosaBasicBlock in the TOSA 1.0 schema: name 4, operators 6,
# tensors 8, inputs 10, outputs 12.
_BLOCK_OUTPUTS_SLOT = 12
_C_LIBRARY = ctypes.CDLL(None)
_NUMPY_DTYPES = {
    DType.DType.BOOL: np.dtype(np.bool_),
    DType.DType.INT8: np.dtype(np.int8),
    DType.DType.INT16: np.dtype(np.int16),
    DType.DType.INT32: np.dtype(np.int32),
    DType.DType.FP32: np.dtype(np.float32),
}


@contextlib.contextmanager
def _quiet_stdout() -> Iterator[None]:
    """Silences the reference model's C++ stdout (a version notice per run, 16 per MobileNetV2 report)."""
    sys.stdout.flush()
    saved = os.dup(1)
    try:
        with open(os.devnull, "wb") as null:
            os.dup2(null.fileno(), 1)
            try:
                yield
            finally:
                _C_LIBRARY.fflush(None)  # C stdio buffers its output: empty it while it still goes nowhere
    finally:
        os.dup2(saved, 1)
        os.close(saved)


class TosaProbeError(RuntimeError):
    """The TOSA graph could not be run with its intermediate tensors exposed."""


@dataclasses.dataclass(frozen=True)
class TensorInfo:
    name: str
    shape: tuple[int, ...]
    dtype: np.dtype | None  # None for types numpy cannot hold (INT48, SHAPE, ...)


def _block(flatbuffer: bytes):
    graph = TosaGraph.TosaGraph.GetRootAs(flatbuffer, 0)
    if graph.RegionsLength() != 1 or graph.Regions(0).BlocksLength() != 1:
        raise TosaProbeError("only single-region, single-block TOSA graphs can be probed")
    return graph.Regions(0).Blocks(0)


def tensor_table(flatbuffer: bytes) -> dict[str, TensorInfo]:
    """Every tensor of the graph by name."""
    block = _block(flatbuffer)
    table = {}
    for index in range(block.TensorsLength()):
        tensor = block.Tensors(index)
        name = tensor.Name().decode()
        shape = tuple(int(tensor.Shape(j)) for j in range(tensor.ShapeLength()))
        table[name] = TensorInfo(name, shape, _NUMPY_DTYPES.get(tensor.Type()))
    return table


def graph_outputs(flatbuffer: bytes) -> list[str]:
    block = _block(flatbuffer)
    return [block.Outputs(index).decode() for index in range(block.OutputsLength())]


def with_outputs(flatbuffer: bytes, names: Sequence[str]) -> bytes:
    """The same graph whose output list is ``names`` (tensors it already has)."""
    known = tensor_table(flatbuffer)
    if missing := [name for name in names if name not in known]:
        raise TosaProbeError(f"the TOSA graph has no tensor(s) {', '.join(missing)}")
    block = _block(flatbuffer)
    vtable_offset = block._tab.Offset(_BLOCK_OUTPUTS_SLOT)
    if vtable_offset == 0:
        raise TosaProbeError("the TOSA graph's block has no output list to redirect")
    field = block._tab.Pos + vtable_offset

    out = bytearray(flatbuffer)
    out += b"\0" * (-len(out) % 4)
    vector = len(out)
    out += struct.pack("<I", len(names)) + b"\0" * (4 * len(names))
    for index, name in enumerate(names):
        out += b"\0" * (-len(out) % 4)
        slot = vector + 4 + 4 * index
        struct.pack_into("<I", out, slot, len(out) - slot)
        encoded = name.encode()
        out += struct.pack("<I", len(encoded)) + encoded + b"\0"
    out += b"\0" * (-len(out) % 4)
    struct.pack_into("<I", out, field, vector - field)
    return bytes(out)


def run_with_probes(
    flatbuffer: bytes, inputs: Sequence[np.ndarray], probes: Sequence[str]
) -> dict[str, np.ndarray]:
    """Runs the graph on ``inputs`` and returns its outputs and every tensor in ``probes`` by name."""
    names = list(dict.fromkeys([*graph_outputs(flatbuffer), *probes]))
    table = tensor_table(flatbuffer)
    with _quiet_stdout():
        outputs, status = tosa_reference_model.run(with_outputs(flatbuffer, names), list(inputs))
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        raise TosaProbeError(f"the TOSA reference model did not run the graph: {status}")
    values: Mapping[str, np.ndarray] = dict(zip(names, outputs, strict=True))
    return {name: np.asarray(value).reshape(table[name].shape) for name, value in values.items()}
