"""What cond and while_loop share: where TOSA control flow can run, and their graphs' own support.

TOSA 1.0 runs control flow with its EXT-CONTROLFLOW extension (``cf`` in a specification): COND_IF
calls one of two regions, WHILE_LOOP calls a condition region and a body region until the condition is
false. A control-flow node is delegated whole, with every node of the graphs it calls (nested control
flow included), or not at all: a region cannot hand part of its work back to the CPU.
"""

from __future__ import annotations

import operator
from typing import Sequence

import torch
from torch.fx import GraphModule, Node

from arm.fallback import LoweringError
from arm.ops.common.node_info import describe
from arm.passes.cpu_fallback import cpu_reason
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.specification import TosaSpecification

CONTROL_FLOW_TARGETS = frozenset({torch.ops.higher_order.cond, torch.ops.higher_order.while_loop})


def is_control_flow(node: object) -> bool:
    return isinstance(node, Node) and node.op == "call_function" and node.target in CONTROL_FLOW_TARGETS


def target_gap(spec: TosaSpecification, tosa_operator: str) -> str | None:
    """Why ``spec``'s target cannot run ``tosa_operator`` (COND_IF, WHILE_LOOP) at all, or None."""
    if spec.has("u55"):
        return f"the Ethos-U55 has no control flow (Vela 5.2.0 has no {tosa_operator} for it)"
    if spec.has("u85"):
        # Checked: a graph of one COND_IF between two ADD regions compiles to a CPU "If" operator.
        return (
            f"Vela 5.2.0 leaves TOSA {tosa_operator} on the CPU for the Ethos-U85 (its control-flow support is "
            "experimental), and an Ethos-U delegate must run wholly on the NPU"
        )
    if not spec.has("cf"):
        return (
            f"{spec} has no control-flow extension, which {tosa_operator} needs; add it to the specification "
            f"('{spec}+cf') to delegate the node"
        )
    if spec.is_int:
        return (
            "the Arm quantizer does not quantize inside control-flow graphs (pt2e leaves their operators "
            "float), so the INT profile has no integer graph to lower"
        )
    return None


def target_reason(node: Node, spec: TosaSpecification, tosa_operator: str) -> str | None:
    gap = target_gap(spec, tosa_operator)
    return None if gap is None else f"{describe(node)}: {gap}; it runs on the CPU"


def graph_module_of(node: Node, arg: object) -> GraphModule:
    """The graph a control-flow node calls, from its get_attr argument."""
    if not isinstance(arg, Node) or arg.op != "get_attr":
        raise ValueError(f"{describe(node)}: expected a get_attr of a graph, got {arg!r}")
    return node.graph.owning_module.get_submodule(str(arg.target))


def graph_reason(node: Node, graph_arg: Node, spec: TosaSpecification) -> str | None:
    """The first reason a node of the graph ``graph_arg`` names cannot be delegated, or None."""
    from arm.ops.common import registry  # the registry loads the op modules, which import this one

    graph_module = graph_module_of(node, graph_arg)
    for inner in graph_module.graph.nodes:
        if inner.op != "call_function":
            continue
        reason = cpu_reason(inner) or registry.unsupported_reason(inner, spec)
        if reason is not None:
            return f"{describe(node)}: its graph {graph_arg.target} cannot be delegated whole ({reason}); it runs on the CPU"
    return None


def support_reason(node: Node, spec: TosaSpecification, tosa_operator: str, graph_args: tuple[Node, ...]) -> str | None:
    """The support rule of a control-flow node: the target runs ``tosa_operator`` and every graph it calls
    can be delegated whole."""
    return target_reason(node, spec, tosa_operator) or next(
        (reason for graph_arg in graph_args if (reason := graph_reason(node, graph_arg, spec)) is not None), None
    )


def graph_arguments(node: Node) -> tuple[Node, ...]:
    """The get_attr nodes of the graphs a control-flow node calls, which its partition must hold."""
    if node.target is torch.ops.higher_order.cond:
        return (node.args[1], node.args[2])
    if node.target is torch.ops.higher_order.while_loop:
        return (node.args[0], node.args[1])
    return ()


def region_name(parent_region: str, node: Node, part: str) -> str:
    """A region's name, qualified by its caller's region so nested control flow gets unique names."""
    name = f"{node.name}_{part}"
    return name if parent_region == "main" else f"{parent_region}.{name}"


def lower_graph(
    node: Node, graph_arg: Node, operands: Sequence[TosaValue], ctx: LoweringContext, part: str, *, passed_through: int = 0
) -> TosaGraph:
    """Lowers the graph ``graph_arg`` of ``node`` into a region named after ``part`` (then, else, cond, body).

    A node inside that fails to lower fails the whole control-flow node, named so the flow keeps it on the
    CPU: only the program's own nodes can move there, not a region's. The last ``passed_through`` operands
    are outputs of the region as well (a loop body hands its read-only inputs on).
    """
    from arm.tosa.lowering import lower_region  # the lowering loads the op registry, which loads this module

    try:
        graph_module = graph_module_of(node, graph_arg)
        return lower_region(graph_module, operands, ctx, region_name(ctx.graph.region, node, part), passed_through=passed_through)
    except Exception as error:
        raise LoweringError((node.name,), f"{describe(node)}: its graph {graph_arg.target} did not lower ({error})") from error


def is_result_of_control_flow(node: Node) -> bool:
    return node.target is operator.getitem and is_control_flow(node.args[0])
