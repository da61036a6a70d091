"""aten.relu -> TOSA CLAMP; in the INT profile the lower bound is the output zero point."""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import profile_reason
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    return profile_reason(node, spec)


def annotate_relu(node: Node, config: QuantizationConfig) -> None:
    """A relu on its own; one right after conv/linear/add is annotated by that producer instead."""
    annotate(node, {node.args[0]: config.activation}, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if ctx.spec.is_fp:
        return clamp(ctx, ctx.value(node.args[0]), np.float32(0.0), np.finfo(np.float32).max, name=node.name)
    output = ctx.output_qparams(node)
    # Fused after a producer, the input already sits on the output grid and requantize is a no-op.
    value = requantize(ctx.graph, ctx.value(node.args[0]), name=f"{node.name}_rescaled", output=output)
    low, high = output.zero_point, np.iinfo(output.dtype).max
    return clamp(ctx, value, output.dtype.type(low), output.dtype.type(high), name=node.name)


def clamp(ctx: LoweringContext, value: TosaValue, low: np.generic, high: np.generic, *, name: str) -> TosaValue:
    """CLAMP with bounds given in the tensor's own dtype (TOSA stores them as raw bytes)."""
    output = ctx.graph.add_tensor(name, value.shape, value.dtype, value.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.ClampAttribute(
        list(np.array([low], value.dtype).tobytes()),
        list(np.array([high], value.dtype).tobytes()),
        ts.NanPropagationMode.PROPAGATE,
    )
    ctx.graph.add_op(ts.Op.CLAMP, [value], [output], attribute, elementwise_unary=True)
    return output


class _LinearThenRelu(torch.nn.Module):
    """Relu behind a reshape: not fusable, so it is lowered on its own grid."""

    def __init__(self) -> None:
        super().__init__()
        self.linear = torch.nn.Linear(32, 64)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(self.linear(x).view(2, 4, 4, 4))


TEST_CASES = {
    "rank4": OpTestCase(FunctionModule(torch.relu), random_inputs(0, (1, 8, 16, 16))),
    "rank2": OpTestCase(FunctionModule(torch.relu), random_inputs(1, (4, 100))),
    "after_view": OpTestCase(seeded(2, _LinearThenRelu), random_inputs(3, (2, 32))),
    # int16 activations: the TOSA-1.0+INT targets (TOSA, VGF) have no int16 extension.
    "a16w8": OpTestCase(
        FunctionModule(torch.relu),
        random_inputs(4, (1, 8, 8, 8)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="relu",
    edge_targets=(exir_ops.edge.aten.relu.default,),
    aten_targets=(torch.ops.aten.relu.default,),
    support=support,
    annotate=annotate_relu,
    lower=lower,
    test_cases=TEST_CASES,
    fuses_into_producer=True,
)
