"""aten.sum.dim_IntList -> TOSA REDUCE_SUM per dim (INT: on int32, one RESCALE onto the output grid).

aten.sum.default (every dim) reaches the lowering only inside control-flow graphs (a loop condition's
``x.sum() > 1``), which to_edge leaves undecomposed; at the top level it becomes sum.dim_IntList, to a
0-d result. The quantizer annotates it as aten.sum.default, which pt2e still sees.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.reduction import lower_reduce_sum, reduction_support
from arm.ops.common.arm_op import ArmOp
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue


def annotate_sum(node: Node, config: QuantizationConfig) -> None:
    """A sum's range grows with the count it adds up: its output gets a grid of its own."""
    annotate(node, {node.args[0]: config.activation}, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    return lower_reduce_sum(node, ctx, factor=1.0)


def sum_channels(x: torch.Tensor) -> torch.Tensor:
    return x.sum(1)


def sum_spatial_keepdim(x: torch.Tensor) -> torch.Tensor:
    return x.sum((2, 3), keepdim=True)


def sum_last(x: torch.Tensor) -> torch.Tensor:
    return x.sum(-1)


def sum_every_dim(x: torch.Tensor) -> torch.Tensor:
    return x.sum()


def sum_radix_groups(x: torch.Tensor) -> torch.Tensor:
    """ResNeSt's split attention adds its radix groups: a short axis with whole feature maps after it."""
    return x.sum(1)


def sum_leading(x: torch.Tensor) -> torch.Tensor:
    return x.sum(0)


TEST_CASES = {
    "channels": OpTestCase(FunctionModule(sum_channels), random_inputs(0, (1, 8, 6, 6))),
    "spatial_keepdim": OpTestCase(FunctionModule(sum_spatial_keepdim), random_inputs(1, (1, 4, 5, 7))),
    "last_dim": OpTestCase(FunctionModule(sum_last), random_inputs(2, (4, 3, 16))),
    # x.sum(): aten.sum.default at pt2e (annotated as such), a 0-d sum.dim_IntList after to_edge.
    "every_dim": OpTestCase(FunctionModule(sum_every_dim), random_inputs(3, (3, 1, 4))),
    # Short axes with data after them: int32 ADDs of slices on the U85 (common/reduction.py).
    "radix_groups": OpTestCase(FunctionModule(sum_radix_groups), random_inputs(4, (1, 2, 8, 6, 6))),
    "short_leading_axis": OpTestCase(FunctionModule(sum_leading), random_inputs(5, (3, 8, 5, 5))),
}

OP = ArmOp(
    name="sum",
    edge_targets=(exir_ops.edge.aten.sum.dim_IntList, exir_ops.edge.aten.sum.default),
    aten_targets=(torch.ops.aten.sum.dim_IntList, torch.ops.aten.sum.default),
    support=reduction_support,
    annotate=annotate_sum,
    lower=lower,
    test_cases=TEST_CASES,
)
