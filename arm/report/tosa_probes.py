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
from typing import Collection, Iterator, Mapping, Sequence

import numpy as np
import tosa_reference_model
from tosa import DType, Op, TosaGraph

# Field slots (vtable byte offsets) of TosaBasicBlock in the TOSA 1.0 schema: name 4, operators 6,
# tensors 8, inputs 10, outputs 12, shapes 14.
_BLOCK_OPERATORS_SLOT = 6
_BLOCK_TENSORS_SLOT = 8
_BLOCK_INPUTS_SLOT = 10
_BLOCK_OUTPUTS_SLOT = 12
_BLOCK_SHAPES_SLOT = 14
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


def _field_position(block, slot: int, what: str) -> int:
    vtable_offset = block._tab.Offset(slot)
    if vtable_offset == 0:
        raise TosaProbeError(f"the TOSA graph's block has no {what} to redirect")
    return block._tab.Pos + vtable_offset


def _append_string_vector(out: bytearray, names: Sequence[str]) -> int:
    """Appends a flatbuffer vector of strings to ``out``; returns the vector's position."""
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
    return vector


def _shorten_table_vector(out: bytearray, vector: int, tables: Sequence[int]) -> None:
    """Rewrites the vector of table offsets at ``vector`` in place to hold ``tables`` (absolute positions).

    A flatbuffer offset only points forward, and builders write children before their parents, at
    higher addresses: every table lies after the vector that lists it, so the vector's own first
    slots can list any subset of them (a new vector appended at the end could not).
    """
    if len(tables) > struct.unpack_from("<I", out, vector)[0]:
        raise TosaProbeError("a vector rewritten in place cannot grow")
    struct.pack_into("<I", out, vector, len(tables))
    for index, table in enumerate(tables):
        slot = vector + 4 + 4 * index
        struct.pack_into("<I", out, slot, table - slot)


def _keep_tables(out: bytearray, block, slot: int, indices: Sequence[int]) -> None:
    """Keeps the tables at ``indices`` of the block's table vector in field ``slot``."""
    field = _field_position(block, slot, "table list")
    vector = field + struct.unpack_from("<I", out, field)[0]
    positions = [vector + 4 + 4 * index for index in indices]
    _shorten_table_vector(out, vector, [position + struct.unpack_from("<I", out, position)[0] for position in positions])


def _point(out: bytearray, field: int, vector: int) -> None:
    struct.pack_into("<I", out, field, vector - field)


def with_outputs(flatbuffer: bytes, names: Sequence[str]) -> bytes:
    """The same graph whose output list is ``names`` (tensors it already has)."""
    known = tensor_table(flatbuffer)
    if missing := [name for name in names if name not in known]:
        raise TosaProbeError(f"the TOSA graph has no tensor(s) {', '.join(missing)}")
    field = _field_position(_block(flatbuffer), _BLOCK_OUTPUTS_SLOT, "output list")
    out = bytearray(flatbuffer)
    _point(out, field, _append_string_vector(out, names))
    return bytes(out)


@dataclasses.dataclass(frozen=True)
class OperatorInfo:
    index: int
    op: str  # TOSA op name (CONV2D, RESCALE, ...)
    inputs: tuple[str, ...]
    outputs: tuple[str, ...]


_OP_NAMES = {value: name for name, value in vars(Op.Op).items() if not name.startswith("_")}


def operator_table(flatbuffer: bytes) -> list[OperatorInfo]:
    """Every operator of the graph in order, with the tensors it reads and writes."""
    block = _block(flatbuffer)
    table = []
    for index in range(block.OperatorsLength()):
        operator = block.Operators(index)
        table.append(
            OperatorInfo(
                index,
                _OP_NAMES.get(operator.Op(), str(operator.Op())),
                tuple(operator.Inputs(j).decode() for j in range(operator.InputsLength())),
                tuple(operator.Outputs(j).decode() for j in range(operator.OutputsLength())),
            )
        )
    return table


def segment_operators(
    operators: Sequence[OperatorInfo], outputs: Sequence[str], boundary: Collection[str]
) -> tuple[list[OperatorInfo], list[str]]:
    """The operators computing ``outputs`` from ``boundary`` tensors (and constants), in graph order,
    and the boundary tensors they read. Tensors no operator produces (graph inputs) are boundary too."""
    producer = {name: operator for operator in operators for name in operator.outputs}
    needed: dict[int, OperatorInfo] = {}
    reads: list[str] = []
    stack = list(outputs)
    seen: set[str] = set()
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        source = producer.get(name)
        if (name in boundary and name not in outputs) or source is None:
            reads.append(name)
            continue
        needed[source.index] = source
        stack.extend(source.inputs)
    return [needed[index] for index in sorted(needed)], sorted(set(reads))


def segment(
    flatbuffer: bytes,
    inputs: Sequence[str],
    outputs: Sequence[str],
    operators: Sequence[OperatorInfo] | None = None,
    tensor_names: Sequence[str] | None = None,
) -> bytes:
    """The sub-graph that computes ``outputs`` from ``inputs``: the same buffer with its operator list cut
    down in place and new input and output lists appended, so every kept operator and tensor is byte
    for byte the graph's own (unused tensors stay declared; the reference model ignores them).

    Every path from a graph input to ``outputs`` must pass through ``inputs`` (see segment_operators).
    ``operators`` and ``tensor_names`` (the block's tensor names in order) save re-reading a graph that
    is cut many times.
    """
    operators = operator_table(flatbuffer) if operators is None else operators
    kept, reads = segment_operators(operators, outputs, set(inputs))
    if stray := sorted(set(reads) - set(inputs)):
        raise TosaProbeError(f"{', '.join(outputs)} also depend(s) on {', '.join(stray)}, which is not a segment input")
    block = _block(flatbuffer)
    used = {name for operator in kept for name in (*operator.inputs, *operator.outputs)} | set(inputs) | set(outputs)
    names = _tensor_names(block) if tensor_names is None else tensor_names
    tensor_indices = [index for index, name in enumerate(names) if name in used]
    shape_indices = [index for index in range(block.ShapesLength()) if block.Shapes(index).Name().decode() in used]
    out = bytearray(flatbuffer)
    # The reference model refuses tensors nothing reads or writes: both lists are cut down.
    _keep_tables(out, block, _BLOCK_OPERATORS_SLOT, [operator.index for operator in kept])
    _keep_tables(out, block, _BLOCK_TENSORS_SLOT, tensor_indices)
    if block.ShapesLength():
        _keep_tables(out, block, _BLOCK_SHAPES_SLOT, shape_indices)
    _point(out, _field_position(block, _BLOCK_INPUTS_SLOT, "input list"), _append_string_vector(out, list(inputs)))
    _point(out, _field_position(block, _BLOCK_OUTPUTS_SLOT, "output list"), _append_string_vector(out, list(outputs)))
    return bytes(out)


def _tensor_names(block) -> list[str]:
    return [block.Tensors(index).Name().decode() for index in range(block.TensorsLength())]


def tensor_names(flatbuffer: bytes) -> list[str]:
    """The block's tensor names in their stored order."""
    return _tensor_names(_block(flatbuffer))


def run_graph(flatbuffer: bytes, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """The graph's outputs on ``inputs`` (TOSA reference model, its notices silenced)."""
    with _quiet_stdout():
        outputs, status = tosa_reference_model.run(flatbuffer, list(inputs))
    if status != tosa_reference_model.GraphStatus.TOSA_VALID:
        raise TosaProbeError(f"the TOSA reference model did not run the graph: {status}")
    return [np.asarray(value) for value in outputs]


def run_with_probes(
    flatbuffer: bytes, inputs: Sequence[np.ndarray], probes: Sequence[str]
) -> dict[str, np.ndarray]:
    """Runs the graph on ``inputs`` and returns its outputs and every tensor in ``probes`` by name."""
    names = list(dict.fromkeys([*graph_outputs(flatbuffer), *probes]))
    table = tensor_table(flatbuffer)
    outputs = run_graph(with_outputs(flatbuffer, names), inputs)
    values: Mapping[str, np.ndarray] = dict(zip(names, outputs, strict=True))
    return {name: np.asarray(value).reshape(table[name].shape) for name, value in values.items()}
