"""permute / permute_copy -> TOSA TRANSPOSE; a quantized permute keeps its input's grid."""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, half_precision_cases, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import first_reason, movement_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.layout import transpose
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification

def _dims(node: Node) -> tuple[int, ...]:
    rank = len(shape_of(node))
    return tuple(dim % rank for dim in node.args[1])


def support(node: Node, spec: TosaSpecification) -> str | None:
    return first_reason(movement_reason(node, spec, [node.args[0]]), rank_reason(node, shape_of(node)))


def annotate_permute(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[0])
    if ctx.spec.is_int:
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    dims = _dims(node)
    if value.rank <= _VELA_TRANSPOSE_RANK:
        return transpose(ctx.graph, value, dims, name=node.name)
    # Vela 5.2.0 splits a rank-5/6 TRANSPOSE into per-row pieces (nn.MultiheadAttention's in-projection
    # permute of [1, 40, 1, 3, 64]: 82k U85 cycles); the same data movement on the axes that really move
    # is a rank-2/3 TRANSPOSE between two free reshapes.
    shape, perms = essential_transpose(value.shape, dims)
    if perms == tuple(range(len(perms))):
        return reshape(ctx.graph, value, shape_of(node), name=node.name)
    moved = transpose(ctx.graph, reshape(ctx.graph, value, shape, name=f"{node.name}_essential"), perms,
                      name=f"{node.name}_transposed")  # fmt: skip
    return reshape(ctx.graph, moved, shape_of(node), name=node.name)


# The largest TRANSPOSE rank Vela lowers as one operation.
_VELA_TRANSPOSE_RANK = 4


def essential_transpose(shape: tuple[int, ...], perms: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The same permutation without size-1 axes and with axes that stay neighbours merged into one."""
    kept = [axis for axis in perms if shape[axis] != 1]
    groups: list[list[int]] = []  # runs of input axes that stay adjacent and in order in the output
    for axis in kept:
        if groups and axis == groups[-1][-1] + 1 or (groups and _only_ones_between(shape, groups[-1][-1], axis)):
            groups[-1].append(axis)
        else:
            groups.append([axis])
    order = sorted(range(len(groups)), key=lambda index: groups[index][0])
    merged_shape = tuple(math.prod(shape[axis] for axis in groups[index]) for index in order)
    position = {group_index: rank for rank, group_index in enumerate(order)}
    return merged_shape, tuple(position[index] for index in range(len(groups)))


def _only_ones_between(shape: tuple[int, ...], first: int, last: int) -> bool:
    return first < last and all(shape[axis] == 1 for axis in range(first + 1, last))


def to_channels_last(x: torch.Tensor) -> torch.Tensor:
    return x.permute(0, 2, 3, 1)


def swap_last(x: torch.Tensor) -> torch.Tensor:
    return x.permute(0, 2, 1)


def transpose_matrix(x: torch.Tensor) -> torch.Tensor:
    return x.t()


def reverse_dims(x: torch.Tensor) -> torch.Tensor:
    return x.permute(3, 2, 1, 0)


def transpose_copy_rank3(x: torch.Tensor) -> torch.Tensor:
    return torch.ops.aten.transpose_copy.int(x, 1, 2)


def move_channels_last(x: torch.Tensor) -> torch.Tensor:
    return torch.moveaxis(x, 1, 3)


def in_projection_split(x: torch.Tensor) -> torch.Tensor:
    # nn.MultiheadAttention's packed q/k/v: (L, 1, 3, E) -> (3, L, 1, E) on a rank-5 view.
    return x.unsqueeze(0).transpose(0, -2).squeeze(-2) + 1.0


def rank6_shuffle(x: torch.Tensor) -> torch.Tensor:
    return x.permute(0, 3, 1, 5, 4, 2)


TEST_CASES = {
    "nchw_to_nhwc": OpTestCase(FunctionModule(to_channels_last), random_inputs(0, (1, 8, 6, 10))),
    "rank3_swap": OpTestCase(FunctionModule(swap_last), random_inputs(1, (2, 12, 20))),
    "matrix_t": OpTestCase(FunctionModule(transpose_matrix), random_inputs(2, (16, 24))),
    "reverse_rank4": OpTestCase(FunctionModule(reverse_dims), random_inputs(3, (1, 3, 4, 5))),
    "transpose_copy": OpTestCase(FunctionModule(transpose_copy_rank3), random_inputs(4, (1, 4, 6))),
    "moveaxis": OpTestCase(FunctionModule(move_channels_last), random_inputs(5, (1, 4, 3, 5))),
    "rank5_in_projection": OpTestCase(FunctionModule(in_projection_split), random_inputs(4, (10, 1, 3, 16))),
    "rank6": OpTestCase(FunctionModule(rank6_shuffle), random_inputs(5, (1, 2, 3, 1, 4, 5))),
}

# The op in float16 and bfloat16 on the float targets (the float-type rule: arm/ops/common/support.py).
TEST_CASES |= half_precision_cases(OpTestCase(FunctionModule(swap_last), random_inputs(20, (2, 3, 5))))
# float8 moves (and only moves) on TOSA FP with its extension (support.float8_moved); exact.
TEST_CASES["float8_e4m3"] = OpTestCase(
    FunctionModule(swap_last),
    (random_inputs(21, (2, 3, 5))[0].to(torch.float8_e4m3fn),),
    tosa_extensions=("fp8e4m3",),
    targets=("tosa_FP",),
)

OP = ArmOp(
    name="permute",
    edge_targets=(exir_ops.edge.aten.permute_copy.default, exir_ops.edge.aten.permute.default),
    # The *_copy and movedim spellings reach the edge dialect as permute_copy too, unannotated unless named here.
    aten_targets=(
        torch.ops.aten.permute.default,
        torch.ops.aten.permute_copy.default,
        torch.ops.aten.t.default,
        torch.ops.aten.t_copy.default,
        torch.ops.aten.transpose.int,
        torch.ops.aten.transpose_copy.int,
        torch.ops.aten.movedim.int,
        torch.ops.aten.moveaxis.int,
    ),
    support=support,
    annotate=annotate_permute,
    lower=lower,
    test_cases=TEST_CASES,
)
