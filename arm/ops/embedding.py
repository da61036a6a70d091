"""aten.embedding -> TOSA GATHER of the weight's rows; quantized, the output keeps the weight's grid.

On the Ethos-U85, where Vela 5.2.0 runs no GATHER, the lookup is a one-hot convolution instead
(EQUAL, CAST, CONV2D: arm/ops/common/gather.py), exact and on the NPU, or a copy of the int8 rows on
the CPU (arm/passes/quantized_table_lookup.py) where that costs less: when the ids come from outside
the delegate (a lookup of computed ids stays on the NPU, or the partition would split) and the
one-hot's estimated NPU cycles exceed the CPU copy's instructions (_LookupCosts, measured: bench/README.md
"Embedding: NPU or CPU, session 8"). The U55 has neither GATHER nor EQUAL: its one-hot matrix comes
from a convolution of the ids (common/gather.py), and the one-hot lookup streams the whole table from
flash, so it takes only small tables (bench/README.md "BERT's lookup on the U55, session 11"); the
cost rule applies there whatever computes the ids, as the lookup was on the CPU before. A user who
wants one delegate and no CPU operator rather than the fewest cycles turns the cost rule off with
``lookups="npu"`` (EthosUCompileSpec; arm.compile ``--lookups npu``): every lookup the one-hot can
take then runs on the NPU (bench/README.md "Per-row chains of few rows, and BERT's lookup on the NPU, session 12").
"""

from __future__ import annotations

import dataclasses
import math
from typing import Callable

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

    # The U55-128's one-hot lookup (Vela 5.2.0, Ethos_U55_High_End_Embedded, Shared_Sram: constants stream
    # from flash at about a byte per cycle): the table's CONV2D is bound by reading its codes and each
    # output channel's bias and scale (656 cycles for 32x16, 15,136 for 256x64, 29,936 for 512x64); the
    # one-hot CONV2D by its int16 MACs (8,592 for 16 ids x 512 rows; 2,479 for 21 x 100), or by the
    # rows' biases when the ids are few (5,520 for 1 x 512).
    u55_flash_cycles_per_byte: float = 1.0
    u55_flash_bytes_per_channel: float = 10.0
    u55_one_hot_cycles_per_element: float = 1.1
    u55_one_hot_fixed_cycles: float = 200.0
    u55_one_hot_flash_bytes_per_row: float = 11.0

    def one_hot_cycles(self, ids: int, rows: int, width: int) -> float:
        return ids * rows * (self.equal_cycles_per_element + width / self.conv_macs_per_cycle)

    def u55_one_hot_cycles(self, ids: int, rows: int, width: int) -> float:
        table = (rows * width + width * self.u55_flash_bytes_per_channel) * self.u55_flash_cycles_per_byte
        one_hot = max(
            ids * rows * self.u55_one_hot_cycles_per_element + self.u55_one_hot_fixed_cycles,
            rows * self.u55_one_hot_flash_bytes_per_row * self.u55_flash_cycles_per_byte,
        )
        return table + one_hot

    def cpu_instructions(self, ids: int, width: int) -> float:
        return self.cpu_fixed_instructions + ids * math.ceil(width / 64) * self.cpu_instructions_per_64_bytes


_COSTS = _LookupCosts()


@dataclasses.dataclass(frozen=True)
class _OneHotLookup:
    """An NPU family's one-hot lookup: its estimated cycles, what it stands in for, and whether a lookup
    of ids computed inside the delegate keeps it whatever it costs (rather than split the partition)."""

    cycles: Callable[[int, int, int], float]
    stands_in_for: str
    kept_for_computed_ids: bool


_ONE_HOT_LOOKUPS = {
    "u85": _OneHotLookup(_COSTS.one_hot_cycles, "Vela 5.2.0 runs no GATHER there", kept_for_computed_ids=True),
    # Before its one-hot lookup every U55 lookup ran on the CPU: a dearer one still does, splitting no more
    # than it did; and ids the U55 cannot compute (argmax) reach the lookup from the CPU anyway.
    "u55": _OneHotLookup(_COSTS.u55_one_hot_cycles, "the U55 has no GATHER", kept_for_computed_ids=False),
}

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
    family = _one_hot_family(spec)
    return first_reason(
        indices_reason(node, indices, spec, one_hot_on_u85=True, one_hot_on_u55=True),
        profile_reason(node, spec, [weight]),
        first_reason(
            one_hot_reason(node, weight, indices, spec),
            None if spec.npu_lookups else _cpu_lookup_reason(node, weight, indices, family),
        )
        if family
        else None,
    )


def _one_hot_family(spec: TosaSpecification) -> str | None:
    """The NPU family whose one-hot lookup stands in for GATHER on ``spec``; None where GATHER runs."""
    return next((family for family in _ONE_HOT_LOOKUPS if spec.has(family)), None)


def _cpu_lookup_reason(node: Node, weight: Node, indices: Node, family: str) -> str | None:
    """Why an NPU leaves a one-hot-capable lookup to the CPU: a cheaper CPU copy, and (on the U85) ids
    from outside."""
    lookup = _ONE_HOT_LOOKUPS[family]
    from_outside = _ids_from_outside(indices)
    if lookup.kept_for_computed_ids and not from_outside:
        return None
    rows, width = shape_of(weight)
    ids = math.prod(shape_of(indices))
    npu, cpu = lookup.cycles(ids, rows, width), _COSTS.cpu_instructions(ids, width)
    if npu <= cpu:
        return None
    origin = "come from outside the delegate" if from_outside else "are computed"
    return (
        f"{describe(node)}: its {ids} ids {origin}, and copying their int8 rows on the CPU "
        f"(about {cpu:,.0f} Cortex-M55 instructions) costs less than the {family.upper()}'s one-hot lookup of the "
        f"{rows}x{width} table (about {npu:,.0f} NPU cycles; {lookup.stands_in_for}); the lookup stays on the CPU"
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
    if _one_hot_family(ctx.spec):
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


TEST_CASES = {
    # Small tables: on the U55 and U85 the one-hot lookup costs less than the CPU's copy of the rows.
    "tokens": OpTestCase(seeded(0, _Embedding, 32, 16), _indices(0, 32, (1, 10))),
    "batch_of_sequences": OpTestCase(seeded(1, _Embedding, 100, 8), _indices(1, 100, (3, 7))),
    "flat_indices": OpTestCase(seeded(2, _Embedding, 10, 24), _indices(2, 10, (12,))),
    # Llama's table and prompt (256 x 64, 16 ids from the input): on the U85 the CPU's int8 row copy
    # costs less than the one-hot lookup (embedding._LookupCosts), so it stays on the CPU there too.
    "vocabulary_prompt": OpTestCase(
        seeded(4, _Embedding, 256, 64), _indices(4, 256, (1, 16)), cpu_targets=("u55_INT", "u85_INT")
    ),
    # The same table looked up by ids the graph computes: the one-hot lookup keeps the partition whole on
    # the U85; the U55 runs no ARGMAX, so there the ids come from the CPU and the CPU's copy costs less.
    "computed_ids": OpTestCase(
        seeded(5, _LookupOfComputedIds, 256, 64), random_inputs(5, (1, 16, 8)), cpu_targets=("u55_INT",)
    ),
    # 1100 x 64 codes: more table than the U55's and U85's one-hot lookups read per call (common/gather.py).
    "large_table": OpTestCase(
        seeded(3, _Embedding, 1100, 64),
        _indices(3, 1100, (1, 4)),
        cpu_targets=("u55_INT", "u85_INT"),
        targets=("tosa_INT", "u55_INT", "u85_INT"),
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
