"""Inlines the regions an exported graph wraps only to switch a mode off for inference, before quantization.

``torch.export`` keeps a ``with torch.autocast(device_type, enabled=False):`` block as one
``higher_order.wrap_with_autocast`` node calling a submodule that holds the block's ops, and a
``with torch.no_grad():`` (or ``torch.enable_grad()``) block as one ``wrap_with_set_grad_enabled``
node. timm's EfficientViT runs its linear attention (``LiteMLA._attn``) in an autocast-disabled
block, with ``.float()`` casts, to keep it in float32 under mixed precision. pt2e's quantizer
annotates the top-level graph only, so every op in such a block stayed float: on EfficientViT-B0 the
attention's bmm, expand, view, slice, add and div were left on the CPU, in 5 partitions, 67% delegated.
A mode region inside another region also made the flow take the model for nested control flow and
leave all of it float.

Both modes are no-ops where the flow runs a model: it calibrates and runs it under no autocast, and
gradient mode never changes a forward value. So a region's ops compute the same moved into the
enclosing graph, where the quantizer sees them. A region with autocast *enabled* changes the dtype its
ops compute in and is left alone (its ops stay float and fall back to the CPU with a reason). A region
is inlined only when the enclosing graph reads its results by index (``getitem``), which is how export
writes every call of it.
"""

from __future__ import annotations

import dataclasses
import operator
from typing import Callable

import torch
from torch.fx import GraphModule, Node


@dataclasses.dataclass(frozen=True)
class _RegionKind:
    """Where a wrapping higher-order op keeps its body and operands, and when inlining it is a no-op."""

    body_arg: int
    first_operand_arg: int
    is_inference_noop: Callable[[Node], bool]


# wrap_with_autocast(device_type, dtype, enabled, cache_enabled, body, *operands)
# wrap_with_set_grad_enabled(enabled, body, *operands)
_REGION_KINDS: dict[object, _RegionKind] = {
    torch.ops.higher_order.wrap_with_autocast: _RegionKind(4, 5, lambda node: node.args[2] is False),
    torch.ops.higher_order.wrap_with_set_grad_enabled: _RegionKind(1, 2, lambda node: True),
}


def inline_mode_regions(model: GraphModule) -> bool:
    """Moves the ops of every autocast-disabled and grad-mode region into ``model``'s graph, regions
    nested in them too; returns whether it changed the graph."""
    changed = False
    # A region inlined may hold another one: look again until none is left.
    while region := next((node for node in model.graph.nodes if _is_inlinable(model, node)), None):
        _inline(model, region, _REGION_KINDS[region.target])
        changed = True
    if changed:
        model.recompile()
    return changed


def _is_inlinable(model: GraphModule, node: Node) -> bool:
    kind = _REGION_KINDS.get(node.target) if node.op == "call_function" else None
    if kind is None or node.kwargs or len(node.args) <= kind.body_arg:
        return False
    body = node.args[kind.body_arg]
    return (
        kind.is_inference_noop(node)
        and isinstance(body, Node)
        and body.op == "get_attr"
        and isinstance(_attribute(model, body.target), GraphModule)
        and all(user.target is operator.getitem for user in node.users)
    )


def _inline(model: GraphModule, region: Node, kind: _RegionKind) -> None:
    body_node = region.args[kind.body_arg]
    body: GraphModule = _attribute(model, body_node.target)
    operands = list(region.args[kind.first_operand_arg :])
    placeholders = [node for node in body.graph.nodes if node.op == "placeholder"]
    if len(placeholders) != len(operands):
        raise ValueError(
            f"{region.name}: the region's body {body_node.target} takes {len(placeholders)} inputs but is "
            f"called with {len(operands)}"
        )
    copied: dict[Node, object] = dict(zip(placeholders, operands))
    results: tuple = ()
    with model.graph.inserting_before(region):
        for node in body.graph.nodes:
            if node.op == "placeholder":
                continue
            if node.op == "output":
                results = tuple(node.args[0]) if isinstance(node.args[0], (tuple, list)) else (node.args[0],)
                break
            if node.op == "get_attr":
                copied[node] = model.graph.get_attr(_adopt(model, body, node.target))
                copied[node].meta = dict(node.meta)
                continue
            copied[node] = model.graph.node_copy(node, lambda argument: copied[argument])
    for user in list(region.users):
        result = results[user.args[1]]
        user.replace_all_uses_with(copied[result] if isinstance(result, Node) else result)
        model.graph.erase_node(user)
    model.graph.erase_node(region)
    if not body_node.users:
        model.graph.erase_node(body_node)
        if not any(node.op == "get_attr" and node.target == body_node.target for node in model.graph.nodes):
            model.delete_submodule(body_node.target)


def _adopt(model: GraphModule, body: GraphModule, target: str) -> str:
    """Gives ``model`` the body's attribute ``target`` (a constant or a nested region's body) under a
    fresh name and returns that name."""
    value = _attribute(body, target)
    base = target.replace(".", "_")
    name, index = base, 0
    while hasattr(model, name):
        index += 1
        name = f"{base}_{index}"
    if isinstance(value, torch.nn.Module):
        model.add_submodule(name, value)
    else:
        setattr(model, name, value)
    return name


def _attribute(module: torch.nn.Module, target: str) -> object:
    for part in target.split("."):
        module = getattr(module, part)
    return module
