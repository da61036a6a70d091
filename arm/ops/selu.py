"""aten.selu: annotated here; to_edge writes it as elu with SELU's constants, which elu.py lowers."""

from __future__ import annotations

import torch

from arm.ops.common.float_unary import FloatFunction, float_function_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.elu import elu

TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.selu), random_inputs(0, (1, 4, 8, 8))),
    "rank2": OpTestCase(torch.nn.SELU(), tuple(2.0 * x for x in random_inputs(1, (5, 30)))),
}

OP = float_function_op(
    name="selu",
    edge=None,
    aten=torch.ops.aten.selu.default,
    function=FloatFunction(elu),
    test_cases=TEST_CASES,
)
