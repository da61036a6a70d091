"""aten.flip -> one TOSA REVERSE per flipped dim; quantized, the output keeps the input's grid.

Vela 5.2.0 runs REVERSE on the Ethos-U85 only ("Non-passthrough operation (Reverse) could not run on
NPU" for the U55), so there it stays on the CPU.
"""

from __future__ import annotations

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def _dims(node: Node) -> list[int]:
    """The flipped dims, normalized; a dim of size 1 needs no REVERSE."""
    shape = shape_of(node)
    return sorted({dim % len(shape) for dim in node.args[1] if shape[dim] > 1})


def support(node: Node, spec: TosaSpecification) -> str | None:
    return first_reason(
        f"{describe(node)}: Vela runs no REVERSE on the Ethos-U55/U65; it runs on the CPU" if spec.has("u55") else None,
        profile_reason(node, spec, [node.args[0]]),
        rank_reason(node, shape_of(node)),
    )


def annotate_flip(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    value = ctx.value(node.args[0])
    if ctx.spec.is_int:
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    dims = _dims(node)
    for index, dim in enumerate(dims):
        name = node.name if index == len(dims) - 1 else f"{node.name}_reversed{dim}"
        output = ctx.graph.add_tensor(name, value.shape, value.dtype, value.qparams)
        attribute = ts.TosaSerializerAttribute()
        attribute.ReverseAttribute(dim)
        ctx.graph.add_op(ts.Op.REVERSE, [value], [output], attribute)
        value = output
    return value


def flip_width(x: torch.Tensor) -> torch.Tensor:
    return x.flip(-1)


def flip_channels_and_height(x: torch.Tensor) -> torch.Tensor:
    return x.flip((1, 2))


TEST_CASES = {
    "width": OpTestCase(FunctionModule(flip_width), random_inputs(0, (1, 4, 6, 10)), cpu_targets=("u55_INT",)),
    "channels_height": OpTestCase(
        FunctionModule(flip_channels_and_height), random_inputs(1, (1, 6, 5, 4)), cpu_targets=("u55_INT",)
    ),
}

OP = ArmOp(
    name="flip",
    edge_targets=(exir_ops.edge.aten.flip.default,),
    aten_targets=(torch.ops.aten.flip.default,),
    support=support,
    annotate=annotate_flip,
    lower=lower,
    test_cases=TEST_CASES,
)
