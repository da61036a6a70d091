"""aten.embedding -> TOSA GATHER of the weight's rows; quantized, the output keeps the weight's grid.

On the Ethos-U85, where Vela 5.2.0 runs no GATHER, the lookup is a one-hot convolution instead
(EQUAL, CAST, CONV2D: arm/ops/common/gather.py), exact and on the NPU. The U55 has neither GATHER nor
EQUAL: the lookup stays on the CPU there.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

from arm.ops.common.gather import gather, index_value, indices_reason, one_hot_reason, one_hot_rows
from arm.ops.common.op_test_case import OpTestCase, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import first_reason, profile_reason
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    weight, indices = node.args[:2]
    return first_reason(
        indices_reason(node, indices, spec, one_hot_on_u85=True),
        profile_reason(node, spec, [weight]),
        one_hot_reason(node, weight, indices) if spec.has("u85") else None,
    )


def annotate_embedding(node: Node, config: QuantizationConfig) -> None:
    """The table is quantized per tensor like an activation, so the looked-up rows share its grid."""
    weight = node.args[0]
    annotate(node, {weight: config.activation}, SharedQuantizationSpec((weight, node)))


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    weight, indices = node.args[:2]
    if ctx.spec.has("u85"):
        ids = index_value(ctx, indices, 1, name=f"{node.name}_indices")
        rows = one_hot_rows(ctx, node, weight, ids, name=f"{node.name}_rows")
        return reshape(ctx.graph, rows, shape_of(node), name=node.name)
    table = ctx.value(weight)
    if ctx.spec.is_int:
        table = requantize(ctx.graph, table, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    rows, width = shape_of(weight)
    table = reshape(ctx.graph, table, (1, rows, width), name=f"{node.name}_table")
    picked = gather(ctx, table, index_value(ctx, indices, 1, name=f"{node.name}_indices"), name=f"{node.name}_rows")
    return reshape(ctx.graph, picked, shape_of(node), name=node.name)


class _Embedding(torch.nn.Module):
    def __init__(self, count: int, width: int) -> None:
        super().__init__()
        self.table = torch.nn.Embedding(count, width)

    def forward(self, indices: torch.Tensor) -> torch.Tensor:
        return self.table(indices)


def _indices(seed: int, count: int, shape: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randint(0, count, shape, generator=generator, dtype=torch.int32),)


# The U55 has no GATHER, nor the EQUAL the U85's one-hot lookup is made of (arm/ops/common/gather.py).
_U55 = ("u55_INT",)

TEST_CASES = {
    "tokens": OpTestCase(seeded(0, _Embedding, 32, 16), _indices(0, 32, (1, 10)), cpu_targets=_U55),
    "batch_of_sequences": OpTestCase(seeded(1, _Embedding, 100, 8), _indices(1, 100, (3, 7)), cpu_targets=_U55),
    "flat_indices": OpTestCase(seeded(2, _Embedding, 10, 24), _indices(2, 10, (12,)), cpu_targets=_U55),
    # 1100 x 64 codes: more table than the U85's one-hot lookup reads per call (common/gather.py).
    "large_table": OpTestCase(
        seeded(3, _Embedding, 1100, 64),
        _indices(3, 1100, (1, 4)),
        cpu_targets=("u85_INT",),
        targets=("tosa_INT", "u85_INT"),
    ),
}

OP = ArmOp(
    name="embedding",
    edge_targets=(exir_ops.edge.aten.embedding.default,),
    aten_targets=(torch.ops.aten.embedding.default,),
    support=support,
    annotate=annotate_embedding,
    lower=lower,
    test_cases=TEST_CASES,
)
