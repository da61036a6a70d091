"""aten.mul.Tensor -> TOSA MUL (INT: zero points removed on an int32 grid, product rescaled to int8)."""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.elementwise import annotate_binary, binary_support, emit, operands
from arm.ops.common.integer_arithmetic import integer_support, is_integer_arithmetic, lower_integer_binary
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue
from arm.tosa.rescale import from_int32, to_int32
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    if is_integer_arithmetic(node):
        return integer_support(node, spec)
    return binary_support(node, spec)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    if is_integer_arithmetic(node):
        return lower_integer_binary(node, ctx, ts.Op.MUL, ts.TosaSerializerAttribute.MulAttribute)
    lhs, rhs = operands(node, ctx)
    shape = shape_of(node)
    set_attribute = ts.TosaSerializerAttribute.MulAttribute
    if ctx.spec.is_fp:
        shift = ctx.graph.add_scalar_const(f"{node.name}_shift", 0, np.int8)
        return emit(ctx, ts.Op.MUL, set_attribute, [lhs, rhs, shift], name=node.name, shape=shape, dtype=lhs.dtype)
    # MUL has no zero-point inputs: subtract them on the way to int32 (scale 1, so grids keep their step).
    lhs32 = to_int32(ctx.graph, lhs, name=f"{node.name}_lhs_int32", scale=1.0)
    rhs32 = to_int32(ctx.graph, rhs, name=f"{node.name}_rhs_int32", scale=1.0)
    shift = ctx.graph.add_scalar_const(f"{node.name}_shift", 0, np.int8)
    product = emit(
        ctx, ts.Op.MUL, set_attribute, [lhs32, rhs32, shift], name=f"{node.name}_int32", shape=shape, dtype=np.int32
    )
    product_scale = lhs.qparams.scale * rhs.qparams.scale
    return from_int32(
        ctx.graph, product, name=node.name, accumulator_scales=[product_scale], output=ctx.output_qparams(node)
    )


def multiply(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x * y


def zero_d_sum_doubled(x: torch.Tensor) -> torch.Tensor:
    return torch.sum(x, dim=0) * 2


def multiply_scalar(x: torch.Tensor) -> torch.Tensor:
    return x * 0.5


def square(x: torch.Tensor) -> torch.Tensor:
    return x * x


def _int32_values(seed: int, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    generator = torch.Generator().manual_seed(seed)
    return tuple(torch.randint(-300, 300, shape, generator=generator, dtype=torch.int32) for shape in shapes)


def scaled_first_of_rank5(qkv: torch.Tensor) -> torch.Tensor:
    """timm attention's ``q * scale`` on the q slice of a (3, B, heads, N, d) qkv tensor."""
    return qkv[0] * 0.25


def scaled_scores(query: torch.Tensor, key: torch.Tensor) -> torch.Tensor:
    """Eager attention's ``matmul(q, k^T) * scaling`` (transformers' BERT): the product's int8 grid, then the
    constant scalar's. One RESCALE of the int8 scores instead of RESCALE, MUL, RESCALE is exact but dearer on
    the U55 (Vela 5.2.0: 1,520 cycles a 4x16x16 block as a RESCALE of its own, 768 as the fused MUL)."""
    return torch.matmul(query, key.transpose(-2, -1)) * 0.125


TEST_CASES = {
    "tensor": OpTestCase(FunctionModule(multiply), random_inputs(0, (1, 8, 16, 16), (1, 8, 16, 16))),
    "broadcast": OpTestCase(FunctionModule(multiply), random_inputs(1, (1, 8, 16, 16), (1, 8, 1, 1))),
    "broadcast_rank": OpTestCase(FunctionModule(multiply), random_inputs(2, (3, 5, 32), (32,))),
    "broadcast_both": OpTestCase(FunctionModule(multiply), random_inputs(5, (1, 8, 1, 16), (1, 1, 12, 1))),
    "scalar": OpTestCase(FunctionModule(multiply_scalar), random_inputs(3, (1, 4, 8, 8))),
    # A 0-d product (a 0-d sum times a lifted scalar): it once fell back because TosaGraph.add_const
    # gave every 0-d constant shape [1] (arm/flow_robustness_test kept it as a fallback case then).
    "zero_d": OpTestCase(FunctionModule(zero_d_sum_doubled), (torch.tensor(0.75),), targets=("tosa_FP", "tosa_INT")),
    "scaled_scores": OpTestCase(FunctionModule(scaled_scores), random_inputs(7, (1, 4, 16, 16), (1, 4, 16, 16))),
    "square": OpTestCase(FunctionModule(square), random_inputs(4, (2, 50))),
    # int32 data, not quantized: one int32 MUL (in both TOSA 1.0 profiles).
    "int32_broadcast": OpTestCase(
        FunctionModule(multiply), _int32_values(6, (1, 4, 4, 1), (1, 1, 4, 4))),
    # timm attention's q * scale on a rank-5 slice, reshaped to a batch of 2. Vela 5.2.0 reads a rank-5 SLICE's
    # output as a window into its source and loses the window's batch step (U85: both batches from the first,
    # 251 of 512 outputs off; U55: a segfault, or a stream writing past its scratch area);
    # arm/tosa/high_rank_slice_copies.py copies the slice out first, and the mul runs on both NPUs, bit-exact.
    "rank5_slice_times_constant": OpTestCase(FunctionModule(scaled_first_of_rank5), random_inputs(6, (3, 2, 2, 8, 16))),
}

OP = ArmOp(
    name="mul",
    edge_targets=(exir_ops.edge.aten.mul.Tensor,),
    aten_targets=(torch.ops.aten.mul.Tensor,),
    support=support,
    annotate=annotate_binary,
    lower=lower,
    test_cases=TEST_CASES,
)
