"""Vela 5.2.0's U55 widened windows (arm/tosa/widened_window_copies.py) on tiny TOSA graphs, on the NPU model
bit for bit against the TOSA reference model.

Each graph slices an int8 x (or concatenates two windows of it), widens the result to int32 by a RESCALE and
multiplies it (or adds it) to another int32 operand. Where the RESCALE cannot fold into its reader
(arm/tosa/u55_rescale_fusion.py), the U55 stream widens x from its start into the window's buffer: the pass copies
such a window, and the copy is exact; without it the stream departs or writes past the scratch area (that test
fails once a Vela upgrade fixes it, and the copies can go). Where the RESCALE folds in (a MUL of two widenings by
one, an ADD of two grids whose larger operand scale is the U55's unscaled 2^19), the pass leaves the graph alone
and the stream is exact. The departing windows start at row or channel 0: Vela's stream is the same for any
offset, and for some offsets the allocation happens to hide it (x[3:] of a (6, 8) x came out exact).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import tosa_serializer as ts

from arm.artifacts import TensorIo, TosaArtifact
from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.npu_model.binding import NpuModel, NpuModelError
from arm.ethosu.npu_model.oracle import compare_delegate
from arm.ethosu.vela import compile_tosa
from arm.tosa.graph import TosaGraph, TosaValue, concat, int32_elementwise, slice_tensor
from arm.tosa.graph_testing import operator_names
from arm.tosa.rescale import rescale
from arm.tosa.widened_window_copies import copy_widened_windows

INT8, INT32 = np.dtype(np.int8), np.dtype(np.int32)
TARGET = "ethos-u55-128"


@dataclasses.dataclass(frozen=True)
class Window:
    """x of ``shape`` sliced at ``start`` to ``size``, widened by ``scale`` and read by ``reader``, whose other
    operand is y widened by one (``"widened"``) or y widened and added to itself (``"computed"``, as glu's gate)."""

    shape: tuple[int, ...]
    start: tuple[int, ...]
    size: tuple[int, ...]
    scale: float = 1.0
    reader: ts.Op = ts.Op.MUL
    other: str = "widened"
    other_scale: float = 1.0
    # "slice": x[start:start+size]; "concat": x[start:] and x[:start] along the last axis, concatenated (a roll).
    window: str = "slice"


DEPARTING = {
    # glu's fine gate: x[:, :4] by one, times a computed int32 gate.
    "channels_times_computed": Window((6, 8), (0, 0), (6, 4), other="computed"),
    "channel_offset_rank4_by_half": Window((1, 2, 4, 16), (0, 0, 0, 8), (1, 2, 4, 8), scale=0.5),
    "first_rows_by_half": Window((6, 8), (0, 0), (3, 8), scale=0.5),
    # A window widened by a plain 0.5 for an ADD: the U55 folds ADD operand scales only as 16-bit multipliers
    # without shift or beside an unscaled 2^19.
    "first_rows_plus_half": Window((6, 8), (0, 0), (3, 8), scale=0.5, reader=ts.Op.ADD),
    # x rolled along its channels (two windows, concatenated) widened on x's grid for an ADD.
    # One channel: its copy has one scale, which Vela would fold away as a per-tensor identity; the copy's
    # zero points keep it (found by tools/u55_window_fuzz.py).
    "one_channel_plus_computed": Window((5, 6, 2), (0, 0, 1), (5, 6, 1), scale=3.0, reader=ts.Op.ADD, other="computed",
                                        other_scale=2.0**19),
    "rolled_plus": Window((3, 8), (0, 3), (3, 8), reader=ts.Op.ADD, window="concat", scale=2.0**19, other_scale=2.0**19),
}
FOLDED = {
    "channel_offset_rank4_by_one": Window((1, 2, 4, 16), (0, 0, 0, 8), (1, 2, 4, 8)),
    "rows_by_one": Window((6, 8), (0, 0), (3, 8)),
    # Two grids: the window's operand scale is the U55's unscaled 2^19, y's another; the ADD and its narrowing
    # RESCALE take both (the flow's ADD of a window and another tensor).
    "first_rows_plus_other_grid": Window((6, 8), (0, 0), (3, 8), scale=2.0**19, reader=ts.Op.ADD, other_scale=0.7 * 2.0**18),
}


def widened_window_graph(window: Window, *, copied: bool) -> TosaGraph:
    graph = TosaGraph()
    x = graph.add_input("x", window.shape, INT8)
    y = graph.add_input("y", window.size, INT8)
    if window.window == "concat":
        axis, split = len(window.shape) - 1, window.start[-1]
        tail = slice_tensor(graph, x, (0,) * axis + (split,), (*window.shape[:-1], window.shape[-1] - split), name="t")
        head = slice_tensor(graph, x, (0,) * (axis + 1), (*window.shape[:-1], split), name="h")
        sliced = concat(graph, [tail, head], axis, name="w")
    else:
        sliced = slice_tensor(graph, x, window.start, window.size, name="w")
    wide = rescale(graph, sliced, name="w_int32", scales=[window.scale], output_dtype=INT32, input_zp=-3, output_zp=0)
    other = rescale(graph, y, name="y_int32", scales=[window.other_scale], output_dtype=INT32, input_zp=0, output_zp=0)
    if window.other == "computed":
        other = int32_elementwise(graph, ts.Op.ADD, other, other, name="gate")
    result = int32_elementwise(graph, window.reader, wide, other, name="result")
    # Keeps the outputs' int8 range busy, so a departure shows in most of them.
    largest = max(window.scale, window.other_scale)
    out_scale = 1 / (largest * largest * 512) if window.reader == ts.Op.MUL else 1 / (largest * 4)
    graph.mark_output(rescale(graph, result, name="out", scales=[out_scale], output_dtype=INT8, input_zp=0, output_zp=0))
    if copied:
        copy_widened_windows(graph)
    return graph


def rescales(window: Window, *, copied: bool) -> int:
    return operator_names(widened_window_graph(window, copied=copied)).count("RESCALE")


def mismatches(window: Window, *, copied: bool) -> int:
    """Outputs that differ from the reference model; -1 when the NPU model stops at an access out of bounds."""
    graph = widened_window_graph(window, copied=copied)
    ios = (TensorIo("x", window.shape, INT8), TensorIo("y", window.size, INT8))
    tosa = TosaArtifact(graph.serialize(), ios, (TensorIo("out", window.size, INT8),), "TOSA-1.0+INT")
    rng = np.random.default_rng(7)
    inputs = [rng.integers(-128, 128, io.shape).astype(np.int8) for io in tosa.inputs]
    stream = compile_tosa(tosa.flatbuffer, EthosUCompileSpec(TARGET)).bin_stream
    try:
        (comparison,) = compare_delegate(tosa, stream, inputs, _model())
    except NpuModelError:
        return -1
    return comparison.mismatches


_MODELS: dict[str, NpuModel] = {}


def _model() -> NpuModel:
    return _MODELS.setdefault(TARGET, NpuModel(TARGET))


@pytest.mark.parametrize("name", DEPARTING)
def test_a_window_widened_on_its_own_is_copied_and_exact(name: str) -> None:
    window = DEPARTING[name]
    assert rescales(window, copied=True) == rescales(window, copied=False) + 1, "the pass should copy the window"
    assert mismatches(window, copied=True) == 0


@pytest.mark.parametrize("name", DEPARTING)
def test_vela_still_departs_on_the_window_itself(name: str) -> None:
    assert mismatches(DEPARTING[name], copied=False) != 0, (
        f"Vela's {TARGET} stream for {name} is exact now: arm/tosa/widened_window_copies.py may go"
    )


@pytest.mark.parametrize("name", FOLDED)
def test_a_folded_widening_reads_the_window_in_place_and_is_exact(name: str) -> None:
    window = FOLDED[name]
    assert rescales(window, copied=True) == rescales(window, copied=False), "the pass should leave the graph alone"
    assert mismatches(window, copied=True) == 0
