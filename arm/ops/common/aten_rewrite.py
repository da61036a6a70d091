"""Rewriting ATen nodes before quantization: new nodes carry fake values, so annotators can read shapes.

Used by the ``decompose_for_quantization`` hooks of ops whose pieces must be quantized one by one
(scaled_dot_product_attention, unbind).
"""

from __future__ import annotations

import torch
from torch.fx import Node
from torch.fx.node import Argument, map_arg


class AtenBuilder:
    """Inserts ATen calls before ``anchor``, each with ``meta["val"]`` computed on the fake inputs."""

    def __init__(self, anchor: Node):
        self.anchor = anchor
        self.graph = anchor.graph
        self.inserted: list[Node] = []

    def call(self, target: torch._ops.OpOverload, *args: Argument, **kwargs: Argument) -> Node:
        with self.graph.inserting_before(self.anchor):
            node = self.graph.call_function(target, args, kwargs)
        fake_args = map_arg(args, lambda arg: arg.meta["val"])
        fake_kwargs = map_arg(kwargs, lambda arg: arg.meta["val"])
        node.meta["val"] = target(*fake_args, **fake_kwargs)
        for key in ("stack_trace", "nn_module_stack", "source_fn_stack"):
            if key in self.anchor.meta:
                node.meta[key] = self.anchor.meta[key]
        self.inserted.append(node)
        return node

    def constant(self, name: str, tensor: torch.Tensor) -> Node:
        """A buffer of the graph's module, read by a get_attr node (named after ``anchor``)."""
        module = self.graph.owning_module
        attribute = f"{self.anchor.name}_{name}"
        module.register_buffer(attribute, tensor)
        with self.graph.inserting_before(self.anchor):
            node = self.graph.get_attr(attribute)
        node.meta["val"] = self.anchor.meta["val"].fake_mode.from_tensor(tensor)
        return node


def scaled_product_plus_input(node: Node, product: torch._ops.OpOverload) -> None:
    """``beta * input + alpha * product(a, b)`` (addmm with mm, baddbmm with bmm) as ATen calls replacing
    ``node``, leaving out factors of 1 and, for a beta of 0, the input (torch then ignores it, NaNs
    included)."""
    bias, lhs, rhs = node.args[:3]
    beta, alpha = node.kwargs.get("beta", 1), node.kwargs.get("alpha", 1)
    build = AtenBuilder(node)
    result = build.call(product, lhs, rhs)
    if alpha != 1:
        result = build.call(torch.ops.aten.mul.Tensor, result, float(alpha))
    if beta != 0:
        scaled_bias = bias if beta == 1 else build.call(torch.ops.aten.mul.Tensor, bias, float(beta))
        result = build.call(torch.ops.aten.add.Tensor, result, scaled_bias)
    node.replace_all_uses_with(result)


def shape(node: Node) -> tuple[int, ...]:
    return tuple(int(extent) for extent in node.meta["val"].shape)


# Ops that pass a tensor's layout on to a view after them (a transpose of a tensor laid out the other way
# round is contiguous).
_LAYOUT_CARRIERS = (
    torch.ops.aten.transpose.int,
    torch.ops.aten.permute.default,
    torch.ops.aten.view.default,
    torch.ops.aten._unsafe_view.default,
    torch.ops.aten.reshape.default,
)
_VIEWS = (torch.ops.aten.view.default, torch.ops.aten._unsafe_view.default)


def views_downstream(node: Node, kinds: tuple[torch._ops.OpOverload, ...] = _VIEWS) -> list[Node]:
    """The views (nodes of ``kinds``) that read ``node`` through transposes and views, whose validity
    hangs on its layout."""
    views: list[Node] = []
    pending, seen = list(node.users), set()
    while pending:
        user = pending.pop()
        if user in seen or user.op != "call_function" or user.target not in _LAYOUT_CARRIERS:
            continue
        seen.add(user)
        if user.target in kinds:
            views.append(user)
        pending.extend(user.users)
    return views


def reshape_views_downstream(node: Node) -> list[Node]:
    """Makes the views that read ``node`` through transposes and views reshapes; returns them.

    A decomposition changes the memory layout of what it replaces: CPU sdpa returns its [B, H, S, D]
    result laid out as [B, S, H, D], so torch.export traced BART's ``sdpa(...).transpose(1, 2).reshape(...)``
    as a view of a contiguous tensor, and after the matmul decomposition the same view of the now
    transposed tensor failed in calibration ("view size is not compatible with input tensor's size and
    stride"). A reshape computes the same values whatever the layout; re-export makes it a view again
    where the tensor is contiguous.
    """
    changed = views_downstream(node)
    for view in changed:
        view.target = torch.ops.aten.reshape.default
    return changed


def contiguous_before_views_downstream(node: Node) -> list[Node]:
    """Puts a contiguous clone in front of each view that reads ``node`` through transposes and views.

    For a program that is not traced again before to_edge (the float path): to_edge's decomposition
    traces it again, and a reshape becomes a view in the trace that keeps sdpa whole. A clone to the contiguous
    format is a core ATen op that every trace keeps, and its result can be viewed whatever the layout
    of what it copies (on the delegate it is an identity; TOSA tensors have no layout).
    """
    views = views_downstream(node, _VIEWS + (torch.ops.aten.reshape.default,))
    for view in views:
        source = view.args[0]
        with view.graph.inserting_before(view):
            clone = view.graph.call_function(
                torch.ops.aten.clone.default, (source,), {"memory_format": torch.contiguous_format}
            )
        clone.meta.update({key: value for key, value in source.meta.items() if key != "val"})
        clone.meta["val"] = source.meta["val"].clone(memory_format=torch.contiguous_format)
        view.replace_input_with(source, clone)
    return views


# Integer types whose promotion to float is made explicit: their codes are an exact int8 grid of step 1
# (arm/ops/to_copy.py). Wider ones are left to to_edge's cast, which stays on the CPU: quantized, their
# int32 -> int8 RESCALE made Vela 5.2.0 refuse the whole U55 partition (``x + ids / 4`` with int64 ids:
# "Non-passthrough operation (Add) could not run on NPU"), where before only the cast and the division
# stayed on the CPU.
_PROMOTED_EXPLICITLY = (torch.int8, torch.uint8)


def cast_integer_operands_to_result_type(node: Node) -> list[Node]:
    """Casts each int8 or uint8 tensor operand of ``node`` whose result is a float to that float type,
    with an explicit ``aten._to_copy`` before ``node``; returns the casts.

    Type promotion (``int8_tensor // 9.5`` is float) is implicit at export, and to_edge writes it as a cast
    only after quantization, when nothing quantizes the cast's float result any more: the integer-to-float
    cast and all behind it stayed on the CPU in the INT profile. Made explicit at annotation, the cast
    gets an observed grid (arm/ops/to_copy.py: one RESCALE of the integers onto it), and ``node`` reads a
    quantized operand."""
    result = node.meta.get("val")
    if not (isinstance(result, torch.Tensor) and result.dtype.is_floating_point):
        return []
    build = AtenBuilder(node)
    args = list(node.args)
    for index, arg in enumerate(args):
        value = arg.meta.get("val") if isinstance(arg, Node) else None
        if isinstance(value, torch.Tensor) and value.dtype in _PROMOTED_EXPLICITLY:
            args[index] = build.call(torch.ops.aten._to_copy.default, arg, dtype=result.dtype)
    node.args = tuple(args)
    return build.inserted
