"""rotate_halves_in_constants: Llama's ``x * cos + rotate_half(x) * sin`` as lowered (negation TABLE, CONCAT,
TRANSPOSE, MULs, ADD) loses its TABLE, CONCAT copy and second TRANSPOSE and gives the same integers
away from the grids' ends; a rotate_half whose product something else reads stays."""

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaValue, concat, int32_elementwise, slice_tensor
from arm.tosa.graph_testing import operator_names, run_on_reference_model
from arm.tosa.layout import transpose
from arm.tosa.rescale import rescale
from arm.tosa.rotary_halves import rotate_halves_in_constants

_SHAPE = (1, 4, 2, 8)  # tokens, heads, head dimension (heads-last, as the projection writes it)
_HEADS_FIRST = (0, 2, 1, 3)
_ZERO_POINT = -5
_RNG = np.random.default_rng(0)
_COS = _RNG.integers(-128, 128, (1, 1, 4, 8)).astype(np.int8)
_SIN = _RNG.integers(-128, 128, (1, 1, 4, 8)).astype(np.int8)


def _rescaled(graph: TosaGraph, value: TosaValue, name: str, scale: float, dtype, izp: int, ozp: int) -> TosaValue:
    return rescale(graph, value, name=name, scales=[scale], output_dtype=np.dtype(dtype), input_zp=izp, output_zp=ozp)


def _times_constant(graph: TosaGraph, x: TosaValue, table: np.ndarray, zero_point: int, name: str) -> TosaValue:
    """int8 x times an int8 constant on its own grid, back onto an int8 grid (arm/ops/mul.py's form)."""
    constant = graph.add_const(f"{name}_table", table)
    product = int32_elementwise(graph, ts.Op.MUL, _rescaled(graph, x, f"{name}_lhs", 1.0, np.int32, zero_point, 0),
                                _rescaled(graph, constant, f"{name}_rhs", 1.0, np.int32, 0, 0), name=f"{name}_int32")  # fmt: skip
    return _rescaled(graph, product, name, 1.0 / 300, np.int8, 0, -3)


def _rotary(graph: TosaGraph, x: TosaValue, *, product_read_elsewhere: bool = False) -> TosaValue:
    first = slice_tensor(graph, x, (0, 0, 0, 0), (*_SHAPE[:-1], 4), name="x1")
    second = slice_tensor(graph, x, (0, 0, 0, 4), (*_SHAPE[:-1], 4), name="x2")
    entries = np.clip(2 * _ZERO_POINT - np.arange(-128, 128), -128, 127).astype(np.int8)
    negated = graph.add_tensor("neg", second.shape, np.int8)
    attribute = ts.TosaSerializerAttribute()
    attribute.TableAttribute()
    graph.add_op(ts.Op.TABLE, [second, graph.add_const("neg_table", entries)], [negated], attribute, elementwise_unary=True)
    rotated = transpose(graph, concat(graph, [negated, first], 3, name="rotated"), _HEADS_FIRST, name="rotated_t")
    heads_first = transpose(graph, x, _HEADS_FIRST, name="x_t")
    a = _times_constant(graph, heads_first, _COS, _ZERO_POINT, "a")
    b = _times_constant(graph, rotated, _SIN, _ZERO_POINT, "b")
    if product_read_elsewhere:
        graph.mark_output(b)
    total = int32_elementwise(graph, ts.Op.ADD, _rescaled(graph, a, "a32", 2.0**20, np.int32, -3, 0),
                              _rescaled(graph, b, "b32", 2.0**20, np.int32, -3, 0), name="sum32")  # fmt: skip
    return _rescaled(graph, total, "out", 2.0**-20 * 0.8, np.int8, 0, 2)


def test_rotate_half_loses_its_table_copy_and_transpose_and_keeps_its_integers() -> None:
    graph = TosaGraph()
    graph.mark_output(_rotary(graph, graph.add_input("x", _SHAPE, np.int8)))
    # Away from the negation table's clipped end (x2 above 2 * -5 + 128 = 118).
    data = _RNG.integers(-128, 110, _SHAPE).astype(np.int8)
    expected = run_on_reference_model(graph, data)[0]

    rotate_halves_in_constants(graph)

    ops = operator_names(graph)
    assert "TABLE" not in ops and ops.count("TRANSPOSE") == 1 and ops.count("SUB") == 1
    assert graph.outputs == ["out"]
    np.testing.assert_array_equal(run_on_reference_model(graph, data)[0], expected)


def test_a_product_read_elsewhere_keeps_the_graph() -> None:
    graph = TosaGraph()
    graph.mark_output(_rotary(graph, graph.add_input("x", _SHAPE, np.int8), product_read_elsewhere=True))
    before = operator_names(graph)

    rotate_halves_in_constants(graph)

    assert operator_names(graph) == before
