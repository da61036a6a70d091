"""Two Vela 5.2.0 behaviours the EthosUBackend works around, each on a tiny TOSA graph run on the NPU model.

- A graph input no operator reads is missing from Vela's command stream: arm/ethosu/delegate_io.py gives
  it its own scratch entry, so every argument still reaches its tensor (checked against the TOSA
  reference model).
- On the U55, a rank-5 elementwise operator whose first operand is one broadcast element computes
  something else (arm/ethosu/vela_departures.py): the rule must find it, the stream must still depart
  (this test fails once a Vela upgrade fixes it, and the rule can go), and the rank-4 form stays exact.
"""

from __future__ import annotations

import numpy as np
import pytest
import tosa_serializer as ts

from arm.artifacts import TensorIo, TosaArtifact
from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.bin_stream import parse_bin_stream, write_bin_stream
from arm.ethosu.delegate_io import DelegateIoError, align_delegate_io, read_inputs
from arm.ethosu.npu_model.binding import NpuModel, NpuModelError
from arm.ethosu.npu_model.oracle import compare_delegate
from arm.ethosu.vela import compile_tosa
from arm.ethosu.vela_departures import departures
from arm.tosa.graph import TosaGraph

U55 = "ethos-u55-128"


def _unread_first_input() -> TosaArtifact:
    """``clamp(y)``, with an input ``x`` before ``y`` that no operator reads."""
    graph = TosaGraph()
    graph.add_input("x", (1, 2, 4), np.int8)
    y = graph.add_input("y", (1, 3, 8), np.int8)
    out = graph.add_tensor("out", (1, 3, 8), np.int8)
    attribute = ts.TosaSerializerAttribute()
    attribute.ClampAttribute([-20 & 0xFF], [30], ts.NanPropagationMode.PROPAGATE)
    graph.add_op(ts.Op.CLAMP, [y], [out], attribute)
    graph.mark_output(out)
    int8 = np.dtype(np.int8)
    return TosaArtifact(
        graph.serialize(),
        (TensorIo("x", (1, 2, 4), int8), TensorIo("y", (1, 3, 8), int8)),
        (TensorIo("out", (1, 3, 8), int8),),
        "TOSA-1.0+INT",
    )


def _broadcast_sub(first_shape: tuple[int, ...], second_shape: tuple[int, ...]) -> TosaArtifact:
    """int32 ``a - b``, both graph inputs."""
    graph = TosaGraph()
    a = graph.add_input("a", first_shape, np.int32)
    b = graph.add_input("b", second_shape, np.int32)
    shape = tuple(max(p, q) for p, q in zip(first_shape, second_shape))
    out = graph.add_tensor("out", shape, np.int32)
    graph.add_op(ts.Op.SUB, [a, b], [out], _sub())
    graph.mark_output(out)
    int32 = np.dtype(np.int32)
    return TosaArtifact(
        graph.serialize(),
        (TensorIo("a", first_shape, int32), TensorIo("b", second_shape, int32)),
        (TensorIo("out", shape, int32),),
        "TOSA-1.0+INT",
    )


def _sub() -> ts.TosaSerializerAttribute:
    attribute = ts.TosaSerializerAttribute()
    attribute.SubAttribute()
    return attribute


@pytest.fixture(scope="module")
def npu() -> NpuModel:
    return NpuModel(U55)


def _inputs(tosa: TosaArtifact, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.integers(-1000, 1000, io.shape).astype(io.dtype) for io in tosa.inputs]


def test_an_unread_input_keeps_its_place_in_the_blob(npu: NpuModel) -> None:
    tosa = _unread_first_input()
    assert read_inputs(tosa.flatbuffer) == (False, True)
    stream = parse_bin_stream(compile_tosa(tosa.flatbuffer, EthosUCompileSpec(U55)).bin_stream)
    assert len(stream.inputs) == 1  # Vela leaves x out; the fix is needed while this holds
    aligned = align_delegate_io(stream, tosa.inputs, tosa.outputs, read_inputs(tosa.flatbuffer))
    x_entry = aligned.inputs[0]
    assert (x_entry.shape, x_entry.elem_size, x_entry.region) == ((1, 1, 1, 1, 2, 4), 1, 1)
    assert x_entry.offset >= stream.scratch_size and x_entry.offset % 16 == 0
    assert aligned.scratch_size == x_entry.offset + 8 and aligned.inputs[1] == stream.inputs[0]
    inputs = [np.random.default_rng(0).integers(-128, 128, io.shape).astype(np.int8) for io in tosa.inputs]
    comparisons = compare_delegate(tosa, write_bin_stream(aligned), inputs, npu)
    assert [c.mismatches for c in comparisons] == [0], [c.describe() for c in comparisons]


def test_a_stream_that_lacks_a_read_input_is_refused() -> None:
    tosa = _unread_first_input()
    stream = parse_bin_stream(compile_tosa(tosa.flatbuffer, EthosUCompileSpec(U55)).bin_stream)
    with pytest.raises(DelegateIoError, match="takes 1 inputs; the delegate's TOSA graph has 2, 2 of them read"):
        align_delegate_io(stream, tosa.inputs, tosa.outputs, (True, True))


def test_a_rank5_one_element_first_operand_departs_on_the_u55(npu: NpuModel) -> None:
    tosa = _broadcast_sub((1, 1, 1, 1, 1), (1, 8, 4, 1, 1))
    (found,) = departures(tosa.flatbuffer, U55)
    assert found.output == "out" and "rank-5 SUB" in found.reason
    assert departures(tosa.flatbuffer, "ethos-u85-256") == []
    bin_stream = compile_tosa(tosa.flatbuffer, EthosUCompileSpec(U55)).bin_stream
    try:  # the NPU model either reads past the operand or computes other numbers
        (comparison,) = compare_delegate(tosa, bin_stream, _inputs(tosa, 1), npu)
        departed = comparison.mismatches > 0
    except NpuModelError:
        departed = True
    assert departed, "Vela's U55 stream is exact now: drop the rule in arm/ethosu/vela_departures.py"


@pytest.mark.parametrize(
    "first, second", [((1, 1, 1, 1), (8, 4, 1, 1)), ((1, 8, 4, 1, 1), (1, 1, 1, 1, 1))], ids=["rank4", "second_one"]
)
def test_the_forms_left_on_the_npu_are_exact(first: tuple[int, ...], second: tuple[int, ...], npu: NpuModel) -> None:
    tosa = _broadcast_sub(first, second)
    assert departures(tosa.flatbuffer, U55) == []
    bin_stream = compile_tosa(tosa.flatbuffer, EthosUCompileSpec(U55)).bin_stream
    (comparison,) = compare_delegate(tosa, bin_stream, _inputs(tosa, 2), npu)
    assert comparison.mismatches == 0, comparison.describe()
