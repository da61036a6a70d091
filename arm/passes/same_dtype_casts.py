"""Casts of a float tensor to the dtype it already has go before quantization.

Llama's RMSNorm (transformers' LlamaRMSNorm) upcasts its input, ``x.to(torch.float32)``, which for a
float32 model is the identity. pt2e still observes the cast's output as a tensor of its own, so the
quantized graph moves the tokens from one int8 grid onto another: a RESCALE of every element (the
embedding's output onto the first norm's input grid, 1,520 U55-128 cycles for Llama's [16, 64]).
Without the cast its readers share its input's grid. A cast that reads a graph input or writes a graph
output stays (ExecuTorch's memory plan does not expect an input aliasing an output).
"""

from __future__ import annotations

import torch
from torch.fx import GraphModule, Node

_CASTS = (torch.ops.aten.to.dtype, torch.ops.aten._to_copy.default)
# Keyword arguments that leave the values and the layout alone.
_HARMLESS_KWARGS = frozenset({"dtype", "non_blocking", "copy", "memory_format", "layout", "device"})


def remove_same_dtype_casts(model: GraphModule) -> bool:
    """Lets the readers of every identity float cast read its input; returns whether it changed the graph."""
    casts = [node for node in model.graph.nodes if _is_identity_float_cast(node)]
    for cast in casts:
        cast.replace_all_uses_with(cast.args[0])
        model.graph.erase_node(cast)
    if casts:
        model.recompile()
    return bool(casts)


def _is_identity_float_cast(node: Node) -> bool:
    if node.op != "call_function" or node.target not in _CASTS or not node.args:
        return False
    source = node.args[0]
    if not isinstance(source, Node) or source.op == "placeholder" or any(user.op == "output" for user in node.users):
        return False
    if set(node.kwargs) - _HARMLESS_KWARGS or node.kwargs.get("memory_format") not in (None, torch.preserve_format):
        return False
    before, after = source.meta.get("val"), node.meta.get("val")
    if not (isinstance(before, torch.Tensor) and isinstance(after, torch.Tensor)):
        return False
    return (
        before.is_floating_point()
        and before.dtype == after.dtype
        and before.device == after.device
        and tuple(before.shape) == tuple(after.shape)
    )
