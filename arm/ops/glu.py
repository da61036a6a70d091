"""aten.glu -> a * SIGMOID(b) for the two halves a, b of x along dim (FP), or SLICEs, one TABLE for the
gate and a MUL (INT).

to_edge would write glu as two slices, sigmoid and mul, with no quantization between them (the
quantizer saw one glu): those would stay on the CPU in the INT profile. Kept whole, the INT gate
sigmoid(b) is a TABLE onto a fixed [0, 1) grid of step 1/256, and the product of two int8 values
is rescaled once onto the output grid. The gate's rounding (at most |a|/512) keeps the result
within one output step of the quantized module, which rounds only once, while the output grid is
about as coarse as a's.

When it is much finer (gates far below 1: ExecuTorch's ``randn - 10`` case, gates near 5e-5 and an
output step of 1.5e-5, where the [0, 1) grid rounds every gate to 0), the gate is looked up in units
of 1/256 output step instead: two int8 TABLEs give a 16-bit gate G (``fixed_point.lookup16``), and
the int32 product A G (A the code of a less its zero point, |A| <= 255) is that many units. Its
rounding error is at most 255/2 units, half an output step. Gates of 65535 units or more saturate
the output for any nonzero A, so the lookup clips them there. On the U55 the value half is copied out of
x before it is widened for that MUL (arm/tosa/widened_window_copies.py: Vela 5.2.0 loses the window there).
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
from arm.ops.common.fixed_point import Int32Emitter
from arm.ops.common.table import INT8_VALUES, quantized_function_table, table
from arm.ops.common.unary import annotate_unary, unary_support
from arm.tosa.context import LoweringContext
from arm.tosa.graph import TosaValue, slice_tensor
from arm.tosa.quantization import QParams
from arm.tosa.rescale import from_int32, to_int32
from arm.tosa.specification import TosaSpecification

# sigmoid's range [0, 1) on int8 codes -128..127: step 1/256, zero point -128.
_GATE_GRID = QParams((1.0 / 256,), -128, np.dtype(np.int8))
# The fine path's gate unit is 1/256 output step; its 16-bit lookup holds gates up to 65535 units.
_FINE_UNITS_PER_STEP = 256
_FINE_GATE_MAX = 0xFFFF


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
    output = ctx.output_qparams(node)
    gates = _sigmoid((INT8_VALUES - gate_input.qparams.zero_point) * gate_input.qparams.scale)
    # MUL takes no zero points: both factors move to int32 first (scale 1 keeps their steps).
    value32 = to_int32(ctx.graph, value, name=f"{node.name}_value_int32", scale=1.0)
    ints = Int32Emitter(ctx.graph, node.name, x.rank)
    if _gate_grid_error(gates, value.qparams) <= output.scale:
        entries = quantized_function_table(_sigmoid, gate_input.qparams, _GATE_GRID)
        gate = table(ctx.graph, gate_input, entries, name=f"{node.name}_gate", qparams=_GATE_GRID)
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
        scale = value.qparams.scale * _GATE_GRID.scale
        return from_int32(ctx.graph, product, name=node.name, accumulator_scales=[scale], output=output)
    unit = output.scale / _FINE_UNITS_PER_STEP
    units = np.minimum(np.round(gates * value.qparams.scale / unit), _FINE_GATE_MAX).astype(np.int64)
    # The 16-bit gate from two int8 TABLEs; A * gate stays below 2**24, so one int32 MUL is exact.
    gate = ints.lookup16(gate_input, units, "gate")
    product = ints.mul(value32, gate, "int32", shift=0)
    return from_int32(ctx.graph, product, name=node.name, accumulator_scales=[unit], output=output)


def _gate_grid_error(gates: np.ndarray, value: QParams) -> float:
    """The largest real error the [0, 1) gate grid makes in a product: the worst gate rounding times
    the largest |a| the value grid holds."""
    rounded = np.clip(np.round(gates / _GATE_GRID.scale) + _GATE_GRID.zero_point, -128, 127)
    gate_error = np.abs((rounded - _GATE_GRID.zero_point) * _GATE_GRID.scale - gates).max()
    largest_code = max(abs(-128 - value.zero_point), abs(127 - value.zero_point))
    return float(gate_error * largest_code * value.scale)


def _sigmoid(real: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return torch.sigmoid(torch.from_numpy(real.astype(np.float32))).numpy().astype(np.float64)


def glu_channels(x: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.glu(x, dim=1)


def small_gates(seed: int) -> tuple[torch.Tensor]:
    """Gate inputs near -10 (ExecuTorch's ``randn - 10`` case): gates near 5e-5, an output grid far finer
    than a's, which the fine gate lookup serves."""
    (x,) = random_inputs(seed, (6, 8))
    return (x - 10.0,)


TEST_CASES = {
    "last_dim": OpTestCase(torch.nn.GLU(), random_inputs(0, (2, 5, 16))),
    # On the U55 the value half is copied before it is widened (arm/tosa/widened_window_copies.py).
    "small_gates": OpTestCase(torch.nn.GLU(), small_gates(2)),
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
