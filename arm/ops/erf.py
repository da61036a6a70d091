"""aten.erf -> TOSA ERF (FP) or TABLE (INT)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.quantizer.quantization_config import get_symmetric_a16w8_quantization_config

TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.erf), random_inputs(0, (1, 4, 8, 8))),
    "rank2": OpTestCase(FunctionModule(torch.erf), tuple(2.0 * x for x in random_inputs(1, (5, 30)))),
    # int16 activations: the float-function family's interpolating int16 TABLE (common/table.py); the
    # TOSA-1.0+INT targets (TOSA, VGF) have no int16 extension.
    "a16w8": OpTestCase(
        FunctionModule(torch.erf),
        random_inputs(2, (2, 3, 40)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = float_function_op(
    name="erf",
    edge=exir_ops.edge.aten.erf.default,
    aten=torch.ops.aten.erf.default,
    function=FloatFunction(lambda m, x: m.erf(x)),
    test_cases=TEST_CASES,
)
