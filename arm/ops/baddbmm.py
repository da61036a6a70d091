"""aten.baddbmm (beta * input + alpha * batch1 @ batch2), before quantization, as bmm, mul and add.

Bloom's attention adds its ALiBi position biases this way: ``alibi.baddbmm(q, k, beta=1, alpha=1/sqrt(d))``.
pt2e annotated nothing in the whole node, and to_edge then split it into bmm, mul and add that nobody
had quantized: the two score products of a 2-layer Bloom and what they feed stayed float on the CPU, in
3 partitions. Before annotation (``decompose_for_quantization``) the node becomes aten.bmm, a mul by
each factor other than 1 and the add, each quantized on its own grid and lowered by matmul.py, mul.py
and add.py, as addmm is. In FP, to_edge's own split into bmm, mul and add is lowered by those ops'
files, so no edge operator is left to lower here.
"""

from __future__ import annotations

import torch
from torch.fx import Node

from arm.ops.common.arm_op import decomposed_op
from arm.ops.common.aten_rewrite import scaled_product_plus_input
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs


def decompose(node: Node) -> None:
    """baddbmm -> add(mul(bmm(batch1, batch2), alpha), mul(input, beta)), leaving out factors of 1 and a beta of 0."""
    scaled_product_plus_input(node, torch.ops.aten.bmm.default)


def alibi_scores(bias: torch.Tensor, queries: torch.Tensor, keys: torch.Tensor) -> torch.Tensor:
    """Bloom's form: per-head position biases [B*H, 1, S] broadcast over the scaled score rows."""
    return bias.baddbmm(queries, keys, beta=1.0, alpha=0.25)


def scaled(bias: torch.Tensor, lhs: torch.Tensor, rhs: torch.Tensor) -> torch.Tensor:
    return torch.baddbmm(bias, lhs, rhs, beta=0.5, alpha=2.0)


TEST_CASES = {
    "alibi_broadcast_bias": OpTestCase(
        FunctionModule(alibi_scores), random_inputs(0, (4, 1, 6), (4, 6, 16), (4, 16, 6))
    ),
    # Both factors, a full [B, M, N] input.
    "scaled": OpTestCase(FunctionModule(scaled), random_inputs(1, (2, 3, 5), (2, 3, 7), (2, 7, 5))),
}

OP = decomposed_op("baddbmm", (torch.ops.aten.baddbmm.default,), decompose, TEST_CASES)
