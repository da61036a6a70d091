"""Ties nodes of the edge graph (and its delegated sub-graphs) back to the torch graphs they came from.

Export, pt2e and to_edge rename nodes (``conv2d_3`` becomes ``aten_convolution_default_3``), but each
rewrite records the node it came from in ``node.meta["from_node"]``. Walking that chain to the first
name the quantized torch graph has gives the layer a node belongs to.
"""

from __future__ import annotations

from typing import Collection, Iterator

import torch
from torch.fx import Node

_QUANTIZE_NAMES = ("quantize_per_tensor", "quantize_per_channel")
_DEQUANTIZE_NAMES = ("dequantize_per_tensor", "dequantize_per_channel")


def _target_name(node: Node) -> str:
    target = node.target
    return getattr(target, "__name__", None) or str(target)


def op_name(node: Node) -> str:
    """``aten.convolution.default`` for an edge or ATen op; the function name otherwise."""
    target = node.target
    name = getattr(target, "name", None)
    text = name() if callable(name) else str(target)
    return text.replace("::", ".")


def is_quantize(node: Node) -> bool:
    return node.op == "call_function" and any(name in str(node.target) for name in _QUANTIZE_NAMES) and not is_dequantize(node)


def is_dequantize(node: Node) -> bool:
    return node.op == "call_function" and any(name in str(node.target) for name in _DEQUANTIZE_NAMES)


def node_kind(node: Node) -> str:
    if is_dequantize(node):
        return "dequantize"
    if is_quantize(node):
        return "quantize"
    return "compute"


def source_names(node: Node) -> Iterator[str]:
    """The node's own name, then the names of the nodes it was made from, nearest first."""
    yield node.name
    sources = node.meta.get("from_node") or []
    source = sources[0] if sources else None
    while source is not None:
        yield source.name
        source = source.from_node[0] if source.from_node else None


def origin(node: Node, names: Collection[str]) -> str | None:
    """The first name in ``node``'s provenance that is in ``names``.

    When the provenance stops short of ``names`` (a graph exported from a module that wraps the
    quantized one records no link into it), names are compared without ``_default``: pt2e names a node
    after the op overload (``quantize_per_tensor_default_1``), export after the op (``quantize_per_tensor_1``).
    """
    exact = next((name for name in source_names(node) if name in names), None)
    if exact is not None:
        return exact
    by_op = {_without_overload(name): name for name in names}
    return next((by_op[key] for key in map(_without_overload, source_names(node)) if key in by_op), None)


def _without_overload(name: str) -> str:
    return name.replace("_default", "")


def call_functions(graph_module: torch.fx.GraphModule) -> list[Node]:
    return [node for node in graph_module.graph.nodes if node.op == "call_function"]
