"""The multiplier/shift split that every INT rescale relies on."""

import math

import pytest

from arm.tosa.rescale import multiplier_and_shift


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
