"""aten.copy(self, src) -> src broadcast to self's shape (RESHAPE, TILE): ``y.copy_(x)`` and ``x[i] = src``.

Export makes ``y.copy_(x)`` functional as copy(y, x); functionalization turns an in-place write into a
view into copy(selected view, src) followed by a scatter (select_scatter, slice_scatter) of the
result. Either way the copy only broadcasts src; self's values are not read. Quantized, the result
keeps src's grid; integer data (int32 ids written into a view: BART's shifted decoder ids) is copied as
it is, in the INT profile. A copy that changes the dtype stays on the CPU. (The file is named for
``Tensor.copy_``: a plain ``copy.py`` would shadow Python's ``copy`` module for scripts run from here.)
"""

from __future__ import annotations

import math

import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.integer_arithmetic import integer_data_support, is_integer_arithmetic
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    target, src = node.args[:2]
    if not isinstance(src, Node):
        return f"{describe(node)}: the copied value must be a tensor"
    if dtype_of(src) != dtype_of(target):
        return f"{describe(node)}: copies {dtype_of(src)} into {dtype_of(target)}; a converting copy runs on the CPU"
    if is_integer_arithmetic(node):
        return integer_data_support(node, spec)
    return first_reason(profile_reason(node, spec, [src]), rank_reason(node, shape_of(node)))


def annotate_copy(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[1], config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    src = node.args[1]
    value = ctx.value(src)
    if ctx.spec.is_int and not is_integer_arithmetic(node):  # integer data moves as it is
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    shape = shape_of(node)
    ranked = (1,) * (len(shape) - value.rank) + value.shape
    multiples = [extent if size == 1 else 1 for size, extent in zip(ranked, shape)]
    if math.prod(multiples) == 1:
        return reshape(ctx.graph, value, shape, name=node.name)
    value = reshape(ctx.graph, value, ranked, name=f"{node.name}_ranked") if value.shape != ranked else value
    output = ctx.graph.add_tensor(node.name, shape, value.dtype, value.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.TileAttribute()
    ctx.graph.add_op(ts.Op.TILE, [value, ctx.graph.add_shape_const(f"{node.name}_multiples", multiples)], [output], attribute)
    return output


def row_written_in_place(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    x[-1] = src
    return x


def block_broadcast_in_place(x: torch.Tensor, src: torch.Tensor) -> torch.Tensor:
    x = x.clone()
    x[:, 1:3] = src  # src (1, 6) broadcast over the two rows
    return x


def overwrite_a_clone(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    scratch = x.clone()
    scratch.copy_(y)
    return scratch + x


TEST_CASES = {
    "overwrite": OpTestCase(FunctionModule(overwrite_a_clone), random_inputs(0, (2, 3, 8), (2, 3, 8))),
    "row_in_place": OpTestCase(FunctionModule(row_written_in_place), random_inputs(0, (5, 8), (8,))),
    "broadcast_block_in_place": OpTestCase(FunctionModule(block_broadcast_in_place), random_inputs(1, (2, 4, 6), (1, 6))),
}

OP = ArmOp(
    name="copy_",
    edge_targets=(exir_ops.edge.aten.copy.default,),
    aten_targets=(torch.ops.aten.copy.default, torch.ops.aten.copy_.default),
    support=support,
    annotate=annotate_copy,
    lower=lower,
    test_cases=TEST_CASES,
)
