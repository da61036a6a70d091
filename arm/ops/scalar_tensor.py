"""aten.scalar_tensor -> folded into the constant its user reads (arm/passes/fold_constants.py); alone, a
0-d tensor is not lowered (arm/ops/common/constant_creator.py)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.constant_creator import constant_creator_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def times_scalar_tensor(x: torch.Tensor) -> torch.Tensor:
    return x * torch.scalar_tensor(3.0)


def clamped_by_scalar_tensors(x: torch.Tensor) -> torch.Tensor:
    return torch.maximum(x, torch.scalar_tensor(-0.5)) + torch.scalar_tensor(1.0)


TEST_CASES = {
    "scale": OpTestCase(FunctionModule(times_scalar_tensor), random_inputs(0, (2, 6))),
    "two_scalars": OpTestCase(FunctionModule(clamped_by_scalar_tensors), random_inputs(1, (3, 5))),
}

OP = constant_creator_op(
    "scalar_tensor", edge_targets=(exir_ops.edge.aten.scalar_tensor.default,), aten_targets=(), test_cases=TEST_CASES
)
