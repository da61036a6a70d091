"""Where each node of the partitioned edge graph runs: which delegate partition, or the CPU and why."""

from __future__ import annotations

from typing import Collection, Mapping

import torch
from executorch.exir.delegate import executorch_call_delegate
from torch.fx import Node

from arm.report.provenance import call_functions, node_kind, op_name, origin
from arm.report.report_data import PlacedNode

# The partitioner gives every call_function it leaves on the CPU a reason; a node it never saw (one that
# a later executorch pass added) gets this one.
_NO_REASON = "left on the CPU by a pass after partitioning"
# Nodes that only unpack delegate results or plan memory: not work on either side.
_BOOKKEEPING = ("getitem", "alloc")


def place_nodes(
    edge_graph: torch.fx.GraphModule, rejected: Mapping[str, str], layer_names: Collection[str]
) -> list[PlacedNode]:
    """Every call_function in program order, delegated sub-graphs expanded in place.

    Args:
        edge_graph: the partitioned edge graph (FlowResult.edge_graph).
        rejected: CPU node name -> the support rule's reason (FlowResult.rejected).
        layer_names: node names of the quantized torch graph, to tie nodes to layers.
    """
    placed: list[PlacedNode] = []
    partition = 0
    for node in edge_graph.graph.nodes:
        if node.op != "call_function" or _is_bookkeeping(node):
            continue
        if node.target is executorch_call_delegate:
            lowered = getattr(edge_graph, node.args[0].target)
            placed.extend(_delegated(lowered, partition, layer_names))
            partition += 1
            continue
        placed.append(
            PlacedNode(
                name=node.name,
                op=op_name(node),
                kind=node_kind(node),
                layer=origin(node, layer_names),
                partition=None,
                backend="CPU",
                reason=rejected.get(node.name, _NO_REASON),
            )
        )
    return placed


def _delegated(lowered: torch.nn.Module, partition: int, layer_names: Collection[str]) -> list[PlacedNode]:
    program = lowered.original_module
    user_inputs = set(program.graph_signature.user_inputs)
    return [
        PlacedNode(
            name=node.name,
            op=op_name(node),
            kind=node_kind(node),
            layer=origin(node, layer_names),
            partition=partition,
            backend=lowered.backend_id,
            reason=None,
        )
        for node in call_functions(program.graph_module)
        if not _dequantizes_constant(node, user_inputs)
    ]


def _dequantizes_constant(node: Node, user_inputs: Collection[str]) -> bool:
    """Dequantized weights are part of their consumer, not a step of the model."""
    return node_kind(node) == "dequantize" and all(
        arg.op == "placeholder" and arg.name not in user_inputs for arg in node.all_input_nodes
    )


def _is_bookkeeping(node: Node) -> bool:
    return any(word in str(node.target) for word in _BOOKKEEPING)
