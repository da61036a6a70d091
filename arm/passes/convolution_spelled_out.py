"""Spells ``aten.conv{1,2,3}d`` as the ``aten.convolution`` it stands for, on the ATen program, before to_edge.

executorch's to_edge re-traces the program twice: once to functionalize it (``run_decompositions({})``,
which keeps composite ops such as ``conv2d``), and again with its decomposition table only when an op of
that table is left. In a CNN the one such op is ``conv2d``, whose decomposition is a single
``convolution`` node with the same operands, so the second re-trace (2.2 of MobileNetV2's ~11 CPU
seconds) exists only to rename it. Renaming it here, exactly as the decomposition would, lets
executorch skip that re-trace; the edge graph it builds is the same (its next re-trace names nodes
after their op either way).

It runs on the ExportedProgram the flow hands to ``to_edge_transform_and_lower``, in place.
"""

from __future__ import annotations

import torch
from torch.fx import GraphModule, Node

_aten = torch.ops.aten

# op -> its spatial rank; conv{1,2,3}d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1).
_CONVOLUTIONS = {_aten.conv1d.default: 1, _aten.conv2d.default: 2, _aten.conv3d.default: 3}
_OPERANDS = {"bias": None, "stride": 1, "padding": 0, "dilation": 1, "groups": 1}


def spell_out_convolutions(graph_module: GraphModule) -> int:
    """Rewrites every batched real ``conv*d.default`` call into ``convolution.default``; returns how many."""
    nodes = [node for node in graph_module.graph.nodes if _is_plain_convolution(node)]
    for node in nodes:
        node.args = _convolution_arguments(node)
        node.kwargs = {}
        node.target = _aten.convolution.default
    if nodes:
        graph_module.recompile()
    return len(nodes)


def _is_plain_convolution(node: Node) -> bool:
    """ATen's conv*d is exactly one convolution for a batched, real input; an unbatched input adds an
    unsqueeze and a squeeze, a complex one other ops: those are left to the decomposition."""
    if node.op != "call_function" or node.target not in _CONVOLUTIONS:
        return False
    value = node.args[0].meta.get("val") if isinstance(node.args[0], Node) else None
    return (
        isinstance(value, torch.Tensor)
        and value.dim() == _CONVOLUTIONS[node.target] + 2
        and not value.dtype.is_complex
    )


def _convolution_arguments(node: Node) -> tuple:
    rank = _CONVOLUTIONS[node.target]
    operands = dict(_OPERANDS)
    operands.update(zip(_OPERANDS, node.args[2:]))
    operands.update(node.kwargs)
    return (
        node.args[0],
        node.args[1],
        operands["bias"],
        _per_dimension(operands["stride"], rank),
        _per_dimension(operands["padding"], rank),
        _per_dimension(operands["dilation"], rank),
        False,  # transposed
        [0] * rank,  # output_padding
        operands["groups"],
    )


def _per_dimension(value: int | list[int] | tuple[int, ...], rank: int) -> list[int]:
    """conv*d's schema turns one int into one value per spatial dimension (``SymInt[2]``); convolution's
    takes the list it is given."""
    return [value] * rank if isinstance(value, int) else list(value)
