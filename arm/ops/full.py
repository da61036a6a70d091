"""aten.full (ones and zeros too, which to_edge makes full) -> folded to a constant before partitioning
(arm/passes/fold_constants.py); one too large to fold is a TOSA CONST (arm/ops/common/constant_creator.py)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.constant_creator import constant_creator_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def plus_ones(x: torch.Tensor) -> torch.Tensor:
    return x + torch.ones(x.shape[-1])


def padded_with_zeros(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x, torch.zeros(1, 2, x.shape[-1])], dim=1)


def times_full(x: torch.Tensor) -> torch.Tensor:
    return x * torch.full((1, x.shape[-1]), 1.5)


def only_full() -> torch.Tensor:
    return torch.full((3, 3), 4.5)


TEST_CASES = {
    "ones": OpTestCase(FunctionModule(plus_ones), random_inputs(0, (2, 6))),
    "zeros_concatenated": OpTestCase(FunctionModule(padded_with_zeros), random_inputs(1, (1, 3, 5))),
    "full": OpTestCase(FunctionModule(times_full), random_inputs(2, (3, 4))),
    # A model that only creates a constant: on FP a delegate with no inputs whose output is a TOSA CONST
    # (an INT target has no quantized output for it, so it stays on the CPU there).
    "only_full": OpTestCase(
        FunctionModule(only_full), (), targets=("tosa_FP", "tosa_INT"), cpu_targets=("tosa_INT",)
    ),
}

OP = constant_creator_op(
    "full", edge_targets=(exir_ops.edge.aten.full.default,), aten_targets=(), test_cases=TEST_CASES
)
