"""Removes copies that change nothing (a clone keeping the contiguous dim order), before partitioning.

to_edge decomposes ``reshape`` of a non-contiguous tensor (``x.transpose(1, 2).reshape(...)`` in
attention) into ``_clone_dim_order`` followed by a view. The quantizer annotated the reshape as one
op, so in the edge graph the clone sits between a dequantize and the view with no quantize of its
own: as an INT op it would have a float output and split the partition. A functional graph needs
no copy of a value, so such clones go; their users read the clone's input.

A clone that reads a graph input or writes a graph output stays (removing it would alias an input
with an output, which ExecuTorch's memory plan does not expect); arm.ops.clone lowers it if it is
quantized.
"""

from __future__ import annotations

from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import GraphModule, Node
from torch.fx.passes.infra.pass_base import PassBase, PassResult

# With dim order on (the flow's edge config), to_edge turns every clone into this one.
_CLONE = exir_ops.edge.dim_order_ops._clone_dim_order.default


class RemoveIdentityClonesPass(PassBase):
    """An edge transform pass (``to_edge_transform_and_lower(transform_passes=...)``): partitioners
    may not change the graph they are given."""

    def call(self, graph_module: GraphModule) -> PassResult:
        graph = graph_module.graph
        clones = [node for node in graph.nodes if _is_identity_clone(node)]
        for clone in clones:
            clone.replace_all_uses_with(clone.args[0])
            graph.erase_node(clone)
        if clones:
            graph_module.recompile()
        return PassResult(graph_module, modified=bool(clones))


def _is_identity_clone(node: Node) -> bool:
    if node.op != "call_function" or node.target is not _CLONE:
        return False
    dim_order = node.kwargs.get("dim_order")
    keeps_order = dim_order is None or list(dim_order) == list(range(len(node.meta["val"].shape)))
    touches_io = node.args[0].op == "placeholder" or any(user.op == "output" for user in node.users)
    return keeps_order and not touches_io
