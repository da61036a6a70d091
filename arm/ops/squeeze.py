"""aten.squeeze_copy -> TOSA RESHAPE, lowered as view is (the output shape comes from the node's meta)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops import view
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp


def squeeze_batch(x: torch.Tensor) -> torch.Tensor:
    return x.squeeze(0)


def squeeze_all(x: torch.Tensor) -> torch.Tensor:
    return x.squeeze()


def squeeze_spatial(x: torch.Tensor) -> torch.Tensor:
    return x.squeeze((2, 3))


TEST_CASES = {
    "batch": OpTestCase(FunctionModule(squeeze_batch), random_inputs(0, (1, 4, 6, 6))),
    "all_unit_dims": OpTestCase(FunctionModule(squeeze_all), random_inputs(1, (1, 8, 1, 5))),
    "pooled_spatial": OpTestCase(FunctionModule(squeeze_spatial), random_inputs(2, (2, 16, 1, 1))),
}

OP = ArmOp(
    name="squeeze",
    edge_targets=(
        exir_ops.edge.aten.squeeze_copy.dims,
        exir_ops.edge.aten.squeeze_copy.dim,
        exir_ops.edge.aten.squeeze_copy.default,
    ),
    aten_targets=(torch.ops.aten.squeeze.dims, torch.ops.aten.squeeze.dim, torch.ops.aten.squeeze.default),
    support=view.support,
    annotate=view.annotate_view,
    lower=view.lower,
    test_cases=TEST_CASES,
)
