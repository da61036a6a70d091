"""clone and inference dropout -> no TOSA op: the result is the input's value.

A model in eval mode still calls ``dropout(x, p, train=False)``; to_edge turns it, like ``clone``, into
``dim_order_ops._clone_dim_order``. Left on the CPU it would split a network into two partitions
(MobileNetV2's classifier starts with one), so it is lowered as the identity it is. A clone that
changes the memory format (a dim order other than the contiguous one) stays on the CPU: the delegate
writes contiguous tensors. Integer data (an int8 unfold_copy result, int32 ids) is cloned as it is in
the INT profile, and bool data in every profile (``moved_data_support``).
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.integer_arithmetic import moved_data_support, moves_data
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    dim_order = node.kwargs.get("dim_order")
    contiguous = list(range(len(shape_of(node))))
    return first_reason(
        None
        if dim_order is None or list(dim_order) == contiguous
        else f"{describe(node)}: changes the dim order to {list(dim_order)}; the delegate writes contiguous tensors",
        moved_data_support(node, spec) if moves_data(node) else profile_reason(node, spec, [node.args[0]]),
    )


def annotate_clone(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[0])
    if ctx.spec.is_int and not moves_data(node):
        # Shared with the input by the quantizer; a foreign annotation may still ask for a rescale.
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    return value


class _LinearDropoutLinear(torch.nn.Module):
    """A classifier head as in MobileNetV2: dropout between two computing ops, in eval mode."""

    def __init__(self) -> None:
        super().__init__()
        self.first = torch.nn.Linear(24, 32)
        self.dropout = torch.nn.Dropout(0.2)
        self.second = torch.nn.Linear(32, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(self.dropout(self.first(x)))


class _ConvCloneRelu(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 8, 3, padding=1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.conv(x).clone())


TEST_CASES = {
    "eval_dropout": OpTestCase(seeded(0, _LinearDropoutLinear), random_inputs(1, (2, 24))),
    "clone": OpTestCase(seeded(2, _ConvCloneRelu), random_inputs(3, (1, 4, 8, 8))),
}

OP = ArmOp(
    name="clone",
    edge_targets=(exir_ops.edge.dim_order_ops._clone_dim_order.default, exir_ops.edge.aten.clone.default),
    aten_targets=(torch.ops.aten.dropout.default, torch.ops.aten.clone.default),
    support=support,
    annotate=annotate_clone,
    lower=lower,
    test_cases=TEST_CASES,
)
