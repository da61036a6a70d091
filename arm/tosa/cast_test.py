"""Every CAST pair arm/tosa/cast.py declares runs in the TOSA reference model and converts as TOSA 1.0 says:
floats to integers round to nearest (ties to even) and saturate, integer narrowing keeps the low bits,
nonzero is true. The expected values come from numpy, independently of the graph."""

from __future__ import annotations

import numpy as np
import pytest
import tosa_reference_model

from arm.tosa.cast import FP_PROFILE_CASTS, INT_PROFILE_CASTS, cast
from arm.tosa.graph import BFLOAT16, FLOAT8_E4M3, TosaGraph
from arm.tosa.reference_io import reference_input, reference_output

# Ties of both parities, fractions of both signs, and values outside int8 (saturated or wrapped).
_REALS = np.array([-300.0, -2.5, -1.25, -0.5, 0.0, 0.5, 1.5, 2.5, 3.75, 200.0])
_INTEGERS = np.array([-300, -129, -128, -1, 0, 1, 127, 128, 255, 40000])


def _source(dtype: np.dtype) -> np.ndarray:
    if dtype == np.bool_:
        return (np.arange(10) % 3 == 0).astype(np.bool_)
    if np.issubdtype(dtype, np.integer):
        return _INTEGERS.astype(np.int64).astype(dtype)  # wraps into the type, as every input could be
    return _REALS.astype(dtype)


def _expected(values: np.ndarray, target: np.dtype) -> np.ndarray:
    if target == np.bool_:
        return values != 0
    if np.issubdtype(target, np.integer):
        if values.dtype == np.bool_ or np.issubdtype(values.dtype, np.integer):
            return values.astype(np.int64).astype(target)  # keep the low bits
        info = np.iinfo(target)
        return np.clip(np.rint(values.astype(np.float64)), info.min, info.max).astype(target)
    return values.astype(np.float64).astype(target)


def _run_cast(values: np.ndarray, target: np.dtype) -> np.ndarray:
    graph = TosaGraph()
    x = graph.add_input("x", values.shape, values.dtype)
    graph.mark_output(cast(graph, x, target, name="y"))
    (output,), status = tosa_reference_model.run(graph.serialize(), [reference_input(values)])
    assert status == tosa_reference_model.GraphStatus.TOSA_VALID
    return reference_output(output, target)


@pytest.mark.parametrize(
    ("source", "target"),
    [pytest.param(s, t, id=f"{s}_to_{t}") for s, t in [*FP_PROFILE_CASTS, *INT_PROFILE_CASTS]],
)
def test_declared_cast_runs_and_converts_as_tosa_defines(source: np.dtype, target: np.dtype) -> None:
    values = _source(source)
    got = _run_cast(values, target)
    want = _expected(values, target)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got.astype(np.float64), want.astype(np.float64))


def test_tables_name_the_extensions_of_their_types() -> None:
    assert all(("bf16" in ext) == (BFLOAT16 in pair) for pair, ext in FP_PROFILE_CASTS.items())
    assert ("bf16", "fp8e4m3") == FP_PROFILE_CASTS[(BFLOAT16, FLOAT8_E4M3)]
    assert all(ext == () for ext in INT_PROFILE_CASTS.values())
