"""aten.expand_copy (``x.expand(...)``, broadcasting a class token or a key/value head) -> TOSA TILE.

The size-1 axes the expansion widens are tiled; new leading axes come first as 1s. INT: the copy keeps
the input's grid.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs, seeded
from arm.ops.common.tile import annotate_tile, lower_tile, tile_support
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    source = shape_of(node.args[0])
    output = shape_of(node)
    source = (1,) * (len(output) - len(source)) + source
    return lower_tile(node, ctx, [extent if size == 1 else 1 for size, extent in zip(source, output)])


def broadcast_rows(x: torch.Tensor) -> torch.Tensor:
    return x.expand(3, 5, 8) * 2.0


def new_leading_axes(x: torch.Tensor) -> torch.Tensor:
    return x.expand(2, 4, 6) + 1.0


def heads_for_groups(x: torch.Tensor) -> torch.Tensor:
    # (batch, kv_heads, 1, seq, dim) -> (batch, kv_heads, groups, seq, dim): grouped-query key repetition.
    return x[:, :, None].expand(1, 2, 3, 4, 8).reshape(1, 6, 4, 8)


def broadcast_mask(mask: torch.Tensor) -> torch.Tensor:
    return mask.expand(3, 5, 8)


class ClassToken(torch.nn.Module):
    """ViT's class token: one learned row broadcast over the batch and put in front of the patches."""

    def __init__(self, width: int = 16):
        super().__init__()
        self.token = torch.nn.Parameter(torch.randn(1, 1, width))

    def forward(self, patches: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.token.expand(patches.shape[0], -1, -1), patches], dim=1)


TEST_CASES = {
    "rows": OpTestCase(FunctionModule(broadcast_rows), random_inputs(0, (3, 1, 8))),
    "leading_axes": OpTestCase(FunctionModule(new_leading_axes), random_inputs(1, (4, 1))),
    "grouped_heads": OpTestCase(FunctionModule(heads_for_groups), random_inputs(2, (1, 2, 4, 8))),
    "class_token": OpTestCase(seeded(3, ClassToken), random_inputs(3, (2, 9, 16))),
    # A bool mask broadcast over rows: moved as it is (TOSA moves bool in every profile); bool does not
    # cross a U55 partition's boundary (arm/ops/README.md, bitwise).
    "bool_rows": OpTestCase(
        FunctionModule(broadcast_mask),
        (torch.rand((3, 1, 8), generator=torch.Generator().manual_seed(4)) > 0.5,),
        cpu_targets=("u55_INT",),
    ),
}

OP = ArmOp(
    name="expand",
    edge_targets=(exir_ops.edge.aten.expand_copy.default,),
    aten_targets=(torch.ops.aten.expand.default, torch.ops.aten.expand_copy.default),
    support=tile_support,
    annotate=annotate_tile,
    lower=lower,
    test_cases=TEST_CASES,
)
