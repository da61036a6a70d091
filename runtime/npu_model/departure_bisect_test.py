"""departure_bisect on a tiny graph whose U85 stream departs (vela_slice_window_test's rank-5 window, uncopied): it
names the operator whose prefix first departs, with the reference model's values as the oracle; the copied graph is
bit-exact and names nothing."""

from __future__ import annotations

import numpy as np

from arm.ethosu.npu_model.binding import NpuModel
from runtime.npu_model.departure_bisect import Bisection
from runtime.npu_model.vela_slice_window_test import scaled_window

TARGET = "ethos-u85-256"


def _bisection(copied: bool) -> Bisection:
    tosa = scaled_window("qkv_first_axis", copied=copied)
    x = np.random.default_rng(3).integers(-128, 128, tosa.inputs[0].shape).astype(np.int8)
    return Bisection(tosa.flatbuffer, [x], TARGET, NpuModel(TARGET))


def test_names_the_product_that_reads_the_window() -> None:
    found = _bisection(copied=False).first_departure()
    assert found is not None
    # The window's RESCALE and RESHAPE are exact as graph outputs (Vela writes them out); the MUL that reads the
    # window per batch is the first to depart, and alone (from a whole input tensor) it is exact.
    assert (found.operator.op, found.operator.outputs) == ("MUL", ("product",))
    count, size, _ = found.prefix.differing["product"]
    assert 0 < count < size
    assert found.alone is not None and not found.alone.departs


def test_a_bit_exact_delegate_names_nothing() -> None:
    assert _bisection(copied=True).first_departure() is None
