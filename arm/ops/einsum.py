"""aten.einsum (``torch.einsum(equation, *operands)``), before quantization, as torch's own permutes, reshapes and bmm.

torch.export keeps einsum whole (its decomposition is CompositeImplicitAutograd), pt2e annotated nothing
in it, and to_edge then split it into permutes, views and a bmm that nobody had quantized: Funnel's
relative attention (``bind,bjnd->bnij`` and five more equations, 15 einsums) kept 12 bmms, 48 permutes
and their views float on the CPU, in 7 partitions (55.4% delegated on tosa-INT). Before annotation
(``decompose_for_quantization``) the node is replaced by the ATen ops torch itself computes it with
(traced once on fake operands of its shapes), so each is quantized and lowered by its own file:
matmul.py for the bmm, permute.py, view.py, unsqueeze.py. The trace's views become reshapes: after
quantization a view may read a tensor whose layout changed (aten_rewrite.reshape_views_downstream).
In FP, to_edge's own split is lowered by those ops' files, so no edge operator is left to lower here.
"""

from __future__ import annotations

import torch
from torch.fx import Graph, Node
from torch.fx.experimental.proxy_tensor import make_fx

from arm.ops.common.arm_op import decomposed_op
from arm.ops.common.aten_rewrite import AtenBuilder
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs, seeded

_VIEWS = (torch.ops.aten.view.default, torch.ops.aten._unsafe_view.default)


def _torch_decomposition(equation: str, operands: list[Node]) -> Graph:
    """The ATen graph torch computes ``einsum(equation, ...)`` with, for operands of these shapes and dtypes."""
    examples = [torch.empty(operand.meta["val"].shape, dtype=operand.meta["val"].dtype) for operand in operands]
    return make_fx(lambda *xs: torch.einsum(equation, *xs), tracing_mode="fake")(*examples).graph


def _is_identity_permute(node: Node) -> bool:
    return node.target is torch.ops.aten.permute.default and list(node.args[1]) == list(range(len(node.args[1])))


def decompose(node: Node) -> None:
    equation, operands = node.args[0], list(node.args[1])
    if not all(isinstance(operand, Node) and "val" in operand.meta for operand in operands):
        return  # nothing to trace it on: leave it to to_edge
    build = AtenBuilder(node)
    replayed: dict[Node, Node] = {}
    placeholders = iter(operands)
    for traced in _torch_decomposition(equation, operands).nodes:
        if traced.op == "placeholder":
            replayed[traced] = next(placeholders)
        elif traced.op == "call_function":
            args = torch.fx.node.map_arg(traced.args, lambda arg: replayed[arg])
            kwargs = torch.fx.node.map_arg(traced.kwargs, lambda arg: replayed[arg])
            if _is_identity_permute(traced):
                replayed[traced] = args[0]
            elif traced.target in _VIEWS:
                replayed[traced] = build.call(torch.ops.aten.reshape.default, *args)
            else:
                replayed[traced] = build.call(traced.target, *args, **kwargs)
        elif traced.op == "output":
            (result,) = torch.fx.node.map_arg(traced.args, lambda arg: replayed[arg])
            if result in operands:
                result = build.call(torch.ops.aten.clone.default, result)  # an equation that only renames
            node.replace_all_uses_with(result)


def relative_scores(queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """Funnel's content scores: [B, I, N, D] queries by [B, J, N, D] keys, per head."""
    return torch.einsum("bind,bjnd->bnij", queries, keys)


def attention_output(scores: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """Funnel's mixing: [B, N, I, J] weights by [B, J, N, D] values back to [B, I, N, D]."""
    return torch.einsum("bnij,bjnd->bind", torch.softmax(scores, dim=-1), values)


class HeadProjection(torch.nn.Module):
    """A weight read by einsum (MobileNetV4's multi-query attention: ``bnhv,dhv->bdn``)."""

    def __init__(self, heads: int = 2, width: int = 4, out: int = 6):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(out, heads, width) / width)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.einsum("bnhv,dhv->bdn", x, self.weight)


def reduced_product(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    """A row-wise dot product (``ij,ij->i``) next to a transpose-only equation."""
    return torch.einsum("ij,ij->i", x, y).unsqueeze(-1) + torch.einsum("ij->ji", x).sum(0, keepdim=True).t()


TEST_CASES = {
    "relative_scores": OpTestCase(FunctionModule(relative_scores), random_inputs(0, (1, 8, 4, 16), (1, 12, 4, 16))),
    "attention_output": OpTestCase(FunctionModule(attention_output), random_inputs(1, (1, 4, 8, 12), (1, 12, 4, 16))),
    "weight_operand": OpTestCase(seeded(2, HeadProjection), random_inputs(2, (1, 10, 2, 4))),
    "reduced_product": OpTestCase(FunctionModule(reduced_product), random_inputs(3, (6, 8), (6, 8))),
}

OP = decomposed_op("einsum", (torch.ops.aten.einsum.default,), decompose, TEST_CASES)
