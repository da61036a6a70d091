"""aten.glu -> a * SIGMOID(b) for the two halves a, b of x along dim (FP), or SLICEs, one TABLE for the
gate and a MUL (INT).

to_edge would write glu as two slices, sigmoid and mul, with no quantization between them (the
quantizer saw one glu): those would stay on the CPU in the INT profile. Kept whole, the INT gate
sigmoid(b) is a TABLE onto a fixed [0, 1) grid of step 1/256, and the product of two int8 values
is rescaled once onto the output grid. The gate's rounding (at most |a|/512) keeps the result
within one output step of the quantized module, which rounds only once.
"""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.elementwise import emit
from arm.ops.common.float_math import FloatMath
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, first_reason
from arm.ops.common.table import quantized_function_table, table
from arm.ops.common.unary import annotate_unary, unary_support
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue, slice_tensor
from arm.tosa.quantization import QParams
from arm.tosa.rescale import from_int32, to_int32
from arm.tosa.specification import TosaSpecification

# sigmoid's range [0, 1) on int8 codes -128..127: step 1/256, zero point -128.
_GATE_GRID = QParams((1.0 / 256,), -128, np.dtype(np.int8))


def support(node: Node, spec: TosaSpecification) -> str | None:
    return first_reason(unary_support(node, spec), _odd_reason(node))


def _odd_reason(node: Node) -> str | None:
    dim = _dim(node)
    size = node.args[0].meta["val"].shape[dim]
    return None if size % 2 == 0 else f"{describe(node)}: dim {dim} has odd size {size}; glu halves it (torch raises)"


def _dim(node: Node) -> int:
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim", -1)
    return dim % len(node.args[0].meta["val"].shape)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    read = ctx.quantized_value if ctx.spec.is_int else ctx.value
    x = read(node.args[0])
    dim = _dim(node)
    size = list(x.shape)
    size[dim] //= 2
    second_start = [size[dim] if axis == dim else 0 for axis in range(x.rank)]
    value = slice_tensor(ctx.graph, x, [0] * x.rank, size, name=f"{node.name}_value")
    gate_input = slice_tensor(ctx.graph, x, second_start, size, name=f"{node.name}_gate_input")
    if ctx.spec.is_fp:
        math = FloatMath(ctx, node.name, x.rank, x.dtype)
        return math.mul(value, math.sigmoid(gate_input))
    entries = quantized_function_table(_sigmoid, gate_input.qparams, _GATE_GRID)
    gate = table(ctx.graph, gate_input, entries, name=f"{node.name}_gate", qparams=_GATE_GRID)
    # MUL takes no zero points: both factors move to int32 first (scale 1 keeps their steps).
    value32 = to_int32(ctx.graph, value, name=f"{node.name}_value_int32", scale=1.0)
    gate32 = to_int32(ctx.graph, gate, name=f"{node.name}_gate_int32", scale=1.0)
    shift = ctx.graph.add_scalar_const(f"{node.name}_shift", 0, np.int8)
    product = emit(
        ctx,
        ts.Op.MUL,
        ts.TosaSerializerAttribute.MulAttribute,
        [value32, gate32, shift],
        name=f"{node.name}_int32",
        shape=tuple(size),
        dtype=np.dtype(np.int32),
    )
    return from_int32(
        ctx.graph,
        product,
        name=node.name,
        accumulator_scales=[value.qparams.scale * _GATE_GRID.scale],
        output=ctx.output_qparams(node),
    )


def _sigmoid(real: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return torch.sigmoid(torch.from_numpy(real.astype(np.float32))).numpy().astype(np.float64)


def glu_channels(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.glu(x, dim=1)


TEST_CASES = {
    "last_dim": OpTestCase(torch.nn.GLU(), random_inputs(0, (2, 5, 16))),
    "channels": OpTestCase(FunctionModule(glu_channels), random_inputs(1, (1, 8, 4, 4))),
}

OP = ArmOp(
    name="glu",
    edge_targets=(exir_ops.edge.aten.glu.default,),
    aten_targets=(torch.ops.aten.glu.default,),
    support=support,
    annotate=annotate_unary,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.glu.default,),
)
