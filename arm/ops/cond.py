"""torch.cond (higher-order ``cond``) -> TOSA COND_IF, its two branches as two regions (EXT-CONTROLFLOW).

Delegated on the FP profile when the specification names the control-flow extension (``TOSA-1.0+FP+cf``,
as ExecuTorch's Arm backend asks for it too) and every node of both branches is delegated, nested conds
included (each a COND_IF in a region of its own). Elsewhere the cond stays on the CPU, where ExecuTorch
runs it (its emitter turns a cond into jumps), with the reason: the INT profile because the quantizer
does not quantize inside branches, the Ethos-U55 because it has no control flow, the Ethos-U85 because
Vela 5.2.0 places COND_IF on the CPU, and a specification without ``cf`` because it lacks the operator.
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common import control_flow
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import EVERY_TARGET, FunctionModule, OpTestCase, random_inputs
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.quantization import numpy_dtype
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    _, true_graph, false_graph, _ = node.args
    return control_flow.support_reason(node, spec, "COND_IF", (true_graph, false_graph))


def annotate_cond(node: Node, config: QuantizationConfig) -> None:
    """Nothing: the quantizer leaves branches float (see the support rule)."""


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    predicate_arg, true_graph, false_graph, operand_args = node.args
    operands = [ctx.value(arg) for arg in operand_args]
    regions = [
        control_flow.lower_graph(node, graph, operands, ctx, part) for graph, part in ((true_graph, "then"), (false_graph, "else"))
    ]
    results = tuple(
        ctx.graph.add_tensor(f"{node.name}_{index}", tuple(value.shape), numpy_dtype(value.dtype))
        for index, value in enumerate(node.meta["val"])
    )
    attribute = ts.TosaSerializerAttribute()
    attribute.CondIfAttribute(regions[0].region, regions[1].region)
    ctx.graph.add_op(ts.Op.COND_IF, [ctx.value(predicate_arg), *operands], results, attribute)
    ctx.results[node] = results
    return results[0]


def _branch_by_input(predicate: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    return torch.cond(predicate, lambda t: torch.sin(t) + 1.0, lambda t: t * t - 0.5, (x,))


def _nested_two_results(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    def outer_true(a: torch.Tensor, b: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        inner = torch.cond(a.sum() > 4.0, lambda u, v: (u + v, u * v), lambda u, v: (u - v, v - u), (a, b))
        return inner[0] * 2.0, inner[1]

    return torch.cond((x * y).sum() > 0, outer_true, lambda a, b: (a - 1.0, torch.cos(b)), (x, y))


_PREDICATE_AND_VALUES = (torch.tensor(False), *random_inputs(0, (2, 3, 4)))
_FP_ONLY = tuple(target for target in EVERY_TARGET if target != "tosa_FP")

TEST_CASES = {
    # The else branch runs: a graph that ran the then branch (or both) gives other numbers.
    "predicate_input": OpTestCase(
        FunctionModule(_branch_by_input), _PREDICATE_AND_VALUES, cpu_targets=_FP_ONLY, tosa_extensions=("cf",)
    ),
    # A computed predicate, a cond in a branch and two results; the inputs take the outer then branch
    # and the inner else branch (a sum of 2 against 4). Only tosa_FP runs it (elsewhere the predicate's ops are delegated
    # around a cond on the CPU, which predicate_input already shows).
    "nested_two_results": OpTestCase(
        FunctionModule(_nested_two_results),
        (torch.full((2, 4), 0.25), torch.linspace(-1.0, 2.0, 8).reshape(2, 4)),
        tosa_extensions=("cf",),
        targets=("tosa_FP",),
    ),
}

OP = ArmOp(
    name="cond",
    edge_targets=(torch.ops.higher_order.cond,),
    aten_targets=(),
    support=support,
    annotate=annotate_cond,
    lower=lower,
    test_cases=TEST_CASES,
)
