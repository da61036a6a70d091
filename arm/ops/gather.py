"""aten.gather(x, dim, index) -> one TOSA GATHER of x's elements by their flat offsets.

``out[p] = x[p with p[dim] replaced by index[p]]`` picks a different element for every output position,
which TOSA GATHER's [N, K, C] row lookup expresses only with the tensor flattened to [1, numel, 1] and
each position's flat offset as its index. For constant indices the offsets are computed at compile
time; for runtime indices they are ``index * stride[dim] + offset of p with p[dim] = 0`` in int32 (MUL
and ADD, which both TOSA profiles have for int32). Quantized, the output keeps the input's grid.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.gather import gather, indices_reason
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import first_reason, float8_moved, profile_reason, rank_reason
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, _, index = node.args[:3]
    return first_reason(
        indices_reason(node, index, spec),
        None if spec.is_fp and float8_moved(spec, [x, node]) else profile_reason(node, spec, [x]),  # float8 rows move
        rank_reason(node, shape_of(x)),
    )


def annotate_gather(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def flat_offsets(shape: tuple[int, ...], dim: int, index: np.ndarray) -> np.ndarray:
    """Each output position's offset into ``x`` of ``shape`` flattened: its own coordinates, with dim's from index."""
    coordinates = list(np.indices(index.shape))
    coordinates[dim] = index.astype(np.int64) % shape[dim]
    return np.ravel_multi_index(coordinates, shape).astype(np.int32)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, dim, index = node.args[:3]
    shape = shape_of(x)
    dim %= len(shape)
    value = ctx.value(x)
    if ctx.spec.is_int:
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    table = reshape(ctx.graph, value, (1, math.prod(shape), 1), name=f"{node.name}_table")
    if ctx.is_constant(index):
        offsets = flat_offsets(shape, dim, ctx.constant(index).numpy())
        chosen = ctx.graph.add_const(f"{node.name}_offsets", offsets.reshape(1, -1))
    else:
        flat = reshape(ctx.graph, ctx.value(index), (1, math.prod(shape_of(index))), name=f"{node.name}_index")
        chosen = _runtime_offsets(ctx, flat, shape, dim, shape_of(index), name=f"{node.name}_offsets")
    return reshape(ctx.graph, gather(ctx, table, chosen, name=f"{node.name}_elements"), shape_of(node), name=node.name)


def _runtime_offsets(
    ctx: LoweringContext, index: TosaValue, shape: tuple[int, ...], dim: int, index_shape: tuple[int, ...], *, name: str
) -> TosaValue:
    """``index * stride[dim] + base`` as [1, W] int32, base being each position's offset with its dim coordinate 0."""
    stride = math.prod(shape[dim + 1 :])
    base = flat_offsets(shape, dim, np.zeros(index_shape, np.int32)).reshape(1, -1)
    if stride != 1:
        scaled = ctx.graph.add_tensor(f"{name}_scaled", index.shape, np.int32)
        operands = [
            index,
            ctx.graph.add_const(f"{name}_stride", np.full((1, 1), stride, np.int32)),
            ctx.graph.add_scalar_const(f"{name}_shift", 0, np.int8),
        ]
        attribute = ts.TosaSerializerAttribute()
        attribute.MulAttribute()
        ctx.graph.add_op(ts.Op.MUL, operands, [scaled], attribute)
        index = scaled
    output = ctx.graph.add_tensor(name, index.shape, np.int32)
    attribute = ts.TosaSerializerAttribute()
    attribute.AddAttribute()
    ctx.graph.add_op(ts.Op.ADD, [index, ctx.graph.add_const(f"{name}_base", base)], [output], attribute)
    return output


class _GatherConstant(torch.nn.Module):
    def __init__(self, dim: int, index: torch.Tensor) -> None:
        super().__init__()
        self.dim = dim
        self.register_buffer("index", index.to(torch.int32))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.gather(x, self.dim, self.index)


def gather_by_input(x: torch.Tensor, index: torch.Tensor) -> torch.Tensor:
    return torch.gather(x, 1, index)


def _index(seed: int, high: int, shape: tuple[int, ...]) -> torch.Tensor:
    return torch.randint(0, high, shape, generator=torch.Generator().manual_seed(seed), dtype=torch.int32)


_ETHOS_U = ("u55_INT", "u85_INT")  # no GATHER on the NPU: see arm/ops/common/gather.py

TEST_CASES = {
    # The index is smaller than x along the other dims too: those coordinates come from the index's own shape.
    "last_dim_smaller_index": OpTestCase(
        _GatherConstant(2, _index(0, 6, (2, 3, 4))), random_inputs(0, (2, 4, 6)), cpu_targets=_ETHOS_U
    ),
    "first_dim": OpTestCase(_GatherConstant(0, _index(1, 5, (3, 7))), random_inputs(1, (5, 7)), cpu_targets=_ETHOS_U),
    "runtime_index": OpTestCase(
        FunctionModule(gather_by_input), (*random_inputs(2, (3, 8, 2)), _index(2, 8, (3, 5, 2))), cpu_targets=_ETHOS_U
    ),
}

OP = ArmOp(
    name="gather",
    edge_targets=(exir_ops.edge.aten.gather.default,),
    aten_targets=(torch.ops.aten.gather.default,),
    support=support,
    annotate=annotate_gather,
    lower=lower,
    test_cases=TEST_CASES,
)
