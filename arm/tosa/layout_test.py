"""cancel_round_trips propagates NHWC through layout-agnostic ops and keeps the graph's edges in PyTorch layout."""

import numpy as np
import pytest
import torch
import tosa_reference_model
import tosa_serializer as ts
from tosa.Op import Op
from tosa.TosaGraph import TosaGraph as FlatbufferGraph

from arm.flow import resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.ops.common.axis_reduction import reduce
from arm.tosa.graph import TosaGraph, TosaValue, concat, pad_tensor, reshape
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.layout import SHORT_ROWS, cancel_round_trips, to_nchw, to_nhwc, transpose
from arm.tosa.rescale import rescale

_OP_NAMES = {value: name for name, value in vars(Op).items() if not name.startswith("_")}


def _clamp(graph: TosaGraph, value: TosaValue, name: str) -> TosaValue:
    output = graph.add_tensor(name, value.shape, value.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.ClampAttribute([0], [127], ts.NanPropagationMode.PROPAGATE)
    graph.add_op(ts.Op.CLAMP, [value], [output], attribute)
    return output


def _nhwc_bound(graph: TosaGraph, value: TosaValue, name: str) -> TosaValue:
    """Stands for a convolution: an op the pass must not move (a 1x1 max pool, which is the identity)."""
    output = graph.add_tensor(name, value.shape, value.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.MaxPool2dAttribute([1, 1], [1, 1], [0, 0, 0, 0], ts.NanPropagationMode.PROPAGATE)
    graph.add_op(ts.Op.MAX_POOL2D, [value], [output], attribute)
    return output


def _conv(graph: TosaGraph, nchw: TosaValue, name: str) -> TosaValue:
    """A convolution lowered on its own: NCHW -> NHWC, the op, back to NCHW."""
    return to_nchw(graph, _nhwc_bound(graph, to_nhwc(graph, nchw), f"{name}_nhwc"), name=name)


def _add(graph: TosaGraph, lhs: TosaValue, rhs: TosaValue, name: str) -> TosaValue:
    output = graph.add_tensor(name, lhs.shape, lhs.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.AddAttribute()
    graph.add_op(ts.Op.ADD, [lhs, rhs], [output], attribute)
    return output


def test_round_trip_through_an_activation_is_removed() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 4, 5, 6), np.float32)
    relu = _clamp(graph, _conv(graph, x, "first"), "relu")
    graph.mark_output(_conv(graph, relu, "y"))

    cancel_round_trips(graph)

    assert operator_names(graph) == ["TRANSPOSE", "MAX_POOL2D", "CLAMP", "MAX_POOL2D", "TRANSPOSE"]
    assert graph.tensors["y"].shape == (1, 4, 5, 6)


def test_residual_add_runs_in_nhwc() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 4, 5, 6), np.float32)
    first = _conv(graph, x, "first")
    residual = _add(graph, first, _conv(graph, first, "second"), "residual")
    graph.mark_output(_conv(graph, residual, "y"))
    data = np.random.default_rng(0).standard_normal((1, 4, 5, 6)).astype(np.float32)
    expected = run_on_reference_model(graph, data)

    cancel_round_trips(graph)

    assert operator_names(graph).count("TRANSPOSE") == 2
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected[0])


def test_concat_and_pad_axes_follow_the_layout() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 4, 5, 6), np.float32)
    joined = concat(graph, [_conv(graph, x, "a"), _conv(graph, x, "b")], axis=1, name="joined")
    padded = pad_tensor(graph, joined, [(0, 0), (1, 0), (2, 1), (0, 3)], np.float32(0.5), name="padded")
    graph.mark_output(_conv(graph, padded, "y"))
    data = np.random.default_rng(1).standard_normal((1, 4, 5, 6)).astype(np.float32)
    expected = run_on_reference_model(graph, data)

    cancel_round_trips(graph)

    assert operator_names(graph).count("TRANSPOSE") == 2
    concat_op = next(operator for operator in graph.operators if operator.op == ts.Op.CONCAT)
    assert concat_op.axis == 3
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected[0])


def test_reduction_axis_follows_the_layout() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 4, 5, 6), np.float32)
    summed = reduce(graph, ts.Op.REDUCE_SUM, _conv(graph, x, "a"), 1, name="summed")
    graph.mark_output(_conv(graph, summed, "y"))
    data = np.random.default_rng(3).standard_normal((1, 4, 5, 6)).astype(np.float32)
    expected = run_on_reference_model(graph, data)

    cancel_round_trips(graph)

    assert operator_names(graph).count("TRANSPOSE") == 2
    assert next(operator.axis for operator in graph.operators if operator.op == ts.Op.REDUCE_SUM) == 3
    np.testing.assert_allclose(run_on_reference_model(graph, data)[0], expected[0], rtol=1e-6)


def test_constant_operands_are_permuted() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 3, 2, 2), np.float32)
    offset = graph.add_const("offset", np.arange(3, dtype=np.float32).reshape(1, 3, 1, 1))
    graph.mark_output(_conv(graph, _add(graph, _conv(graph, x, "a"), offset, "shifted"), "y"))
    data = np.random.default_rng(2).standard_normal((1, 3, 2, 2)).astype(np.float32)
    expected = run_on_reference_model(graph, data)

    cancel_round_trips(graph)

    assert operator_names(graph).count("TRANSPOSE") == 2
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected[0])


def test_a_computed_one_element_operand_lets_the_transposes_meet() -> None:
    # MobileOne's residual ADD of a scalar computed from a constant (a RESCALE of it in the INT
    # profile; a graph input here): one element reads the same in every layout, so the ADD runs in NHWC between the
    # convolutions instead of keeping a transpose after each (Vela fuses those into the U85's writes).
    graph = TosaGraph()
    x = graph.add_input("x", (1, 3, 2, 2), np.float32)
    scalar = graph.add_input("scalar", (1, 1, 1, 1), np.float32)  # computed: no constant to permute
    graph.mark_output(_conv(graph, _add(graph, _conv(graph, x, "a"), scalar, "shifted"), "y"))
    data = np.random.default_rng(5).standard_normal((1, 3, 2, 2)).astype(np.float32), np.full((1, 1, 1, 1), 0.5, np.float32)
    expected = run_on_reference_model(graph, *data)

    cancel_round_trips(graph)

    assert operator_names(graph).count("TRANSPOSE") == 2
    np.testing.assert_array_equal(run_on_reference_model(graph, *data)[0], expected[0])


def test_a_transpose_that_meets_no_inverse_stays_above_a_widening_rescale() -> None:
    # Attention's head transpose before the rotary MUL: sinking takes it below the RESCALE to int32,
    # nothing cancels it there, so it goes back to transposing the int8 source.
    graph = TosaGraph()
    x = graph.add_input("x", (1, 4, 3, 5), np.int8)
    heads_first = transpose(graph, x, (0, 2, 1, 3), name="heads_first")
    graph.mark_output(rescale(graph, heads_first, name="y", scales=[2.0**20], output_dtype=np.dtype(np.int32),
                              input_zp=-3, output_zp=0))  # fmt: skip
    data = np.random.default_rng(4).integers(-128, 128, size=(1, 4, 3, 5)).astype(np.int8)
    expected = run_on_reference_model(graph, data)

    cancel_round_trips(graph)

    assert operator_names(graph) == ["TRANSPOSE", "RESCALE"]
    assert graph.tensors[graph.operators[0].inputs[0]].dtype == np.int8
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected[0])


def _pointwise_conv(graph: TosaGraph, x: TosaValue, out_channels: int, name: str) -> TosaValue:
    """A 1x1 CONV2D of NHWC int8 ``x`` and its output RESCALE back to int8."""
    weights = np.random.default_rng(6).integers(-127, 128, size=(out_channels, 1, 1, x.shape[-1])).astype(np.int8)
    summed = graph.add_tensor(f"{name}_int32", (*x.shape[:-1], out_channels), np.int32)
    attribute = ts.TosaSerializerAttribute()
    attribute.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
    operands = [
        x,
        graph.add_const(f"{name}_weights", weights),
        graph.add_const(f"{name}_bias", np.zeros((out_channels,), dtype=np.int32)),
        graph.add_scalar_const(f"{name}_input_zp", 0, np.int8),
        graph.add_scalar_const(f"{name}_weight_zp", 0, np.int8),
    ]
    graph.add_op(ts.Op.CONV2D, operands, [summed], attribute)
    return rescale(graph, summed, name=name, scales=[2.0**-10], output_dtype=np.dtype(np.int8), input_zp=0,
                   output_zp=0)  # fmt: skip


@pytest.mark.parametrize("fused", [False, True])
@pytest.mark.parametrize("activation", [False, True])
@pytest.mark.parametrize("width", [2, 8])
def test_a_transpose_after_a_convolution_stays_below_the_widening_where_it_would_fuse(
    fused: bool, activation: bool, width: int
) -> None:
    # ConvNeXt's pointwise convolution, back to NCHW for its layer scale: on the U85 Vela writes a
    # convolution's output transposed when a TRANSPOSE follows it, 100 times slower; elsewhere the int8
    # transpose is the cheaper one. A ReLU's CLAMP between them fuses too (HGNetV2; the CLAMP of an
    # int8 ReLU onto a grid starting at zero is dropped later, leaving the transpose after the RESCALE).
    # Rows shorter than SHORT_ROWS (width 2) are hoisted anyway: transpose_collapsing runs that int8
    # transpose on its own.
    graph = TosaGraph()
    x = graph.add_input("x", (1, 2, width, 16), np.int8)
    convolution = _pointwise_conv(graph, x, 8, "conv")
    if activation:
        convolution = _clamp(graph, convolution, "relu")
    nchw = transpose(graph, convolution, (0, 3, 1, 2), name="nchw")
    graph.mark_output(rescale(graph, nchw, name="y", scales=[2.0**20], output_dtype=np.dtype(np.int32),
                              input_zp=0, output_zp=0))  # fmt: skip
    data = np.random.default_rng(7).integers(-128, 128, size=(1, 2, width, 16)).astype(np.int8)
    expected = run_on_reference_model(graph, data)

    cancel_round_trips(graph, transposes_fuse_into_convolutions=fused)

    stays_below = fused and width >= SHORT_ROWS
    after_convolution = ["RESCALE", "TRANSPOSE"] if stays_below else ["TRANSPOSE", "RESCALE"]
    assert operator_names(graph) == ["CONV2D", "RESCALE", *(["CLAMP"] if activation else []), *after_convolution]
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected[0])


def test_equal_reshapes_of_one_tensor_become_one() -> None:
    # Three projections of the same normalized tokens each view them as [1, L, 1, C]; Vela copies all
    # but one of three equal reshapes, so their readers share one. A reshape to another shape stays.
    graph = TosaGraph()
    x = graph.add_input("x", (1, 6, 8), np.int8)
    relu = _clamp(graph, x, "relu")
    rows = [reshape(graph, relu, (1, 6, 1, 8), name=f"rows{index}") for index in range(3)]
    other = reshape(graph, relu, (1, 3, 2, 8), name="other")
    for index, value in enumerate([*rows, other]):
        graph.mark_output(_nhwc_bound(graph, value, f"y{index}"))
    data = np.random.default_rng(5).integers(-128, 128, size=(1, 6, 8)).astype(np.int8)
    expected = run_on_reference_model(graph, data)

    cancel_round_trips(graph)

    assert operator_names(graph).count("RESHAPE") == 2
    assert [operator.inputs[0] for operator in graph.operators if operator.op == ts.Op.MAX_POOL2D] == [
        "rows0", "rows0", "rows0", "other"
    ]
    for actual, wanted in zip(run_on_reference_model(graph, data), expected):
        np.testing.assert_array_equal(actual, wanted)


def test_graph_outputs_keep_their_layout() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (1, 4, 5, 6), np.float32)
    relu = _clamp(graph, _conv(graph, x, "first"), "relu")
    graph.mark_output(relu)
    graph.mark_output(_conv(graph, relu, "y"))

    cancel_round_trips(graph)

    assert graph.tensors["relu"].shape == (1, 4, 5, 6)
    assert graph.tensors["y"].shape == (1, 4, 5, 6)
    assert operator_names(graph).count("TRANSPOSE") == 3  # in; out to relu; out to y


def test_serialization_is_deterministic() -> None:
    def build() -> bytes:
        graph = TosaGraph()
        x = graph.add_input("x", (1, 4, 5, 6), np.int8)
        graph.mark_output(_conv(graph, _clamp(graph, _conv(graph, x, "c"), "relu"), "y"))
        cancel_round_trips(graph)
        return graph.serialize()

    assert build() == build()


class _ResidualNet(torch.nn.Module):
    """Convolutions, a residual add, a concat, a pad and a pool, then a flatten+linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.body = torch.nn.Conv2d(8, 8, 3, padding=1)
        self.branch = torch.nn.Conv2d(8, 4, 1)
        self.head = torch.nn.Linear(12 * 5 * 5, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.relu(self.stem(x))
        x = x + torch.relu(self.body(x))
        x = torch.cat([x, self.branch(x)], dim=1)
        x = torch.nn.functional.max_pool2d(torch.nn.functional.pad(x, (1, 1, 1, 1)), 2)
        return self.head(x.flatten(1))


@pytest.mark.parametrize("target", ["tosa-FP", "tosa-INT"])
def test_network_keeps_one_transpose_at_the_input_and_one_before_the_flatten(target: str) -> None:
    torch.set_num_threads(1)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = _ResidualNet().eval()
        x = torch.randn(1, 3, 8, 8)
    result = run_flow(ModelSpec(model, (x,), [(x,)]), resolve_target(target))
    (tosa,) = result.artifacts.tosa
    block = FlatbufferGraph.GetRootAs(tosa.flatbuffer, 0).Regions(0).Blocks(0)
    ops = [_OP_NAMES[block.Operators(i).Op()] for i in range(block.OperatorsLength())]

    transposes = [index for index, op in enumerate(ops) if op == "TRANSPOSE"]
    assert len(transposes) == 2, ops
    assert transposes[0] == 0, ops  # NCHW input -> NHWC
    after_pool = ops.index("MAX_POOL2D") + 1
    assert transposes[1] == after_pool and ops[after_pool + 1 :].count("RESHAPE") >= 1, ops  # before the flatten
    outputs, status = tosa_reference_model.run(tosa.flatbuffer, [io.quantize(x.numpy()) for io in tosa.inputs])
    assert status == tosa_reference_model.GraphStatus.TOSA_VALID
    (io,) = tosa.outputs
    got = io.dequantize(np.asarray(outputs[0]))
    tolerance = 1e-5 if io.scale is None else 4 * io.scale
    np.testing.assert_allclose(got, model(x).detach().numpy(), atol=tolerance)
