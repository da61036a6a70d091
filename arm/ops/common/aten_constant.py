"""Evaluating an ATen node that depends on nothing but the module's attributes (before quantization).

Attention masks are usually computed in the model from shapes alone (``arange`` comparisons, ``tril``
of ones); the flow folds them after quantization (arm/passes/fold_constants.py), but an op that must
know its mask while it is quantized (scaled_dot_product_attention's INT decomposition) evaluates it
here, on the ATen graph pt2e annotates.
"""

from __future__ import annotations

import operator

import torch
from torch.fx import Node
from torch.fx.node import map_arg


class _NotConstant(Exception):
    """Raised inside ``evaluate_constant`` when a node depends on an input or is not deterministic."""


def evaluate_constant(node: Node) -> torch.Tensor | None:
    """``node``'s value when it depends only on module attributes, shapes and deterministic ops, else None."""
    values: dict[Node, object] = {}
    try:
        result = _value(node, values)
    except _NotConstant:
        return None
    return result if isinstance(result, torch.Tensor) else None


def _value(node: Node, values: dict[Node, object]) -> object:
    if node in values:
        return values[node]
    if node.op == "get_attr":
        result = node.graph.owning_module
        for part in str(node.target).split("."):
            result = getattr(result, part)
    elif node.op == "call_function" and _is_deterministic(node.target):
        args, kwargs = map_arg((node.args, node.kwargs), lambda arg: _value(arg, values))
        with torch.no_grad():
            result = node.target(*args, **kwargs)
    else:
        raise _NotConstant(node.name)
    values[node] = result
    return result


def _is_deterministic(target: object) -> bool:
    if target is operator.getitem:
        return True
    if not isinstance(target, torch._ops.OpOverload):
        return False  # higher-order operators (control flow, grad-mode wrappers) are not evaluated
    return torch.Tag.nondeterministic_seeded not in target.tags
