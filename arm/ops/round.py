"""aten.round -> round half to even by float32 addition (FP) or TABLE (INT).

TOSA 1.0 has no ROUND. Adding 2^23 to |x| < 2^23 leaves no fraction bits, so the FP adder rounds
|x| to an integer, half to even as torch.round does; subtracting 2^23 again is exact. From 2^23 on
every float32 is already an integer and passes through unchanged. float16 and bfloat16 do the same
with 2^10 and 2^7, their fraction bits.
"""

from __future__ import annotations

import ml_dtypes
import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op, on_int8_grid
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import FunctionModule, OpTestCase
from arm.tosa.graph import TosaValue

def round_half_to_even(m: FloatMath, x: TosaValue) -> TosaValue:
    # 2^23 for float32; float16 has 10 fraction bits (2^23 would be inf there), bfloat16 7.
    no_fraction_bits = 2.0 ** ml_dtypes.finfo(x.dtype).nmant
    magnitude = m.abs(x)
    rounded = m.sub(m.add(magnitude, no_fraction_bits), no_fraction_bits)
    return m.select(m.greater(no_fraction_bits, magnitude), m.copysign(rounded, x), x)


# Exact halves (to even: -2, -2, -0, 0, 2, 2), values beside them, and magnitudes past 2^23.
_TIES = torch.tensor(
    [[-2.5, -1.5, -0.5, 0.5, 1.5, 2.5], [-0.49999997, 0.50000006, 3.4999998, 1e6 + 0.5, 2.0**23 + 2, -(2.0**24) - 4]]
)

TEST_CASES = {
    # On the int8 grid (step 0.0371 hits no half), so no input quantizes across a half.
    "rank4": OpTestCase(FunctionModule(torch.round), on_int8_grid(0, (1, 4, 8, 8), 0.0371)),
    "ties": OpTestCase(FunctionModule(torch.round), (_TIES,)),
}

OP = float_function_op(
    name="round",
    edge=exir_ops.edge.aten.round.default,
    aten=torch.ops.aten.round.default,
    function=FloatFunction(round_half_to_even),
    test_cases=TEST_CASES,
)
