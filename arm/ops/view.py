"""view / reshape / _unsafe_view / view_copy -> TOSA RESHAPE; a quantized view keeps its input's grid."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.integer_arithmetic import integer_data_support, is_integer_arithmetic
from arm.ops.common.support import first_reason, movement_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification

def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    return first_reason(
        # Integer data (token ids reshaped before an embedding) has no grid to keep.
        integer_data_support(node, spec) if is_integer_arithmetic(node) else movement_reason(node, spec, [x]),
        rank_reason(node, shape_of(x)),
        rank_reason(node, shape_of(node)),
    )


def annotate_view(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[0])
    if ctx.spec.is_int and not is_integer_arithmetic(node):
        # The quantizer shares the input's grid, so this rescale is only there for foreign annotations.
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    # The shape comes from the node's meta: view arguments may still hold a -1.
    return reshape(ctx.graph, value, shape_of(node), name=node.name)


def flatten_channels(x: torch.Tensor) -> torch.Tensor:
    return x.view(x.shape[0], -1)


def split_last(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(2, 3, 4, 16)


def split_last_then_slice(x: torch.Tensor) -> torch.Tensor:
    # A partition of views alone stays on the CPU (arm/partitioner.py): the slice gives it work.
    return x.reshape(2, 3, 4, 16)[:, 1:]


def flatten_all(x: torch.Tensor) -> torch.Tensor:
    return torch.flatten(x)


def to_rank5(x: torch.Tensor) -> torch.Tensor:
    return x.reshape(1, 2, 4, 4, 12)


def unflatten_channels(x: torch.Tensor) -> torch.Tensor:
    return x.unflatten(1, (2, 4))


TEST_CASES = {
    "flatten_channels": OpTestCase(FunctionModule(flatten_channels), random_inputs(0, (2, 8, 4, 4))),
    "split_last": OpTestCase(FunctionModule(split_last), random_inputs(1, (6, 64))),
    "flatten_all": OpTestCase(FunctionModule(flatten_all), random_inputs(2, (1, 16, 5, 5))),
    "rank5": OpTestCase(FunctionModule(to_rank5), random_inputs(3, (1, 8, 6, 8))),
    "unflatten": OpTestCase(FunctionModule(unflatten_channels), random_inputs(4, (1, 8, 5))),
    # int8 data, not quantized: reshaped as it is (no integer data in the FP profile).
    "int8_data": OpTestCase(
        FunctionModule(split_last_then_slice),
        (torch.randint(-128, 128, (6, 64), generator=torch.Generator().manual_seed(5), dtype=torch.int8),),
        cpu_targets=("tosa_FP", "vgf_FP"),
    ),
}

OP = ArmOp(
    name="view",
    edge_targets=(
        exir_ops.edge.aten.view_copy.default,
        exir_ops.edge.aten.view.default,
        exir_ops.edge.aten.reshape.default,
        exir_ops.edge.aten._unsafe_view.default,
    ),
    aten_targets=(
        torch.ops.aten.view.default,
        torch.ops.aten.reshape.default,
        torch.ops.aten._unsafe_view.default,
        torch.ops.aten.view_copy.default,
        torch.ops.aten.flatten.using_ints,
        torch.ops.aten.unflatten.int,
    ),
    support=support,
    annotate=annotate_view,
    lower=lower,
    test_cases=TEST_CASES,
)
