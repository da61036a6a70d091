"""Masked softmax inputs: ``softmax(masked_fill(scores, hidden, -inf))``, the form attention masks take.

A mask that hides keys (causal, padding) fills the hidden scores with -inf before the softmax. In INT
the filled tensor cannot be quantized (-inf has no place on an int8 grid, and a finite stand-in would
give hidden keys a probability), so the pair is quantized and lowered as one: the scores keep their
observed grid, the masked_fill's output stays float between the two (no quantize), and the softmax
lowering reads the scores and the mask itself (arm/ops/softmax.py). This module names the pattern
for the three places that must agree on it: masked_fill's and softmax's annotation, support and
lowering.
"""

from __future__ import annotations

import math

import torch
from torch.fx import Node

from arm.ops.common.node_info import dtype_of

# A fill at or below this hides a key as well as -inf does: exp(fill - max) is 0 in float32 for any
# finite max of attention scores (transformers fills with torch.finfo(float32).min).
HIDING_FILL = -1.0e30

_MASKED_FILL_TARGETS = ("aten.masked_fill.Scalar",)
_SOFTMAX_TARGETS = ("aten.softmax.int", "aten._softmax.default")


def _target_name(node: Node) -> str:
    target = node.target
    if not isinstance(target, torch._ops.OpOverload):
        target = getattr(target, "_op", target)  # an edge operator wraps its ATen overload
    return str(target)


def is_masked_fill(node: Node) -> bool:
    return node.op == "call_function" and _target_name(node) in _MASKED_FILL_TARGETS


def is_softmax(node: Node) -> bool:
    return node.op == "call_function" and _target_name(node) in _SOFTMAX_TARGETS


def hides_keys(masked_fill: Node) -> bool:
    """True when ``masked_fill`` hides keys of a last-axis softmax: a bool mask, a fill of -inf (or
    below ``HIDING_FILL``), float scores, and a softmax over the last axis as its only user."""
    if not is_masked_fill(masked_fill) or len(masked_fill.args) < 3:
        return False
    scores, mask, fill = masked_fill.args[:3]
    users = list(masked_fill.users)
    if not (isinstance(scores, Node) and isinstance(mask, Node) and isinstance(fill, (int, float))):
        return False
    if not (math.isinf(fill) and fill < 0 or fill <= HIDING_FILL):
        return False
    if dtype_of(mask) != torch.bool or dtype_of(scores) not in (torch.float32, None):
        return False
    if len(users) != 1 or not is_softmax(users[0]):
        return False
    softmax = users[0]
    rank = len(softmax.meta["val"].shape)
    return rank > 0 and softmax.args[1] % rank == rank - 1


def masked_scores(softmax: Node) -> Node | None:
    """The masked_fill feeding ``softmax`` when the pair is one masked softmax, else None."""
    source = softmax.args[0]
    return source if isinstance(source, Node) and hides_keys(source) else None
