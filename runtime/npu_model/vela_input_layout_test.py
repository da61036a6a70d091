"""The U85's convolutions that read a channels-first tensor (arm/tosa/transpose_collapsing.py) on the NPU model,
bit for bit against the TOSA reference model.

``change_input_layouts``: the identity convolution for an image input's NCHW -> NHWC at the image sizes the pass
takes: the zoo's (YOLOv8n 160x160, EfficientNet-B0 224x224), a 16-channel map, and the largest it allows
(1024x1024 positions); each graph is the input's layout change and a RESCALE reading it (a zero point and a half
scale, so every code moved matters). ``pointwise_convolutions_of_channels_first``: YOLOv8n's DFL head (a
requantizing RESCALE of [1, 16, 4, 525], the transpose to NHWC, a 1x1 convolution) with the transpose folded in.
"""

from __future__ import annotations

import numpy as np
import pytest
import tosa_serializer as ts

from arm.artifacts import TensorIo, TosaArtifact
from arm.compile_spec import EthosUCompileSpec
from arm.ethosu.npu_model.binding import NpuModel
from arm.ethosu.npu_model.oracle import compare_delegate
from arm.ethosu.vela import compile_tosa
from arm.tosa.graph import TosaGraph
from arm.tosa.graph_testing import operator_names
from arm.tosa.layout import transpose
from arm.tosa.rescale import rescale
from arm.tosa.transpose_collapsing import change_input_layouts, pointwise_convolutions_of_channels_first

INT8 = np.dtype(np.int8)
TARGET = "ethos-u85-256"


def input_layout_change(shape: tuple[int, int, int, int], *, convolved: bool) -> TosaArtifact:
    graph = TosaGraph()
    x = graph.add_input("x", shape, INT8)
    nhwc = transpose(graph, x, (0, 2, 3, 1), name="x_nhwc")
    graph.mark_output(rescale(graph, nhwc, name="out", scales=[0.5], output_dtype=INT8, input_zp=0, output_zp=3))
    if convolved:
        change_input_layouts(graph, by_convolution=True)
        assert operator_names(graph).count("CONV2D") == 1 and "TRANSPOSE" not in operator_names(graph)
    batch, channels, height, width = shape
    outputs = (TensorIo("out", (batch, height, width, channels), INT8),)
    return TosaArtifact(graph.serialize(), (TensorIo("x", shape, INT8),), outputs, "TOSA-1.0+INT")


_MODELS: dict[str, NpuModel] = {}


def _model() -> NpuModel:
    return _MODELS.setdefault(TARGET, NpuModel(TARGET))


@pytest.mark.parametrize(
    "shape",
    [(1, 3, 160, 160), (1, 3, 224, 224), (1, 16, 64, 64), (1, 3, 1024, 1024)],
    ids=["yolov8n_160", "efficientnet_224", "16_channels", "largest"],
)
def test_the_identity_convolution_moves_every_code_on_the_npu_model(shape: tuple[int, int, int, int]) -> None:
    tosa = input_layout_change(shape, convolved=True)
    inputs = [np.random.default_rng(11).integers(-128, 128, shape).astype(np.int8)]
    (comparison,) = compare_delegate(tosa, compile_tosa(tosa.flatbuffer, EthosUCompileSpec(TARGET)).bin_stream, inputs, _model())
    assert comparison.mismatches == 0, comparison.describe()



def dfl_head(*, folded: bool) -> TosaArtifact:
    shape, bins = (1, 16, 4, 525), 16
    graph = TosaGraph()
    x = graph.add_input("x", shape, INT8)
    requantized = rescale(graph, x, name="r", scales=[0.7], output_dtype=INT8, input_zp=-128, output_zp=-128)
    nhwc = transpose(graph, requantized, (0, 2, 3, 1), name="r_nhwc")
    summed = graph.add_tensor("dfl_int32", (1, 4, 525, 1), np.dtype(np.int32))
    attribute = ts.TosaSerializerAttribute()
    attribute.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
    operands = [
        nhwc,
        graph.add_const("dfl_weights", np.arange(bins, dtype=np.int8).reshape(1, 1, 1, bins) * 8),
        graph.add_const("dfl_bias", np.array([-300], dtype=np.int32)),
        graph.add_scalar_const("dfl_input_zp", -128, INT8),
        graph.add_scalar_const("dfl_weight_zp", 0, INT8),
    ]
    graph.add_op(ts.Op.CONV2D, operands, [summed], attribute)
    graph.mark_output(rescale(graph, summed, name="out", scales=[2.0**-9], output_dtype=INT8, input_zp=0, output_zp=0))
    if folded:
        pointwise_convolutions_of_channels_first(graph)
        assert "TRANSPOSE" not in operator_names(graph)
    return TosaArtifact(graph.serialize(), (TensorIo("x", shape, INT8),), (TensorIo("out", (1, 4, 525, 1), INT8),), "TOSA-1.0+INT")


def test_the_dfl_heads_folded_transpose_keeps_every_code_on_the_npu_model() -> None:
    inputs = [np.random.default_rng(12).integers(-128, 128, (1, 16, 4, 525)).astype(np.int8)]
    outputs = {}
    for folded in (False, True):
        tosa = dfl_head(folded=folded)
        (comparison,) = compare_delegate(tosa, compile_tosa(tosa.flatbuffer, EthosUCompileSpec(TARGET)).bin_stream, inputs, _model())
        assert comparison.mismatches == 0, comparison.describe()
        outputs[folded] = comparison.npu
    np.testing.assert_array_equal(outputs[True], outputs[False])
