"""alias_copy and detach_copy -> no TOSA op: the result is the input's value.

to_edge turns ``torch.ops.aten.alias`` and ``Tensor.detach()`` (and views that select a whole tensor)
into these copies. Each left on the CPU would cut a network in two (a channel-slicing CNN left 32 of
them there), so they are lowered as the identities they are; quantized, the output keeps the input's grid.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import profile_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    return profile_reason(node, spec, [node.args[0]])


def annotate_alias_copy(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[0])
    if ctx.spec.is_int:
        # Shared with the input by the quantizer; a foreign annotation may still ask for a rescale.
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    return value


def alias_then_add(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.alias(x) + y


def detach_then_mul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x.detach() * y


TEST_CASES = {
    "alias": OpTestCase(FunctionModule(alias_then_add), random_inputs(0, (1, 8, 6, 6), (1, 8, 6, 6))),
    "detach": OpTestCase(FunctionModule(detach_then_mul), random_inputs(1, (2, 16), (2, 16))),
}

OP = ArmOp(
    name="alias_copy",
    edge_targets=(exir_ops.edge.aten.alias_copy.default, exir_ops.edge.aten.detach_copy.default),
    aten_targets=(
        torch.ops.aten.alias.default,
        torch.ops.aten.alias_copy.default,
        torch.ops.aten.detach.default,
        torch.ops.aten.detach_copy.default,
    ),
    support=support,
    annotate=annotate_alias_copy,
    lower=lower,
    test_cases=TEST_CASES,
)
