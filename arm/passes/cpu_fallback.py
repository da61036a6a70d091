"""How a pass tells the partitioner that a node must stay on the CPU, and why.

A pass that sees a node cannot be delegated (an int64 constant beyond int32, say) writes the reason into
the node's metadata; the partitioner reports it like a support rule's reason. Passes run before the
partitioner, and the metadata is their only channel to it.
"""

from __future__ import annotations

from torch.fx import Node

_KEY = "arm_cpu_reason"


def keep_on_cpu(node: Node, reason: str) -> None:
    node.meta[_KEY] = reason


def cpu_reason(node: Node) -> str | None:
    return node.meta.get(_KEY)
