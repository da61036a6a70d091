"""What a support rule or a lowering says about an FX node: its name, tensor arguments and dtype.

The lowest layer of arm/ops/common: it imports nothing of ours, so the registry and the support rules can
both use it without importing each other.
"""

from __future__ import annotations

import torch
from torch.fx import Node


def describe(node: Node) -> str:
    """``node conv (aten.convolution.default)``: how every reason starts."""
    return f"node {node.name} ({getattr(node.target, '__name__', node.target)})"


def tensor_args(node: Node) -> list[Node]:
    return [arg for arg in node.args if isinstance(arg, Node)]


def dtype_of(node: Node) -> torch.dtype | None:
    """The node's tensor dtype; a multi-result op (native batch norm) has its first result's."""
    value = node.meta.get("val")
    if isinstance(value, (tuple, list)) and value:
        value = value[0]
    return value.dtype if isinstance(value, torch.Tensor) else None
