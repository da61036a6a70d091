"""The U85's identity convolution for an image input's NCHW -> NHWC (arm/tosa/transpose_collapsing.py
``change_input_layouts``) on the NPU model, bit for bit against the TOSA reference model, at the image sizes
the pass takes: the zoo's (YOLOv8n 160x160, EfficientNet-B0 224x224), a 16-channel map, and the largest it
allows (1024x1024 positions). Each graph is the input's layout change and a RESCALE reading it (a zero point
and a half scale, so every code moved matters), compiled by Vela 5.2.0 before and after the pass.
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
from arm.tosa.transpose_collapsing import change_input_layouts

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

