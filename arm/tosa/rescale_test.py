"""The multiplier/shift split that every INT rescale relies on, and the common int32 grid of ADD/SUB."""

import math

import numpy as np
import pytest

from arm.tosa.graph import TosaGraph
from arm.tosa.graph_testing import run_on_reference_model
from arm.tosa.quantization import QParams
from arm.tosa.rescale import ADD_SUB_LEFT_SHIFT, multiplier_and_shift, to_int32


@pytest.mark.parametrize("scale", [1.0, 0.5, 0.75, 1e-3, 3.3e-6, 123.456, 2**-40, 0.9999999999])
def test_multiplier_and_shift_reproduce_the_scale(scale: float) -> None:
    multiplier, shift = multiplier_and_shift(scale)
    assert 0 <= multiplier < 2**31
    assert 2 <= shift <= 62
    assert math.isclose(multiplier * 2.0**-shift, scale, rel_tol=2**-30)


def test_tiny_scales_clamp_the_shift_instead_of_failing() -> None:
    # 2**-40 == 2**30 * 2**-70: the shift is capped at 62, the multiplier gives up 8 bits.
    assert multiplier_and_shift(2**-40) == (2**22, 62)


@pytest.mark.parametrize("scale", [0.0, -1.0, math.inf, 2.0**40])
def test_unrepresentable_scales_are_rejected(scale: float) -> None:
    with pytest.raises(ValueError):
        multiplier_and_shift(scale)


def _on_add_grid(zero_point: int, ratio: float) -> tuple[np.ndarray, np.ndarray]:
    """Every int8 code of an ADD operand whose step is ``ratio`` of the larger operand's, moved onto the
    ADD's common int32 grid by to_int32 on the TOSA reference model, beside its exact value there."""
    graph = TosaGraph()
    codes = graph.add_input("codes", (256,), np.int8).with_qparams(QParams((ratio,), zero_point, np.dtype(np.int8)))
    common_step = 2 / (1 << ADD_SUB_LEFT_SHIFT)  # the larger operand's step is 1
    graph.mark_output(to_int32(graph, codes, name="on_grid", scale=ratio / common_step))
    values = np.arange(-128, 128, dtype=np.int8)
    (on_grid,) = run_on_reference_model(graph, values)
    return on_grid.astype(np.int64), (values.astype(np.float64) - zero_point) * ratio / common_step


@pytest.mark.parametrize("zero_point", [-128, 0, 127])
def test_the_add_grid_holds_the_larger_operand_exactly_at_either_extreme_zero_point(zero_point: int) -> None:
    # TOSA's RESCALE requires |input| < 2**(shift - 1): 255 codes from the zero point need a shift of 9,
    # which leaves 2**21 as the largest exact power-of-two scale (one bit more and the reference model
    # calls the graph unpredictable).
    on_grid, exact = _on_add_grid(zero_point, 1.0)
    np.testing.assert_array_equal(on_grid, exact)
    assert np.abs(on_grid).max() <= 255 << (ADD_SUB_LEFT_SHIFT - 1)


@pytest.mark.parametrize("ratio", [0.7310585786, 0.5000001, 1e-3])
def test_the_add_grid_rounds_the_smaller_operand_by_half_a_grid_step_and_the_multipliers_rounding(ratio: float) -> None:
    # In steps of the larger operand: half a grid step, 2**-22 (TFLite's 20 bits: 2**-20), plus the 31-bit
    # multiplier's relative rounding (2**-31) of a value of up to 255 * ratio.
    on_grid, exact = _on_add_grid(-128, ratio)
    error = np.abs(on_grid - exact).max() * 2 / (1 << ADD_SUB_LEFT_SHIFT)
    assert error <= 2**-22 + 255 * ratio * 2**-31
