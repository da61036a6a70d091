"""aten.full_like (zeros_like, ones_like and ``fill_`` of a new tensor, as to_edge writes them) -> folded to a
constant before partitioning, even of a model input, whose static shape is all it reads
(arm/passes/fold_constants.py); one too large to fold is a TOSA CONST (arm/ops/common/constant_creator.py)."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops

from arm.ops.common.constant_creator import constant_creator_op
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def plus_ones_like(x: torch.Tensor) -> torch.Tensor:
    return x + torch.ones_like(x)


def beside_zeros_like(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x, torch.zeros_like(x)], dim=-1)


def filled(x: torch.Tensor) -> torch.Tensor:
    return x * torch.empty(x.shape[-1]).fill_(0.25)


TEST_CASES = {
    "ones_like_input": OpTestCase(FunctionModule(plus_ones_like), random_inputs(0, (2, 3, 4))),
    "zeros_like_input": OpTestCase(FunctionModule(beside_zeros_like), random_inputs(1, (2, 5))),
    "fill_": OpTestCase(FunctionModule(filled), random_inputs(2, (3, 6))),
}

OP = constant_creator_op(
    "full_like",
    # zeros_like/ones_like reach the lowering only inside control-flow graphs (a loop condition's
    # zeros_like(total)): to_edge turns them into full_like at the top level.
    edge_targets=(exir_ops.edge.aten.full_like.default, exir_ops.edge.aten.zeros_like.default, exir_ops.edge.aten.ones_like.default),
    aten_targets=(),
    test_cases=TEST_CASES,
)
