"""Node provenance that costs what a pass costs, not what the history before it cost.

Every torch.fx pass that re-creates a node records where it came from: ``node.meta["from_node"]`` gets a
``torch.fx.traceback.NodeSource`` whose own ``from_node`` is a ``copy.deepcopy`` of the old node's whole
chain. A chain grows by one level per pass (export, pt2e, re-export, executorch's decompositions, its
~10 edge passes, lowering, serialization), so each pass copies a longer history for every node: on
MobileNetV2 a quarter of the flow's CPU time went into those copies (14.2 s -> 10.6 s without them).

The history below the newest level never changes once written, so it can be shared instead of copied:
a new ``NodeSource`` takes a fresh list holding the old node's sources, the same objects. The chains
read exactly as before (same names, passes and actions; ``to_dict`` equal), arm.report walks them as
before, and the .pte does not change (nothing in it comes from provenance).
"""

from __future__ import annotations

import contextlib
import inspect
from typing import Iterator

from torch.fx import traceback as fx_traceback

_EXPECTED_PARAMETERS = ("self", "node", "pass_name", "action")


def _shares_history(copying_init):
    def init(self, node, pass_name: str = "", action=None) -> None:
        copying_init(self, None, pass_name, action)  # validates and stores pass name and action
        if node:
            self.node_info = self.NodeInfo(name=node.name, target=str(node.target), graph_id=id(node.graph))
            # A new list (torch's observers append to a node's own list), over the same sources.
            self.from_node = list(node.meta.get("from_node", ()))

    return init


@contextlib.contextmanager
def sharing_node_provenance() -> Iterator[bool]:
    """Within the block, new ``NodeSource`` records share their history; yields whether it could.

    Only ``NodeSource`` of the shape this was written against (torch 2.13) is changed; another torch
    keeps its own behaviour, which is slower and otherwise the same.
    """
    node_source = fx_traceback.NodeSource
    copying_init = node_source.__init__
    parameters = tuple(inspect.signature(copying_init).parameters)
    if parameters != _EXPECTED_PARAMETERS or not hasattr(node_source, "NodeInfo"):
        yield False
        return
    node_source.__init__ = _shares_history(copying_init)
    try:
        yield True
    finally:
        node_source.__init__ = copying_init
