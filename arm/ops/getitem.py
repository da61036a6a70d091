"""operator.getitem(op, i): one result of a multi-result op.

The edge dialect gives ``_native_batch_norm_legit_no_training`` and ``native_layer_norm`` three
results; inference uses only the first. Their op modules lower that result, and this selection is
the same TOSA value. Other results (saved statistics) are training-only and stay on the CPU. A
split's pieces are all results of equal standing: each getitem cuts its own (arm.ops.split); so are a
cond's or while_loop's, which their lowering records in ``LoweringContext.results``.

Its cases pick one result of each kind of producer; the batch_norm, layer_norm and split cases exercise
it too.
"""

from __future__ import annotations

import operator

import torch
from torch.fx import Node

from arm.ops import split
from arm.ops.common import control_flow, registry
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import is_first_result
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    producer = node.args[0]
    if producer.target in split.EDGE_TARGETS:
        return split.support(producer, spec)
    if control_flow.is_control_flow(producer):
        return registry.for_edge_node(producer).support(producer, spec)
    if not is_first_result(node):
        return f"{describe(node)}: only the first result of a multi-result op is lowered, not result {node.args[1]}"
    arm_op = registry.for_edge_node(producer)
    if arm_op is None:
        return f"{describe(node)}: selects a result of {producer.name}, which no Arm op lowers"
    return arm_op.support(producer, spec)


def annotate_getitem(node: Node, config: QuantizationConfig) -> None:
    """Never called: getitem has no ATen target; the producer's annotation covers its result."""


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if node.args[0].target in split.EDGE_TARGETS:
        return split.lower_piece(node, ctx)
    if node.args[0] in ctx.results:
        return ctx.results[node.args[0]][node.args[1]]
    return ctx.value(node.args[0])


def second_of_three_pieces(x: torch.Tensor) -> torch.Tensor:
    return torch.split(x, [2, 3, 3], dim=1)[1]


def layer_norm_result(x: torch.Tensor) -> torch.Tensor:
    # native_layer_norm's first result, without affine parameters.
    return torch.nn.functional.layer_norm(x, (16,))


TEST_CASES = {
    "split_piece": OpTestCase(FunctionModule(second_of_three_pieces), random_inputs(0, (1, 8, 4, 4))),
    "layer_norm_result": OpTestCase(FunctionModule(layer_norm_result), random_inputs(1, (2, 6, 16))),
}

OP = ArmOp(
    name="getitem",
    edge_targets=(operator.getitem,),
    aten_targets=(),
    support=support,
    annotate=annotate_getitem,
    lower=lower,
    test_cases=TEST_CASES,
)
