"""aten.unsqueeze_copy -> TOSA RESHAPE, lowered as view is (the output shape comes from the node's meta)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops import view
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp


def unsqueeze_batch(x: torch.Tensor) -> torch.Tensor:
    return x.unsqueeze(0)


def unsqueeze_last(x: torch.Tensor) -> torch.Tensor:
    return x.unsqueeze(-1)


def unsqueeze_middle(x: torch.Tensor) -> torch.Tensor:
    return x.unsqueeze(1)


TEST_CASES = {
    "batch": OpTestCase(FunctionModule(unsqueeze_batch), random_inputs(0, (4, 6, 6))),
    "last": OpTestCase(FunctionModule(unsqueeze_last), random_inputs(1, (2, 8, 5))),
    "middle_to_rank5": OpTestCase(FunctionModule(unsqueeze_middle), random_inputs(2, (2, 3, 4, 5))),
}

OP = ArmOp(
    name="unsqueeze",
    edge_targets=(exir_ops.edge.aten.unsqueeze_copy.default,),
    aten_targets=(torch.ops.aten.unsqueeze.default,),
    support=view.support,
    annotate=view.annotate_view,
    lower=view.lower,
    test_cases=TEST_CASES,
)
