"""``pow(x, 2)`` becomes ``x * x`` before quantization, the form arm/ops/rms_norm.py already gives nn.RMSNorm.

Llama's RMSNorm (transformers' LlamaRMSNorm, and the T5/Mistral/Gemma copies of it) writes its mean of
squares as ``x.pow(2).mean(-1)``. Quantized, pow is a 256-entry TABLE; the product of two int8 operands
is one MUL, which Vela 5.2.0 runs in half the cycles on the U55 and a fifth on the U85 ([16, 64] int8:
U55-128 1,520 -> 768, U85-256 1,248 -> 256). The rewrite is exact in float and happens before pt2e
observes anything, so the product gets the grid pow's output would have had; its integer result is
the exact square on that grid instead of a table entry rounded once (the same up to a rounding tie).
"""

from __future__ import annotations

import torch
from torch.fx import GraphModule, Node

_POW = torch.ops.aten.pow.Tensor_Scalar
_MUL = torch.ops.aten.mul.Tensor


def squares_as_products(model: GraphModule) -> bool:
    """Rewrites every float ``pow(x, 2)``; returns whether it changed the graph."""
    squares = [node for node in model.graph.nodes if _is_float_square(node)]
    for square in squares:
        with model.graph.inserting_before(square):
            product = model.graph.call_function(_MUL, (square.args[0], square.args[0]))
        product.meta = dict(square.meta)
        square.replace_all_uses_with(product)
        model.graph.erase_node(square)
    if squares:
        model.recompile()
    return bool(squares)


def _is_float_square(node: Node) -> bool:
    if node.op != "call_function" or node.target is not _POW or len(node.args) != 2 or node.kwargs:
        return False
    base, exponent = node.args
    value = base.meta.get("val") if isinstance(base, Node) else None
    return (
        isinstance(exponent, (int, float))
        and exponent == 2
        and isinstance(value, torch.Tensor)
        and value.is_floating_point()
    )
