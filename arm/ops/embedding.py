"""aten.embedding -> TOSA GATHER of the weight's rows; quantized, the output keeps the weight's grid.

On the Ethos-U85, where Vela 5.2.0 runs no GATHER, the lookup is a one-hot convolution instead
(EQUAL, CAST, CONV2D: arm/ops/common/gather.py), exact and on the NPU, or a copy of the int8 rows on
the CPU (arm/passes/quantized_table_lookup.py) where that costs less: when the ids come from outside
the delegate (a lookup of computed ids stays on the NPU, or the partition would split) and the
one-hot's estimated NPU cycles exceed the CPU copy's instructions (_LookupCosts, measured: bench/README.md
"Embedding: NPU or CPU, session 8"). The U55 has neither GATHER nor EQUAL: the lookup stays on the CPU
there.
"""

from __future__ import annotations

import dataclasses
import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

from arm.ops.common.gather import gather, index_value, indices_reason, one_hot_reason, one_hot_rows
from arm.ops.common.op_test_case import OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


@dataclasses.dataclass(frozen=True)
class _LookupCosts:
    """What an embedding costs either way, fitted to measurements (bench/README.md "Embedding: NPU or
    CPU, session 8"): Vela 5.2.0's U85-256 per-layer cycles of the one-hot lookup in Llama (16 ids, 256
    rows of 64) and BERT (16 ids, 512 rows of 64), and Cortex-M55 instructions of the CPU's int8 row
    copy (QEMU -icount, the runtime's embedding kernel: 1, 16 and 64 ids of 64 bytes). Instructions
    count as NPU cycles one for one (the CPU and NPU clocks taken as equal)."""

    # EQUAL of every id against every row position (3,072 cycles for 16 x 256).
    equal_cycles_per_element: float = 0.75
    # The one-hot CONV2D's int8 MACs per cycle (262,144 MACs in 2,848 cycles; BERT's 97).
    conv_macs_per_cycle: float = 92.0
    # The kernel call with its checks, and the delegate's wider input copy: Llama's and BERT's programs
    # execute 3,313 and 3,343 more instructions with their 16-id lookup on the CPU than with the one-hot,
    # less 16 rows at the cost below.
    cpu_fixed_instructions: float = 2100.0
    # Per 64 bytes of looked-up row: an embedding alone executes 2,312, 3,468 and 7,125 instructions for
    # 1, 16 and 64 ids of 64 bytes.
    cpu_instructions_per_64_bytes: float = 76.0

    def one_hot_cycles(self, ids: int, rows: int, width: int) -> float:
        return ids * rows * (self.equal_cycles_per_element + width / self.conv_macs_per_cycle)

    def cpu_instructions(self, ids: int, width: int) -> float:
        return self.cpu_fixed_instructions + ids * math.ceil(width / 64) * self.cpu_instructions_per_64_bytes


_COSTS = _LookupCosts()

# Ops that move or retype ids without computing them (the int64 ids' int32 cast among them): ids that
# reach the lookup only through these come from outside any delegate.
_PASS_THROUGH = frozenset({
    exir_ops.edge.dim_order_ops._to_dim_order_copy.default,
    exir_ops.edge.aten._to_copy.default,
    exir_ops.edge.aten.view_copy.default,
    exir_ops.edge.aten.squeeze_copy.dims,
    exir_ops.edge.aten.unsqueeze_copy.default,
    exir_ops.edge.aten.clone.default,
})  # fmt: skip


def support(node: Node, spec: TosaSpecification) -> str | None:
    weight, indices = node.args[:2]
    return first_reason(
        indices_reason(node, indices, spec, one_hot_on_u85=True),
        profile_reason(node, spec, [weight]),
        first_reason(one_hot_reason(node, weight, indices), _cpu_lookup_reason(node, weight, indices))
        if spec.has("u85")
        else None,
    )


def _cpu_lookup_reason(node: Node, weight: Node, indices: Node) -> str | None:
    """Why the U85 leaves a one-hot-capable lookup to the CPU: ids from outside, and a cheaper CPU copy."""
    if not _ids_from_outside(indices):
        return None
    rows, width = shape_of(weight)
    ids = math.prod(shape_of(indices))
    npu, cpu = _COSTS.one_hot_cycles(ids, rows, width), _COSTS.cpu_instructions(ids, width)
    if npu <= cpu:
        return None
    return (
        f"{describe(node)}: its {ids} ids come from outside the delegate, and copying their int8 rows on the CPU "
        f"(about {cpu:,.0f} Cortex-M55 instructions) costs less than the U85's one-hot lookup of the {rows}x{width} "
        f"table (about {npu:,.0f} NPU cycles; Vela 5.2.0 runs no GATHER there); the lookup stays on the CPU"
    )


def _ids_from_outside(indices: Node) -> bool:
    """Ids that no delegate computes: a graph input, moved or cast only. (Ids from constants were folded
    into constant rows before partitioning, arm/passes/fold_constants.py.)"""
    while indices.op == "call_function" and indices.target in _PASS_THROUGH:
        indices = indices.args[0]
    return indices.op == "placeholder"


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


class _LookupOfComputedIds(torch.nn.Module):
    """Rows picked by ids the graph computes (each position's best of 8 scores), as a decoder feeding
    its own prediction back would."""

    def __init__(self, count: int, width: int) -> None:
        super().__init__()
        self.table = torch.nn.Embedding(count, width)

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return self.table(torch.argmax(scores, dim=-1).to(torch.int32))


def _indices(seed: int, count: int, shape: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randint(0, count, shape, generator=generator, dtype=torch.int32),)


# The U55 has no GATHER, nor the EQUAL the U85's one-hot lookup is made of (arm/ops/common/gather.py).
_U55 = ("u55_INT",)

TEST_CASES = {
    "tokens": OpTestCase(seeded(0, _Embedding, 32, 16), _indices(0, 32, (1, 10)), cpu_targets=_U55),
    "batch_of_sequences": OpTestCase(seeded(1, _Embedding, 100, 8), _indices(1, 100, (3, 7)), cpu_targets=_U55),
    "flat_indices": OpTestCase(seeded(2, _Embedding, 10, 24), _indices(2, 10, (12,)), cpu_targets=_U55),
    # Llama's table and prompt (256 x 64, 16 ids from the input): on the U85 the CPU's int8 row copy
    # costs less than the one-hot lookup (embedding._LookupCosts), so it stays on the CPU there too.
    "vocabulary_prompt": OpTestCase(
        seeded(4, _Embedding, 256, 64), _indices(4, 256, (1, 16)), cpu_targets=("u55_INT", "u85_INT")
    ),
    # The same table looked up by ids the graph computes: the one-hot lookup keeps the partition whole on
    # the U85 (the U55 runs no ARGMAX).
    "computed_ids": OpTestCase(
        seeded(5, _LookupOfComputedIds, 256, 64), random_inputs(5, (1, 16, 8)), cpu_targets=_U55
    ),
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
