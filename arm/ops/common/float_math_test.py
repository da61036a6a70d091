"""The FP formulas of the float-function ops, on dense inputs across their whole domains.

The op cases check each op through the flow on a few hundred random values; here each formula runs
alone in the TOSA reference model on thousands of values, including the regions the op cases' int8
grids cannot resolve (erfinv's tail polynomial near +-1, atan far from 0, round's exact halves and
magnitudes past 2^23), against torch in float32.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import pytest
import torch
import tosa_reference_model

from arm.ops.acos import acos
from arm.ops.asin import asin
from arm.ops.asinh import asinh
from arm.ops.common.float_math import FloatMath
from arm.ops.common.floored_division import floored_quotient, floored_remainder
from arm.ops.erfinv import erfinv
from arm.ops.round import round_half_to_even
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.specification import TosaSpecification

Formula = Callable[[FloatMath, TosaValue], TosaValue]

# Formulas of a few float32 operators each: a few ulps of the result, or of 1 near 0.
ATOL = 2e-6
RTOL = 2e-6


def run_formula(formula: Callable[..., TosaValue], *inputs: np.ndarray) -> np.ndarray:
    """``formula`` on float32 ``inputs`` (one TOSA input each), evaluated by the TOSA reference model."""
    graph = TosaGraph()
    ctx = LoweringContext(graph, TosaSpecification("FP"), program=None, is_fused_activation=lambda node: False)
    values = [graph.add_input(f"x{index}", data.shape, np.float32) for index, data in enumerate(inputs)]
    graph.mark_output(formula(FloatMath(ctx, "f", len(inputs[0].shape)), *values))
    outputs, status = tosa_reference_model.run(graph.serialize(), [data.astype(np.float32) for data in inputs])
    assert status == tosa_reference_model.GraphStatus.TOSA_VALID, status
    return np.asarray(outputs[0])


def dense(low: float, high: float, count: int = 4001) -> np.ndarray:
    return np.linspace(low, high, count, dtype=np.float32)


CASES: dict[str, tuple[Formula, Callable[[torch.Tensor], torch.Tensor], np.ndarray]] = {
    # Both polynomials: |x| > 0.9966 is where w = -log(1 - x^2) passes 5.
    "erfinv": (erfinv, torch.erfinv, np.concatenate([dense(-0.9999, 0.9999), dense(0.99, 0.99999, 1001)])),
    "atan": (lambda m, x: m.atan(x), torch.atan, np.concatenate([dense(-3, 3), dense(-1e4, 1e4)])),
    "asin": (asin, torch.asin, dense(-1, 1)),
    "acos": (acos, torch.acos, dense(-1, 1)),
    "asinh": (asinh, torch.asinh, dense(-1e3, 1e3)),
    "round": (
        round_half_to_even,
        torch.round,
        np.concatenate([np.arange(-8, 8.5, 0.5, dtype=np.float32), dense(-1e7, 1e7), dense(-3e7, 3e7)]),
    ),
}


@pytest.mark.parametrize("name", list(CASES))
def test_formula_matches_torch(name: str) -> None:
    formula, function, x = CASES[name]
    got = run_formula(formula, x)
    want = function(torch.from_numpy(x)).numpy()
    np.testing.assert_allclose(got, want, atol=ATOL, rtol=RTOL)


def test_floored_division_at_exact_multiples() -> None:
    """Integer multiples of divisors with inexact float32 reciprocals give their exact quotient."""
    divisors = np.repeat(np.arange(1, 100, dtype=np.float32), 41) * np.tile([1, -1], 99 * 41 // 2 + 1)[: 99 * 41]
    dividends = np.tile(np.arange(-20, 21, dtype=np.float32), 99) * divisors
    a, b = torch.from_numpy(dividends), torch.from_numpy(divisors)
    np.testing.assert_array_equal(run_formula(floored_quotient, dividends, divisors), torch.floor_divide(a, b).numpy())
    np.testing.assert_array_equal(run_formula(floored_remainder, dividends, divisors), torch.remainder(a, b).numpy())
