"""aten.stack(tensors, dim) -> one TOSA CONCAT of the inputs reshaped with a size-1 dim at ``dim``; quantized,
all inputs and the output share one int8 grid (as for cat).

Kept whole through to_edge, which would make it unsqueezes (view_copy) and a cat; lowered whole, the
reshapes of constants fold at compile time and the NPU compiler sees one CONCAT.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops import cat
from arm.ops.cat import operands_on_output_grid, tensors_and_dim
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, concat, reshape


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    tensors, dim = tensors_and_dim(node)
    piece_shape = tuple(1 if axis == dim else size for axis, size in enumerate(shape_of(node)))
    pieces = [
        reshape(ctx.graph, value, piece_shape, name=f"{node.name}_input{index}")
        for index, value in enumerate(operands_on_output_grid(node, ctx, tensors))
    ]
    if len(pieces) == 1:
        return pieces[0]
    return concat(ctx.graph, pieces, axis=dim, name=node.name)


def two_at_front(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.stack([x, y])


def three_last(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    return torch.stack((x, y, z), dim=-1)


TEST_CASES = {
    "two_at_front": OpTestCase(FunctionModule(two_at_front), random_inputs(0, (3, 8), (3, 8))),
    # z's range is three times the others': the shared grid must hold it.
    "three_last": OpTestCase(
        FunctionModule(three_last), (*random_inputs(1, (1, 4, 5), (1, 4, 5)), 3.0 * random_inputs(2, (1, 4, 5))[0])
    ),
}

OP = ArmOp(
    name="stack",
    edge_targets=(exir_ops.edge.aten.stack.default,),
    aten_targets=(torch.ops.aten.stack.default,),
    # Support and annotation are cat's: the same operands, one shared grid.
    support=cat.support,
    annotate=cat.annotate_cat,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.stack.default,),
)
