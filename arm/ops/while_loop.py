"""torch.while_loop (higher-order ``while_loop``) -> TOSA WHILE_LOOP, its condition and body as regions.

ExecuTorch's program format has no while loop (its emitter runs cond, map and scan, not while_loop),
so a loop can only run inside a delegate: on the FP profile with the control-flow extension
(``TOSA-1.0+FP+cf``), with every node of its condition and body delegated. Where that cannot be,
arm.flow refuses the model with the reason (before quantizing where the target can never delegate a
loop), rather than compiling a .pte nothing could run.

TOSA's loop carries every value from one iteration to the next, torch's only ``carried_inputs``:
its ``additional_inputs`` (tensors the functions read but never change) become loop values the body
hands on unchanged, and the node's results are the first ``len(carried_inputs)`` of the loop's.
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common import control_flow
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    condition, body, _, _ = node.args
    return control_flow.support_reason(node, spec, "WHILE_LOOP", (condition, body))


def annotate_while_loop(node: Node, config: QuantizationConfig) -> None:
    """Nothing: the quantizer leaves loop graphs float (see the support rule)."""


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    condition, body, carried_args, additional_args = node.args
    operands = [ctx.value(arg) for arg in (*carried_args, *additional_args)]
    condition_region = control_flow.lower_graph(node, condition, operands, ctx, "cond")
    body_region = control_flow.lower_graph(node, body, operands, ctx, "body", passed_through=len(additional_args))
    loop_values = tuple(
        ctx.graph.add_tensor(f"{node.name}_{index}", operand.shape, operand.dtype) for index, operand in enumerate(operands)
    )
    attribute = ts.TosaSerializerAttribute()
    attribute.WhileLoopAttribute(condition_region.region, body_region.region)
    ctx.graph.add_op(ts.Op.WHILE_LOOP, operands, loop_values, attribute)
    ctx.results[node] = loop_values[: len(carried_args)]
    return loop_values[0]


def _count_against_limit(x: torch.Tensor, limit: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    # ``limit`` is read by the condition only: an additional input the body hands on. Three iterations:
    # one more or less gives another count and another value.
    return torch._higher_order_ops.while_loop(
        lambda count, value: count.sum() < limit.sum(), lambda count, value: (count + 1.0, value * 2.0 - 1.0), (torch.zeros(1), x)
    )


TEST_CASES = {
    "count_against_limit": OpTestCase(
        FunctionModule(_count_against_limit),
        (torch.linspace(-1.0, 1.0, 6).reshape(2, 3), torch.tensor([3.0])),
        tosa_extensions=("cf",),
        targets=("tosa_FP",),
    ),
}

OP = ArmOp(
    name="while_loop",
    edge_targets=(torch.ops.higher_order.while_loop,),
    aten_targets=(),
    support=support,
    annotate=annotate_while_loop,
    lower=lower,
    test_cases=TEST_CASES,
)
