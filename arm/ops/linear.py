"""aten.linear -> RESHAPE to [1, 1, rows, K], a 1x1 CONV2D, RESHAPE back.

TOSA 1.0 has no fully-connected operator. A 1x1 convolution keeps the int32 bias and per-channel
weight scales that MATMUL lacks, and needs no layout change: a [1, 1, rows, K] tensor is NHWC, in the
same memory order as x. The rows go along the width: Vela 5.2.0 runs the same convolution over a
[1, rows, 1, K] column in about twice the cycles on both NPUs (its blocks tile the width; U85-256 /
U55-128 cycles, column against row: 1024x128->64 66,128 / 33,728 and 134,480 / 69,680; ViT's
197x192->768 228,775 / 116,104 and 458,453 / 233,152; a near-square [1, H, W] costs what the row
does). Past the NPU's largest width the rows fold into a near-square H x W.
"""

from __future__ import annotations

import math

import torch
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.convolution import ConvGeometry, ConvWeights, emit_convolution
from arm.ops.common.op_test_case import OpTestCase, half_precision_cases, random_inputs, seeded
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, profile_reason
from arm.quantizer.annotation import annotate_with_fused_activation
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.specification import TosaSpecification


# The largest feature-map dimension Vela takes (its tens_dim_range, both NPUs).
_MAX_FEATURE_MAP_WIDTH = 65535


def _bias(node: Node) -> Node | None:
    return node.args[2] if len(node.args) > 2 else node.kwargs.get("bias")


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, weight = node.args[:2]
    if len(shape_of(weight)) != 2:
        return f"{describe(node)}: weight shape {shape_of(weight)} is not [out_features, in_features]"
    bias = _bias(node)
    return profile_reason(node, spec, [x, weight] + ([bias] if bias is not None else []))


def annotate_linear(node: Node, config: QuantizationConfig) -> None:
    x, weight = node.args[:2]
    inputs = {x: config.activation, weight: config.weight}
    bias = _bias(node)
    if isinstance(bias, Node):
        inputs[bias] = config.bias(node, x, weight)
    annotate_with_fused_activation(node, inputs, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, weight = node.args[:2]
    in_features = shape_of(x)[-1]
    out_shape = shape_of(node)
    height, width = _rows_layout(math.prod(out_shape[:-1]))
    rows_nhwc = reshape(ctx.graph, ctx.value(x), (1, height, width, in_features), name=f"{node.name}_rows")
    output = emit_convolution(
        ctx,
        node,
        name=f"{node.name}_nhwc",
        input_nhwc=rows_nhwc,
        weights=ConvWeights.read(ctx, weight, _bias(node)),
        geometry=ConvGeometry(),
        output_shape_nhwc=(1, height, width, out_shape[-1]),
    )
    return reshape(ctx.graph, output, out_shape, name=node.name)


def _rows_layout(rows: int) -> tuple[int, int]:
    """(height, width) of the rows' feature map: one row of ``rows`` pixels where the NPU takes it."""
    if rows <= _MAX_FEATURE_MAP_WIDTH:
        return 1, rows
    height = math.isqrt(rows)
    while rows % height:
        height -= 1
    return height, rows // height


class _Linear(torch.nn.Module):
    def __init__(self, *args: object, relu: bool = False, **kwargs: object):
        super().__init__()
        self.linear = torch.nn.Linear(*args, **kwargs)
        self.relu = relu

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.linear(x)
        return torch.relu(y) if self.relu else y


TEST_CASES = {
    "vector": OpTestCase(seeded(0, _Linear, 64, 32), random_inputs(0, (1, 64))),
    "batch": OpTestCase(seeded(1, _Linear, 48, 96), random_inputs(1, (8, 48))),
    "rank3": OpTestCase(seeded(2, _Linear, 32, 16), random_inputs(2, (2, 10, 32))),
    "bias_free": OpTestCase(seeded(3, _Linear, 40, 24, bias=False), random_inputs(3, (4, 40))),
    "relu_fused": OpTestCase(seeded(4, _Linear, 64, 64, relu=True), random_inputs(4, (3, 64))),
    # int16 activations, int8 weights: the TOSA-1.0+INT targets (TOSA, VGF) have no int16 extension.
    "a16w8": OpTestCase(
        seeded(5, _Linear, 48, 32),
        random_inputs(5, (4, 48)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

# The op in float16 and bfloat16 on the float targets (the float-type rule: arm/ops/common/support.py).
TEST_CASES |= half_precision_cases(OpTestCase(seeded(20, _Linear, 16, 8), random_inputs(20, (2, 16))))

OP = ArmOp(
    name="linear",
    edge_targets=(exir_ops.edge.aten.linear.default,),
    aten_targets=(torch.ops.aten.linear.default,),
    support=support,
    annotate=annotate_linear,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.linear.default,),
)
