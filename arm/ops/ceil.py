"""aten.ceil -> TOSA CEIL (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op, on_int8_grid
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.quantizer.quantization_config import get_symmetric_a16w8_quantization_config

TEST_CASES = {
    # On the int8 grid: an input a hair from an integer would otherwise quantize across it.
    "rank4": OpTestCase(FunctionModule(torch.ceil), on_int8_grid(0, (1, 4, 8, 8), 0.0371)),
    # Wide inputs: a unit jump is about one output step, within the harness's bound off the grid too.
    "wide": OpTestCase(FunctionModule(torch.ceil), tuple(40.0 * x for x in random_inputs(1, (2, 50)))),
    # int16 activations: the interpolating int16 TABLE would ramp across each jump (thousands of int16
    # steps off), so the family's support rule keeps it on the CPU; TOSA-1.0+INT (TOSA, VGF) has no int16.
    "a16w8_stays_on_cpu": OpTestCase(
        FunctionModule(torch.ceil),
        random_inputs(2, (2, 16)),
        cpu_targets=("tosa_INT", "u55_INT", "u85_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = float_function_op(
    name="ceil",
    edge=exir_ops.edge.aten.ceil.default,
    aten=torch.ops.aten.ceil.default,
    function=FloatFunction(lambda m, x: m.ceil(x)),
    test_cases=TEST_CASES,
)
