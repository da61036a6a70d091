"""run_few_rows_on_channels moves [R <= 16, 1] per-row chains onto the last axis and keeps the numbers."""

import numpy as np
import tosa_serializer as ts

from arm.ops.common.fixed_point import Int32Emitter, normalize_even
from arm.ops.common.table import table
from arm.tosa.rescale import rescale
from arm.tosa.few_rows_on_channels import few_rows_shape, run_few_rows_on_channels
from arm.tosa.graph import TosaGraph
from arm.tosa.graph_testing import operator_names, run_on_reference_model


def _row_statistics_graph(rows: int, width: int) -> TosaGraph:
    """A layer norm's shape of work: row sums [rows, 1], a per-row chain (a constant, normalize_even's
    CLZ and shifts, a MUL by a per-row tensor) and a full-size MUL and SUB broadcasting its results."""
    graph = TosaGraph()
    x = graph.add_input("x", (rows, width), np.int32)
    ints = Int32Emitter(graph, "t", rank=2)
    total = graph.add_tensor("total", (rows, 1), np.int32)
    attribute = ts.TosaSerializerAttribute()
    attribute.ReduceSumAttribute(1)
    graph.add_op(ts.Op.REDUCE_SUM, [x], [total], attribute, axis=1)
    denominator = ints.add(ints.mul(total, total, "square", shift=0), ints.constant(7, "eps"), "denominator")
    normalized = normalize_even(ints, denominator)
    multiplier = ints.shift_right_rounding_by(normalized.mantissa, 20, "multiplier")
    offset = ints.mul(total, normalized.half_shift, "offset", shift=0)
    graph.mark_output(ints.sub(ints.mul(x, multiplier, "scaled", shift=4), offset, "centered"))
    return graph


def _inputs(rows: int, width: int) -> np.ndarray:
    return np.random.default_rng(0).integers(-128, 128, (rows, width)).astype(np.int32)


def test_sixteen_rows_move_onto_the_last_axis_with_the_same_numbers() -> None:
    graph = _row_statistics_graph(16, 8)
    expected = run_on_reference_model(graph, _inputs(16, 8))

    rewritten = run_few_rows_on_channels(graph)

    per_row = [op for op in graph.operators if op.op != ts.Op.RESHAPE and graph.tensors[op.outputs[0]].shape[0] == 1]
    assert rewritten.operators == len(per_row) >= 8
    assert {graph.tensors[op.outputs[0]].shape for op in per_row} == {(1, 16)}
    # One reshape opens the chain (the row sums), one closes each result the full-size operators read.
    assert operator_names(graph).count("RESHAPE") == 3
    assert rewritten.copies == 0
    assert graph.tensors[graph.outputs[0]].shape == (16, 8)
    np.testing.assert_array_equal(run_on_reference_model(graph, _inputs(16, 8))[0], expected[0])


def test_a_chain_tensor_read_outside_too_is_counted_as_a_copy() -> None:
    graph = TosaGraph()
    x = graph.add_input("x", (4, 1), np.int32)
    ints = Int32Emitter(graph, "t", rank=2)
    doubled = ints.add(x, x, "doubled")
    graph.mark_output(ints.add(doubled, ints.constant(1, "one"), "next"))
    graph.mark_output(doubled)
    data = np.arange(4, dtype=np.int32).reshape(4, 1)
    expected = run_on_reference_model(graph, data)

    rewritten = run_few_rows_on_channels(graph)

    # x is a graph input and doubled a graph output that the chain also reads: both cost Vela a copy.
    assert rewritten == type(rewritten)(operators=2, copies=2)
    for got, want in zip(run_on_reference_model(graph, data), expected):
        np.testing.assert_array_equal(got, want)


def test_seventeen_rows_stay_where_vela_runs_them_as_channels() -> None:
    graph = _row_statistics_graph(17, 8)
    before = operator_names(graph)

    assert run_few_rows_on_channels(graph).operators == 0
    assert operator_names(graph) == before


def test_few_rows_shape() -> None:
    assert few_rows_shape((16, 1)) == (1, 16)
    assert few_rows_shape((2, 8, 1)) == (1, 1, 16)
    assert few_rows_shape((17, 1)) is None
    assert few_rows_shape((1, 1)) is None
    assert few_rows_shape((16, 2)) is None
    assert few_rows_shape((16,)) is None


def test_a_table_after_a_reduction_stays_its_activation_and_so_does_what_follows_it() -> None:
    """The rsqrt TABLE of an RMS norm reads its row mean straight from the reduction: Vela fuses it there."""
    graph = TosaGraph()
    x = graph.add_input("x", (16, 8), np.int8)
    total = graph.add_tensor("total", (16, 1), np.int8)
    attribute = ts.TosaSerializerAttribute()
    attribute.ReduceMaxAttribute(1, ts.NanPropagationMode.PROPAGATE)
    graph.add_op(ts.Op.REDUCE_MAX, [x], [total], attribute, axis=1)
    rsqrt = table(graph, total, (127 - np.arange(256)).astype(np.int8), name="rsqrt", qparams=None)
    # and the RESCALE after it, a head in its turn once the TABLE stays (on the U85 Vela's stream for the
    # two of them around a reshape departed from the reference model: rms_norm's case no_weight).
    graph.mark_output(rescale(graph, rsqrt, name="widened", scales=[1.0], output_dtype=np.dtype(np.int32),
                              input_zp=0, output_zp=0))  # fmt: skip
    before = operator_names(graph)

    assert run_few_rows_on_channels(graph).operators == 0
    assert operator_names(graph) == before
