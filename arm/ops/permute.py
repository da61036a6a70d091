"""permute / permute_copy -> TOSA TRANSPOSE; a quantized permute keeps its input's grid."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.layout import transpose
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification

def _dims(node: Node) -> tuple[int, ...]:
    rank = len(shape_of(node))
    return tuple(dim % rank for dim in node.args[1])


def support(node: Node, spec: TosaSpecification) -> str | None:
    return first_reason(profile_reason(node, spec, [node.args[0]]), rank_reason(node, shape_of(node)))


def annotate_permute(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[0])
    if ctx.spec.is_int:
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    return transpose(ctx.graph, value, _dims(node), name=node.name)


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


TEST_CASES = {
    "nchw_to_nhwc": OpTestCase(FunctionModule(to_channels_last), random_inputs(0, (1, 8, 6, 10))),
    "rank3_swap": OpTestCase(FunctionModule(swap_last), random_inputs(1, (2, 12, 20))),
    "matrix_t": OpTestCase(FunctionModule(transpose_matrix), random_inputs(2, (16, 24))),
    "reverse_rank4": OpTestCase(FunctionModule(reverse_dims), random_inputs(3, (1, 3, 4, 5))),
    "transpose_copy": OpTestCase(FunctionModule(transpose_copy_rank3), random_inputs(4, (1, 4, 6))),
    "moveaxis": OpTestCase(FunctionModule(move_channels_last), random_inputs(5, (1, 4, 3, 5))),
}

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
