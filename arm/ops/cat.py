"""aten.cat -> TOSA CONCAT; quantized, all inputs and the output share one int8 grid."""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, movement_reason, rank_reason
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, concat
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def tensors_and_dim(node: Node) -> tuple[list[Node], int]:
    """The joined operands and the non-negative output dim (cat and stack take the same arguments)."""
    tensors = list(node.args[0])
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
    return tensors, dim % len(shape_of(node))


def support(node: Node, spec: TosaSpecification) -> str | None:
    tensors, _ = tensors_and_dim(node)
    if not all(isinstance(tensor, Node) for tensor in tensors):
        return f"{describe(node)}: every joined operand must be a tensor"
    return first_reason(movement_reason(node, spec, tensors), rank_reason(node, shape_of(node)))


def annotate_cat(node: Node, config: QuantizationConfig) -> None:
    """One grid for everything: CONCAT copies int8 codes, so they must mean the same reals."""
    tensors, _ = tensors_and_dim(node)
    shared = SharedQuantizationSpec((tensors[0], node))
    # The first operand's edge comes first: pt2e resolves shared specs in insertion order.
    inputs = {tensors[0]: config.activation}
    inputs.update((tensor, shared) for tensor in tensors[1:] if tensor is not tensors[0])
    annotate(node, inputs, shared)


def operands_on_output_grid(node: Node, ctx: LoweringContext, tensors: list[Node]) -> list[TosaValue]:
    """The operands' values, in INT on the node's output grid."""
    values = [ctx.value(tensor) for tensor in tensors]
    if not ctx.spec.is_int:
        return values
    # Shared by the quantizer, so these rescales only appear for foreign annotations.
    output = ctx.output_qparams(node)
    return [
        requantize(ctx.graph, value, name=f"{node.name}_input{index}_rescaled", output=output)
        for index, value in enumerate(values)
    ]


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    tensors, dim = tensors_and_dim(node)
    return concat(ctx.graph, operands_on_output_grid(node, ctx, tensors), axis=dim, name=node.name)


def cat_channels(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.cat([x, y], dim=1)


def cat_three_last(x: torch.Tensor, y: torch.Tensor, z: torch.Tensor) -> torch.Tensor:
    return torch.cat([x, y, z], dim=-1)


def cat_rows(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.cat([x, y])


def cat_with_itself(x: torch.Tensor) -> torch.Tensor:
    return torch.cat([x, x], dim=2)


def source_minus_its_windows(x: torch.Tensor) -> torch.Tensor:
    return x - torch.cat([x[:, 4:], x[:, :4]], dim=1)


class _CatScaled(torch.nn.Module):
    """Operands on very different ranges: the shared grid must cover both."""

    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(4, 4, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat([self.conv(x), x * 8.0], dim=1)


TEST_CASES = {
    "channels": OpTestCase(FunctionModule(cat_channels), random_inputs(0, (1, 8, 6, 6), (1, 4, 6, 6))),
    "three_last_dim": OpTestCase(FunctionModule(cat_three_last), random_inputs(1, (2, 5, 3), (2, 5, 7), (2, 5, 1))),
    "rows": OpTestCase(FunctionModule(cat_rows), random_inputs(2, (3, 16), (5, 16))),
    "same_input": OpTestCase(FunctionModule(cat_with_itself), random_inputs(3, (1, 4, 5, 6))),
    "different_ranges": OpTestCase(seeded(4, _CatScaled), random_inputs(4, (1, 4, 8, 8))),
    # A CONCAT of windows of x that only the SUB's widening reads: copied before it on the U55
    # (arm/tosa/widened_window_copies.py; 21 of 21 outputs off without the copy).
    "source_minus_its_windows": OpTestCase(FunctionModule(source_minus_its_windows), random_inputs(5, (3, 7))),
}

OP = ArmOp(
    name="cat",
    edge_targets=(exir_ops.edge.aten.cat.default,),
    aten_targets=(torch.ops.aten.cat.default, torch.ops.aten.concat.default),
    support=support,
    annotate=annotate_cat,
    lower=lower,
    test_cases=TEST_CASES,
)
