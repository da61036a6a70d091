"""aten.stack(tensors, dim) -> one TOSA CONCAT of the inputs reshaped with a size-1 dim at ``dim``; quantized,
all inputs and the output share one int8 grid (as for cat).

Kept whole through to_edge, which would make it unsqueezes (view_copy) and a cat; lowered whole, the
reshapes of constants fold at compile time and the NPU compiler sees one CONCAT.
"""

from __future__ import annotations

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, concat, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def _tensors_and_dim(node: Node) -> tuple[list[Node], int]:
    tensors = list(node.args[0])
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", 0)
    return tensors, dim % len(shape_of(node))


def support(node: Node, spec: TosaSpecification) -> str | None:
    tensors, _ = _tensors_and_dim(node)
    if not all(isinstance(tensor, Node) for tensor in tensors):
        return f"{describe(node)}: every stacked operand must be a tensor"
    return first_reason(profile_reason(node, spec, tensors), rank_reason(node, shape_of(node)))


def annotate_stack(node: Node, config: QuantizationConfig) -> None:
    """One grid for everything: CONCAT copies int8 codes, so they must mean the same reals."""
    tensors, _ = _tensors_and_dim(node)
    shared = SharedQuantizationSpec((tensors[0], node))
    inputs = {tensors[0]: config.activation}
    inputs.update((tensor, shared) for tensor in tensors[1:] if tensor is not tensors[0])
    annotate(node, inputs, shared)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    tensors, dim = _tensors_and_dim(node)
    piece_shape = tuple(1 if axis == dim else size for axis, size in enumerate(shape_of(node)))
    pieces = []
    for index, tensor in enumerate(tensors):
        value = ctx.value(tensor)
        if ctx.spec.is_int:
            # Shared by the quantizer, so these rescales only appear for foreign annotations.
            value = requantize(ctx.graph, value, name=f"{node.name}_input{index}_rescaled", output=ctx.output_qparams(node))
        pieces.append(reshape(ctx.graph, value, piece_shape, name=f"{node.name}_input{index}"))
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
    support=support,
    annotate=annotate_stack,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.stack.default,),
)
