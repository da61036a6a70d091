"""Vela 5.2.0's U55 ADD/SUB of two different 16-bit operand scales (arm/tosa/unequal_add_sub_scales.py) on tiny
TOSA graphs, on the NPU model bit for bit against the TOSA reference model.

Each graph widens int8 x and y to int32 by RESCALEs of whole-number scales (no window anywhere), adds or subtracts
them and narrows the result to int8. Vela folds both RESCALEs and the narrowing into the elementwise operation, and
for two different scales programs a 32-bit scale mode that weighs the larger operand 2^19: the pass keeps the
RESCALEs apart and the stream is exact; without it the stream departs (that test fails once a Vela upgrade fixes
it, and the pass can go). Equal scales take the 16-bit mode, exact as they are, and the pass leaves them alone.
Found by tools/u55_window_fuzz.py's windowless controls (session 9: seed 2 #60 and #96, seed 3 #90; session 10:
seed 4 #33, #114, #121, #147).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import tosa_serializer as ts

from arm.artifacts import TensorIo, TosaArtifact
from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.npu_model.binding import NpuModel
from arm.ethosu.npu_model.oracle import compare_delegate
from arm.ethosu.vela import compile_tosa
from arm.tosa.graph import TosaGraph, int32_elementwise
from arm.tosa.graph_testing import operator_names
from arm.tosa.rescale import rescale
from arm.tosa.unequal_add_sub_scales import keep_unequal_add_sub_scales_apart

INT8, INT32 = np.dtype(np.int8), np.dtype(np.int32)
TARGET = "ethos-u55-128"


@dataclasses.dataclass(frozen=True)
class ScaledSum:
    """x * ``x_scale`` ``reader`` y * ``y_scale`` (both int8 of ``shape`` from ``zero_point``), narrowed to int8."""

    shape: tuple[int, ...]
    x_scale: float
    y_scale: float
    reader: ts.Op = ts.Op.ADD
    zero_point: int = 5


DEPARTING = {
    # The fuzzer's finding: x * 3 beside y * 1 from zero point 5.
    "add_three_and_one": ScaledSum((2, 3, 8), 3.0, 1.0),
    "sub_one_and_three": ScaledSum((4, 5), 1.0, 3.0, reader=ts.Op.SUB),
    # Rank 4 (fuzz seed 4 #114's windowless control: 252 of 252 off).
    "rank4_add": ScaledSum((2, 3, 6, 7), 3.0, 1.0),
    # One channel: no per-channel scale to give; x reads an int16 copy of twice its values.
    "one_channel_add": ScaledSum((2, 3, 1), 3.0, 2.0, zero_point=0),
}
EXACT = {
    "equal_scales": ScaledSum((2, 3, 8), 3.0, 3.0),
    # The flow's form: the larger operand at the U55's unscaled 2^19.
    "unscaled_beside_fraction": ScaledSum((2, 3, 8), 2.0**19, 0.7 * 2.0**18),
}


def scaled_sum_graph(case: ScaledSum, *, kept_apart: bool) -> TosaGraph:
    graph = TosaGraph()
    x = graph.add_input("x", case.shape, INT8)
    y = graph.add_input("y", case.shape, INT8)
    wide_x = rescale(graph, x, name="x_int32", scales=[case.x_scale], output_dtype=INT32, input_zp=case.zero_point,
                     output_zp=0)  # fmt: skip
    wide_y = rescale(graph, y, name="y_int32", scales=[case.y_scale], output_dtype=INT32, input_zp=case.zero_point,
                     output_zp=0)  # fmt: skip
    result = int32_elementwise(graph, case.reader, wide_x, wide_y, name="result")
    # Keeps the outputs' int8 range busy, so a departure shows in most of them.
    out_scale = 1 / (4 * max(case.x_scale, case.y_scale))
    graph.mark_output(rescale(graph, result, name="out", scales=[out_scale], output_dtype=INT8, input_zp=0, output_zp=0))
    if kept_apart:
        keep_unequal_add_sub_scales_apart(graph)
    return graph


def mismatches(case: ScaledSum, *, kept_apart: bool) -> int:
    graph = scaled_sum_graph(case, kept_apart=kept_apart)
    ios = (TensorIo("x", case.shape, INT8), TensorIo("y", case.shape, INT8))
    tosa = TosaArtifact(graph.serialize(), ios, (TensorIo("out", case.shape, INT8),), "TOSA-1.0+INT")
    rng = np.random.default_rng(11)
    inputs = [rng.integers(-128, 128, io.shape).astype(np.int8) for io in tosa.inputs]
    stream = compile_tosa(tosa.flatbuffer, EthosUCompileSpec(TARGET)).bin_stream
    (comparison,) = compare_delegate(tosa, stream, inputs, _model())
    return comparison.mismatches


_MODELS: dict[str, NpuModel] = {}


def _model() -> NpuModel:
    return _MODELS.setdefault(TARGET, NpuModel(TARGET))


@pytest.mark.parametrize("name", DEPARTING)
def test_unequal_narrow_scales_are_kept_apart_and_exact(name: str) -> None:
    case = DEPARTING[name]
    assert scaled_sum_graph(case, kept_apart=True).serialize() != scaled_sum_graph(case, kept_apart=False).serialize()
    assert mismatches(case, kept_apart=True) == 0


@pytest.mark.parametrize("name", DEPARTING)
def test_vela_still_departs_on_unequal_narrow_scales(name: str) -> None:
    assert mismatches(DEPARTING[name], kept_apart=False) != 0, (
        f"Vela's {TARGET} stream for {name} is exact now: arm/tosa/unequal_add_sub_scales.py may go"
    )


@pytest.mark.parametrize("name", EXACT)
def test_equal_or_unscaled_operand_scales_are_left_alone_and_exact(name: str) -> None:
    case = EXACT[name]
    assert operator_names(scaled_sum_graph(case, kept_apart=True)) == operator_names(
        scaled_sum_graph(case, kept_apart=False)
    )
    assert mismatches(case, kept_apart=True) == 0
