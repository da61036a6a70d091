"""Folds a normalization's per-channel scale into the linear layers that read it, before quantization.

RMSNorm (Llama's, nn.RMSNorm split by arm/ops/rms_norm.py) ends in ``normalized * weight``, a
multiplication by a constant vector along the channels, and in a decoder every reader of that product
is a linear layer (q, k and v; the MLP's gate and up; the LM head). ``linear(x * g, W, b)`` is
``linear(x, W * g, b)``: with the scale in the weights the multiplication goes, and with it an int8
tensor the NPU writes and reads (1,024 U55-128 cycles for Llama's [16, 64] tokens, five times) and
one rounding step. The fold is exact in float and happens before pt2e observes anything, so the
quantized model is the folded one.
"""

from __future__ import annotations

import torch
from torch.fx import GraphModule, Node

_MUL = torch.ops.aten.mul.Tensor
_LINEAR = torch.ops.aten.linear.default
_SLICE = torch.ops.aten.slice.Tensor
_ALIAS = torch.ops.aten.alias.default


def fold_norm_scales_into_linears(model: GraphModule) -> bool:
    """Rewrites every ``mul(x, g)`` whose ``g`` is a constant channel vector and whose readers are all
    linear layers over those channels; returns whether it changed the graph."""
    changed = False
    for node in list(model.graph.nodes):
        folded = _foldable(model, node)
        if folded is None:
            continue
        x, scale = folded
        for linear in _linears_reading(node):
            weight = _constant(model, linear.args[1])
            with model.graph.inserting_before(linear):
                scaled = _add_constant(model, f"{linear.name}_folded_weight", weight * scale, like=linear.args[1])
            linear.args = (linear.args[0], scaled, *linear.args[2:])
        node.replace_all_uses_with(x)
        model.graph.erase_node(node)
        changed = True
    if changed:
        model.graph.eliminate_dead_code()
        model.recompile()
    return changed


def _foldable(model: GraphModule, node: Node) -> tuple[Node, torch.Tensor] | None:
    """(x, g as a [C] vector) for a foldable ``mul(x, g)`` or ``mul(g, x)``, else None."""
    if node.op != "call_function" or node.target is not _MUL or len(node.args) != 2 or node.kwargs:
        return None
    for x, other in (node.args, node.args[::-1]):
        scale = _constant(model, other)
        if not isinstance(x, Node) or scale is None or not scale.is_floating_point():
            continue
        channels = _channels(x)
        # Only a vector along the last axis (leading dims of 1): a scale varying along any other axis
        # is not a per-input-channel weight scale.
        if channels is None or scale.numel() != channels or any(size != 1 for size in scale.shape[:-1]):
            continue
        if scale.shape[-1:] != (channels,) or tuple(node.meta["val"].shape) != tuple(x.meta["val"].shape):
            continue
        if _only_linears_read(model, node, channels):
            return x, scale.reshape(channels)
    return None


def _only_linears_read(model: GraphModule, value: Node, channels: int) -> bool:
    """Every reader of ``value`` is a linear layer over its channels, directly or through aliases and
    slices of other axes (Llama's LM head reads the positions it keeps: ``hidden[:, -k:, :]``)."""
    if not value.users:
        return False
    for user in value.users:
        if _keeps_channels(user) and user.args[0] is value:
            if not _only_linears_read(model, user, channels):
                return False
            continue
        if user.op != "call_function" or user.target is not _LINEAR or user.args[0] is not value:
            return False
        weight = _constant(model, user.args[1]) if len(user.args) > 1 else None
        if weight is None or weight.dim() != 2 or weight.shape[1] != channels or value in user.args[1:]:
            return False
    return True


def _linears_reading(value: Node) -> list[Node]:
    linears: list[Node] = []
    for user in value.users:
        linears.extend(_linears_reading(user) if _keeps_channels(user) else [user])
    return linears


def _keeps_channels(node: Node) -> bool:
    """An alias, or a slice along any axis but the last (the channels the scale runs along)."""
    if node.op == "call_function" and node.target is _ALIAS:
        return True
    if node.op != "call_function" or node.target is not _SLICE:
        return False
    rank = node.args[0].meta["val"].dim()
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
    return dim % rank != rank - 1


def _channels(x: Node) -> int | None:
    value = x.meta.get("val")
    return int(value.shape[-1]) if isinstance(value, torch.Tensor) and value.dim() > 0 else None


def _constant(model: GraphModule, node: object) -> torch.Tensor | None:
    """The tensor a ``get_attr`` node reads (a parameter or buffer of the captured module), else None."""
    if not isinstance(node, Node) or node.op != "get_attr":
        return None
    value = model
    for part in node.target.split("."):
        value = getattr(value, part, None)
        if value is None:
            return None
    return value.detach() if isinstance(value, torch.Tensor) else None


def _add_constant(model: GraphModule, name: str, value: torch.Tensor, *, like: Node) -> Node:
    """A ``get_attr`` of a new buffer holding ``value``, with the metadata of ``like`` (same shape)."""
    attribute = name
    index = 0
    while hasattr(model, attribute):
        index += 1
        attribute = f"{name}_{index}"
    model.register_buffer(attribute, value.contiguous())
    node = model.graph.get_attr(attribute)
    node.meta = dict(like.meta)
    return node
