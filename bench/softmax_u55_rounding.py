"""A numpy model of the U55 softmax's integer arithmetic on unmasked int8 rows of 17-127 keys, against float64.

Counts the probabilities each form rounds the other way from the float64 softmax, and how close to a half
step they lie. The forms (arm/ops/softmax.py, ``fourteen_bit_residual_rows``):

- ``22-bit`` (session 11): the 14-bit E, one residual byte (2**-8 of E's unit), R = round(2**42 / S)
  corrected to first order by L, the residuals' sum: ``R' = R - L * R**2 / 2**(8 + 42)``.
- ``30-bit`` (session 12): the 14-bit E, a 16-bit residual from two bytes, and L in the divisor itself:
  ``R = round(2**(42 + a) / (S * 2**a + round(L / 2**(16 - a))))``.

Both then take ``E * R / 2**12 + e * round(R / 2**14) / 2**(k - 2)`` and round once onto the output grid
(1/256, zero point -128); TOSA's rounding right shifts round half up. R is modelled as the exact rounded
quotient (row_inverse's three Newton steps give all its bits). Input codes are N(0, sigma) rounded and
clipped to int8, on an input step of 2**-5 (the op cases' grid).

    python -m bench.softmax_u55_rounding --keys 17,32,40,127 --rows 150000
"""

from __future__ import annotations

import argparse

import numpy as np

_FULL_SCALE = 16383  # E's full scale: arm.ops.softmax.EXP_FULL_SCALE
_FRACTION_BITS = 42  # K of the U55's 14-bit E (arm.ops.softmax._exact_quotient)
_QUOTIENT_SHIFT = 12
_NARROWING = 14  # R read as an int16 by the residual's product (_residual_quotient)
_OUTPUT_SHIFT = _FRACTION_BITS - _QUOTIENT_SHIFT - 8  # onto the 1/256 grid


def _round_shift(value: np.ndarray, shift: int) -> np.ndarray:
    return value if shift <= 0 else (value + (1 << (shift - 1))) >> shift


def _rounded_quotient(numerator: int, divisor: np.ndarray) -> np.ndarray:
    quotients = [(numerator + d // 2) // d for d in divisor.ravel().tolist()]  # exact: Python integers
    return np.array(quotients, dtype=np.int64).reshape(divisor.shape)


def lowered(codes: np.ndarray, step: float, residual_bits: int) -> np.ndarray:
    """The output codes of the form with ``residual_bits`` (8: 22-bit, 16: 30-bit) for int8 ``codes`` [rows, keys]."""
    codes = codes.astype(np.int64)
    exact = _FULL_SCALE * np.exp(step * np.arange(-255, 1, dtype=np.float64))
    rounded = np.round(exact)
    index = codes - codes.max(axis=1, keepdims=True) + 255
    exp = rounded.astype(np.int64)[index]
    high = (127 << 8) + 127 if residual_bits == 16 else 127
    residual = np.clip(np.round((exact - rounded) * 2.0**residual_bits), -(1 << (residual_bits - 1)), high)
    residual = residual.astype(np.int64)[index]
    total, residual_total = exp.sum(1, keepdims=True), residual.sum(1, keepdims=True)
    if residual_bits == 8:
        inverse = _rounded_quotient(1 << _FRACTION_BITS, total)
        square = _round_shift(inverse * inverse, 28)
        inverse = inverse - _round_shift(residual_total * square, residual_bits + _FRACTION_BITS - 28)
    else:
        shift = min(residual_bits, 31 - (codes.shape[1] * _FULL_SCALE).bit_length())
        divisor = (total << shift) + _round_shift(residual_total, residual_bits - shift)
        inverse = _rounded_quotient(1 << (_FRACTION_BITS + shift), divisor)
    quotient = _round_shift(exp * inverse, _QUOTIENT_SHIFT)
    below_unit = _round_shift(residual * _round_shift(inverse, _NARROWING),
                              _QUOTIENT_SHIFT + residual_bits - _NARROWING)  # fmt: skip
    return _round_shift(quotient + below_unit, _OUTPUT_SHIFT) - 128


def float64_steps(codes: np.ndarray, step: float) -> np.ndarray:
    """The float64 softmax of ``codes * step`` in output steps (1/256)."""
    x = codes.astype(np.float64) * step
    p = np.exp(x - x.max(axis=1, keepdims=True))
    return 256.0 * p / p.sum(axis=1, keepdims=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--keys", default="17,32,40,127")
    parser.add_argument("--rows", type=int, default=150000)
    parser.add_argument("--sigma", type=float, default=40.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    step = 2.0**-5
    for keys in (int(k) for k in args.keys.split(",")):
        codes = np.clip(np.round(np.random.default_rng(args.seed).normal(0, args.sigma, (args.rows, keys))), -128, 127)
        steps = float64_steps(codes, step)
        expected = np.rint(steps).astype(np.int64) - 128
        from_half = np.abs(steps - np.floor(steps) - 0.5)
        for name, bits in (("22-bit", 8), ("30-bit", 16)):
            off = lowered(codes, step, bits) != expected
            farthest = f"{from_half[off].max():.2e}" if off.any() else "-"
            print(f"{keys} keys, {name}: {off.sum()} of {off.size} off; the farthest {farthest} of a step "
                  "from a half step")


if __name__ == "__main__":
    main()
