"""aten.prod.dim_int(x, dim, keepdim) -> TOSA REDUCE_PRODUCT (FP), or int32 MULs of the zero-point-free codes (INT).

TOSA 1.0 has REDUCE_PRODUCT for floats only. Quantized, ``prod(s * (q - zp)) = s**n * prod(q - zp)``:
the n codes along dim, moved to int32 without their zero point, are multiplied exactly (n - 1 MULs of
slices) and one RESCALE by s**n / s_out writes the output grid, as the quantized module rounds the
float product once. |q - zp| <= 255 and 255**3 < 2**31, so the INT lowering takes dims of up to 3
elements; longer products would overflow int32 and stay on the CPU.
"""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.unary import int8_reason
from arm.quantizer.annotation import annotate, input_spec
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape, slice_tensor
from arm.tosa.rescale import from_int32, to_int32
from arm.tosa.specification import TosaSpecification

# The most int8 factors (each |q - zp| <= 255) whose product fits int32.
MAX_INT_FACTORS = 3
# On the U55 the command stream for an int32 MUL whose operand is itself a product of two codes
# departs from the TOSA reference model on the NPU model (a [2, 4, 3] case: every value, by up to 151);
# a single MUL of two codes matches.
MAX_U55_FACTORS = 2


def _dim(node: Node) -> int:
    return node.args[1] % len(shape_of(node.args[0]))


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    if node.kwargs.get("dtype") is not None:
        return f"{describe(node)}: prod with dtype={node.kwargs['dtype']} converts; it runs on the CPU"
    length = shape_of(x)[_dim(node)]
    most = MAX_U55_FACTORS if spec.has("u55") else MAX_INT_FACTORS
    return first_reason(
        None if shape_of(node) else f"{describe(node)}: a 0-d result is not lowered; reduce with keepdim=True",
        f"{describe(node)}: a product of {length} int8 values is lowered for {spec} up to {most} factors "
        f"(int32 overflows beyond {MAX_INT_FACTORS}; the U55's chained int32 MUL departs beyond {MAX_U55_FACTORS}); "
        "it runs on the CPU"
        if spec.is_int and length > most
        else None,
        profile_reason(node, spec, [x]),
        # int16 codes (a16w8): three of them multiply past int32, and the lowering is written for int8.
        int8_reason(node, spec, [x]),
        rank_reason(node, shape_of(x)),
    )


def annotate_prod(node: Node, config: QuantizationConfig) -> None:
    """An observed int8 input and output: a product's range is not its input's."""
    x = node.args[0]
    annotate(node, {x: input_spec(x, config.activation)}, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    dim = _dim(node)
    value = ctx.value(node.args[0])
    if ctx.spec.is_fp:
        shape = tuple(1 if axis == dim else size for axis, size in enumerate(value.shape))
        product = ctx.graph.add_tensor(f"{node.name}_product", shape, value.dtype)
        attribute = ts.TosaSerializerAttribute()
        attribute.ReduceProductAttribute(dim)
        ctx.graph.add_op(ts.Op.REDUCE_PRODUCT, [value], [product], attribute, axis=dim)
    else:
        codes = to_int32(ctx.graph, value, name=f"{node.name}_int32", scale=1.0)
        product = _product_of_slices(ctx, codes, dim, name=f"{node.name}_product")
        length = value.shape[dim]
        product = from_int32(
            ctx.graph,
            product,
            name=f"{node.name}_rescaled",
            accumulator_scales=[value.qparams.scale**length],
            output=ctx.output_qparams(node),
        )
    return product if product.shape == shape_of(node) else reshape(ctx.graph, product, shape_of(node), name=node.name)


def _product_of_slices(ctx: LoweringContext, codes: TosaValue, dim: int, *, name: str) -> TosaValue:
    """int32 MUL of the size-1 slices of ``codes`` along ``dim``; the result keeps dim with size 1."""
    size = tuple(1 if axis == dim else extent for axis, extent in enumerate(codes.shape))

    def piece(index: int) -> TosaValue:
        start = [index if axis == dim else 0 for axis in range(codes.rank)]
        return slice_tensor(ctx.graph, codes, start, size, name=f"{name}_factor{index}")

    product = piece(0)
    for index in range(1, codes.shape[dim]):
        output = ctx.graph.add_tensor(f"{name}_{index}", size, np.int32)
        operands = [product, piece(index), ctx.graph.add_scalar_const(f"{name}_{index}_shift", 0, np.int8)]
        attribute = ts.TosaSerializerAttribute()
        attribute.MulAttribute()
        ctx.graph.add_op(ts.Op.MUL, operands, [output], attribute)
        product = output
    return product


def over_last(x: torch.Tensor) -> torch.Tensor:
    return x.prod(-1)


def over_channels_keepdim(x: torch.Tensor) -> torch.Tensor:
    return torch.prod(x, 1, keepdim=True)


_INT_TARGETS = ("tosa_INT", "u55_INT", "u85_INT", "vgf_INT")

TEST_CASES = {
    "three_factors": OpTestCase(FunctionModule(over_last), random_inputs(0, (2, 4, 3)), cpu_targets=("u55_INT",)),
    "two_channels_keepdim": OpTestCase(FunctionModule(over_channels_keepdim), random_inputs(1, (1, 2, 4, 4))),
    # Eight int8 factors may overflow int32: float targets only.
    "eight_factors": OpTestCase(FunctionModule(over_last), (0.5 + random_inputs(2, (3, 8))[0].abs(),), cpu_targets=_INT_TARGETS),
    # int16 activations (a16w8) stay on the CPU (the int32 products of int16 codes overflow).
    "a16w8_stays_on_cpu": OpTestCase(
        FunctionModule(over_last),
        random_inputs(3, (2, 4, 3)),
        cpu_targets=_INT_TARGETS,
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="prod",
    edge_targets=(exir_ops.edge.aten.prod.dim_int,),
    aten_targets=(torch.ops.aten.prod.dim_int,),
    support=support,
    annotate=annotate_prod,
    lower=lower,
    test_cases=TEST_CASES,
)
