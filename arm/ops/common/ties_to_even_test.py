"""ties_to_even's exact form on the TOSA reference model, for every sum an average of N int8 codes can
have, against exact integer arithmetic rounded half to even (what the quantized torch model does)."""

from __future__ import annotations

import numpy as np
import pytest

from arm.ops.common.ties_to_even import average_ties_to_even, global_average_by_convolutions, rounds_ties_to_even
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaGraph
from arm.tosa.graph_testing import run_on_reference_model
from arm.tosa.quantization import QParams
from arm.tosa.specification import TosaSpecification

_INT8 = np.dtype(np.int8)


def _round_half_to_even(numerators: np.ndarray, denominator: int) -> np.ndarray:
    """numerators / denominator rounded half to even, in exact integer arithmetic."""
    floor, rest = np.divmod(numerators, denominator)
    above_half = 2 * rest > denominator
    tie_to_odd_floor = (2 * rest == denominator) & (floor % 2 == 1)
    return floor + (above_half | tie_to_odd_floor)


def _expected(sums: np.ndarray, count: int, zero_point: int) -> np.ndarray:
    """The quantized model's codes: sums are of (code + 128), its mean is of (code - zero_point)."""
    mean_codes = _round_half_to_even(sums.astype(np.int64) - count * (zero_point + 128), count) + zero_point
    return np.clip(mean_codes, -128, 127)


# Counts: the smallest, a power of two, mha_sequence's 40 tokens, a count that is neither; zero points of
# both parities (the form differs by parity) at both ends and in the middle.
@pytest.mark.parametrize("count", [2, 4, 40, 98])
@pytest.mark.parametrize("zero_point", [-128, -1, 0, 127])
def test_every_sum_rounds_as_the_quantized_model(count: int, zero_point: int) -> None:
    graph = TosaGraph()
    ctx = LoweringContext(graph, TosaSpecification.from_string("TOSA-1.0+INT"), None, lambda node: False)
    sums = np.arange(0, 255 * count + 1, dtype=np.int32)
    value = graph.add_input("sums", sums.shape, np.dtype(np.int32))
    grid = QParams((0.05,), zero_point, _INT8)
    graph.mark_output(average_ties_to_even(ctx, value, count, grid, name="average"))
    (got,) = run_on_reference_model(graph, sums)
    expected = _expected(sums, count, zero_point)
    wrong = np.flatnonzero(got != expected)
    assert wrong.size == 0, f"sums {sums[wrong][:5]}: got {got[wrong][:5]}, expected {expected[wrong][:5]}"


def test_only_even_counts_on_the_input_grid_take_the_exact_form() -> None:
    grid = QParams((0.05,), 3, _INT8)
    assert rounds_ties_to_even(40, grid, grid)
    assert not rounds_ties_to_even(49, grid, grid)  # an odd count has no half steps
    assert not rounds_ties_to_even(40, grid, QParams((0.03,), 3, _INT8))  # another grid: no exact ties
    assert not rounds_ties_to_even(40, QParams((0.05,), 0, np.dtype(np.int16)), QParams((0.05,), 0, np.dtype(np.int16)))


def _codes_summing_to_every_sum(count: int, zero_point: int) -> np.ndarray:
    """NHWC [1, count, 1, C] int8 codes whose column c sums (as codes plus 128) to c, for every sum
    0..255*count: the whole domain of the average, one channel per sum."""
    sums = np.arange(0, 255 * count + 1)
    full, rest = np.divmod(sums, 255)
    rows = np.arange(count)[:, None]
    widened = np.where(rows < full, 255, np.where(rows == full, rest, 0))  # [count, C], each in [0, 255]
    return (widened - 128).astype(np.int8).reshape(1, count, 1, sums.size)


# The column-sum form (global pools of up to 64 values on every INT target): RegNet's 2x2 head, a 4x4
# map, an odd-sided 2x3 one (1/2N not a power of two); zero points of both parities (the biases differ).
@pytest.mark.parametrize("height,width", [(2, 2), (4, 4), (2, 3)])  # 2x3: the form's arithmetic, on TOSA
@pytest.mark.parametrize("zero_point", [-1, 0])
def test_global_average_by_convolutions_rounds_every_sum_as_the_quantized_model(
    height: int, width: int, zero_point: int
) -> None:
    count = height * width
    graph = TosaGraph()
    ctx = LoweringContext(graph, TosaSpecification.from_string("TOSA-1.0+INT"), None, lambda node: False)
    codes = _codes_summing_to_every_sum(count, zero_point).reshape(1, height, width, -1)
    grid = QParams((0.05,), zero_point, _INT8)
    value = graph.add_input("codes", codes.shape, _INT8).with_qparams(grid)
    channels = codes.shape[-1]
    graph.mark_output(global_average_by_convolutions(ctx, value, grid, (1, channels, 1, 1), name="average"))
    (got,) = run_on_reference_model(graph, codes)
    sums = codes.astype(np.int64).sum(axis=(0, 1, 2)) + 128 * count
    expected = _expected(sums, count, zero_point)
    wrong = np.flatnonzero(got.reshape(-1) != expected)
    assert wrong.size == 0, f"sums {sums[wrong][:5]}: got {got.reshape(-1)[wrong][:5]}, expected {expected[wrong][:5]}"
