"""aten.arange (and eye and linspace, which to_edge builds from arange) -> folded to a constant before
partitioning (arm/passes/fold_constants.py); one too large to fold is a TOSA CONST
(arm/ops/common/constant_creator.py). The cases show each creator ending as a constant its delegated
consumer reads."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.constant_creator import constant_creator_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def plus_positions(x: torch.Tensor) -> torch.Tensor:
    return x + torch.arange(x.shape[-1])


def times_half_steps(x: torch.Tensor) -> torch.Tensor:
    return x * torch.arange(-1.0, 2.0, 0.5)


def plus_identity(x: torch.Tensor) -> torch.Tensor:
    return x + torch.eye(x.shape[-1])


def times_linspace(x: torch.Tensor) -> torch.Tensor:
    return x * torch.linspace(0.0, 2.0, x.shape[-1])


TEST_CASES = {
    "int_positions": OpTestCase(FunctionModule(plus_positions), random_inputs(0, (2, 8))),
    "float_steps": OpTestCase(FunctionModule(times_half_steps), random_inputs(1, (3, 6))),
    "eye": OpTestCase(FunctionModule(plus_identity), random_inputs(2, (2, 5, 5))),
    "linspace": OpTestCase(FunctionModule(times_linspace), random_inputs(3, (4, 7))),
}

OP = constant_creator_op(
    "arange",
    edge_targets=(exir_ops.edge.aten.arange.start_step, exir_ops.edge.aten.arange.default),
    aten_targets=(),
    test_cases=TEST_CASES,
)
