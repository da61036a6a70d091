"""aten.index_put (``x[:, idx] = v``, ``x.index_put((idx,), v)``; index_put_ too) -> TOSA SCATTER of v's rows
into x viewed as [before, dim, after]; quantized, x, v and the output share one int8 grid (SCATTER copies codes).

One indexed dim is lowered. TOSA SCATTER writes each row once and forbids writing a row twice, and
it cannot add: accumulate=True, constant indices that repeat, and runtime indices of more than one
element (which might repeat) stay on the CPU. A single runtime index, the KV-cache update, is lowered.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.gather import index_value
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.ops.common.tile import broadcast_value
from arm.ops.index import indexed_dim
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def _accumulates(node: Node) -> bool:
    return bool(node.args[3] if len(node.args) > 3 else node.kwargs.get("accumulate", False))


def _rows_shape(node: Node) -> tuple[int, int, int, int]:
    """(before, dim size, written rows, after) of the [before, dim, after] view SCATTER writes."""
    x = node.args[0]
    dim, index = indexed_dim(node)
    shape = shape_of(x)
    return math.prod(shape[:dim]), shape[dim], math.prod(shape_of(index)), math.prod(shape[dim + 1 :])


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, _, values = node.args[:3]
    if spec.has("u55") or spec.has("u85"):
        return f"{describe(node)}: Ethos-U has no SCATTER (Vela 5.2.0 fails to read one); the write stays on the CPU"
    if _accumulates(node):
        return f"{describe(node)}: accumulate=True adds into x; TOSA SCATTER only writes, so it runs on the CPU"
    chosen = indexed_dim(node)
    if chosen is None:
        return f"{describe(node)}: only one indexed dim (x[:, idx] = v) is lowered, as a SCATTER"
    dim, index = chosen
    if dtype_of(index) != torch.int32:
        return (
            f"{describe(node)}: index {index.name} is {dtype_of(index)}; TOSA has no int64 or bool index, "
            "so pass int32 indices (a bool mask is a data-dependent write: use torch.where)"
        )
    if not isinstance(values, Node):
        return f"{describe(node)}: the written values must be a tensor"
    expected = _written_shape(node)
    if math.prod(shape_of(values)) != math.prod(expected) and not _broadcasts(shape_of(values), expected):
        return (
            f"{describe(node)}: values {values.name} of shape {shape_of(values)} do not broadcast to the written "
            f"rows {expected}; give values of that shape (or one that broadcasts to it)"
        )
    return first_reason(
        _repeat_reason(node, index),
        profile_reason(node, spec, [x, values]),
        rank_reason(node, shape_of(x)),
    )


def _written_shape(node: Node) -> tuple[int, ...]:
    """The shape of what the write puts into x: x's shape with the indexed dim replaced by the index's."""
    x = node.args[0]
    dim, index = indexed_dim(node)
    return (*shape_of(x)[:dim], *shape_of(index), *shape_of(x)[dim + 1 :])


def _broadcasts(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return tuple(torch.broadcast_shapes(shape, target)) == target
    except RuntimeError:
        return False


def _repeat_reason(node: Node, index: Node) -> str | None:
    """A computed index of several elements might repeat. A placeholder's data is only known to the
    lowering: a constant is checked there, and a model input of several elements fails there, so the
    flow keeps the node on the CPU with that reason (arm/fallback.py)."""
    if math.prod(shape_of(index)) == 1 or index.op == "placeholder":
        return None
    return (
        f"{describe(node)}: index {index.name} of {math.prod(shape_of(index))} elements is computed at run time "
        "and might repeat; TOSA SCATTER forbids writing a row twice, so only constant or single-element "
        "indices are lowered"
    )


def annotate_index_put(node: Node, config: QuantizationConfig) -> None:
    """x, the written values and the result share x's grid: SCATTER moves int8 codes unchanged."""
    x, _, values = node.args[:3]
    shared = SharedQuantizationSpec((x, node))
    inputs = {x: config.activation}
    if isinstance(values, Node) and values is not x:
        inputs[values] = shared
    annotate(node, inputs, shared)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, _, values = node.args[:3]
    _, index = indexed_dim(node)
    before, size, rows, after = _rows_shape(node)
    if ctx.is_constant(index):
        data = ctx.constant(index).numpy().astype(np.int64) % size
        if len(np.unique(data)) != data.size:
            raise ValueError(
                f"{describe(node)}: constant index {index.name} repeats a row ({data.ravel().tolist()}); "
                "TOSA SCATTER writes each row once: index each row once"
            )
    elif rows > 1:
        raise ValueError(
            f"{describe(node)}: model input {index.name} indexes {rows} rows, which might repeat; TOSA SCATTER "
            "forbids writing a row twice, so only constant or single-element runtime indices are lowered"
        )
    base, written = ctx.value(x), ctx.value(values)
    if ctx.spec.is_int:
        output = ctx.output_qparams(node)
        base = requantize(ctx.graph, base, name=f"{node.name}_base_rescaled", output=output)
        written = requantize(ctx.graph, written, name=f"{node.name}_values_rescaled", output=output)
    base = reshape(ctx.graph, base, (before, size, after), name=f"{node.name}_base")
    if math.prod(written.shape) != before * rows * after:  # values that broadcast (a row written to every row)
        written = broadcast_value(ctx, written, _written_shape(node), name=f"{node.name}_values_broadcast")
    written = reshape(ctx.graph, written, (before, rows, after), name=f"{node.name}_rows")
    indices = _positive(ctx, index, before, size, name=f"{node.name}_indices")
    result = ctx.graph.add_tensor(f"{node.name}_scattered", base.shape, base.dtype, base.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.ScatterAttribute()
    ctx.graph.add_op(ts.Op.SCATTER, [base, indices, written], [result], attribute)
    return reshape(ctx.graph, result, shape_of(node), name=node.name)


def _positive(ctx: LoweringContext, index: Node, rows: int, size: int, *, name: str) -> TosaValue:
    """The [rows, W] index SCATTER takes; constant negative indices count from the end, as in PyTorch."""
    if ctx.is_constant(index):
        data = ctx.constant(index).numpy().astype(np.int64).reshape(1, -1) % size
        return ctx.graph.add_const(name, np.ascontiguousarray(np.repeat(data.astype(np.int32), rows, axis=0)))
    return index_value(ctx, index, rows, name=name)


class _WriteRows(torch.nn.Module):
    """``x[:, idx] = v`` on a copy of x, idx a fixed int32 buffer."""

    def __init__(self, indices: list[int]) -> None:
        super().__init__()
        self.register_buffer("indices", torch.tensor(indices, dtype=torch.int32))

    def forward(self, x: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
        x = x.clone()
        x[:, self.indices] = values
        return x


def write_one_position(cache: torch.Tensor, position: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """A KV-cache update: one runtime position of a [positions, width] cache overwritten in place (index_put_)."""
    cache = cache.clone()
    cache[position] = values
    return cache


def write_rows_by_input(x: torch.Tensor, rows: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.index_put(x, (rows,), values)


def accumulate_rows(x: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.index_put(x, (torch.tensor([0, 2], dtype=torch.int32),), values, accumulate=True)


_ETHOS_U = ("u55_INT", "u85_INT")
_EVERY_TARGET = ("tosa_FP", "tosa_INT", "u55_INT", "u85_INT", "vgf_FP", "vgf_INT")

TEST_CASES = {
    # Two middle-dim rows, one counted from the end; x's and v's ranges differ, so the shared grid matters.
    "columns_constant": OpTestCase(
        _WriteRows([3, -1]), (random_inputs(0, (2, 5, 4))[0], 2.0 * random_inputs(1, (2, 2, 4))[0]), cpu_targets=_ETHOS_U
    ),
    "kv_cache_position": OpTestCase(
        FunctionModule(write_one_position),
        (random_inputs(2, (6, 8))[0], torch.tensor([4], dtype=torch.int32), random_inputs(3, (1, 8))[0]),
        cpu_targets=_ETHOS_U,
    ),
    # Two runtime rows might be one row twice: the lowering refuses, and the flow keeps the node on the CPU.
    "runtime_rows": OpTestCase(
        FunctionModule(write_rows_by_input),
        (random_inputs(5, (4, 3))[0], torch.tensor([3, 1], dtype=torch.int32), random_inputs(6, (2, 3))[0]),
        cpu_targets=_EVERY_TARGET,
    ),
    # One row of values written to both indexed rows of every batch: TILEd to the written rows first.
    "broadcast_values": OpTestCase(
        _WriteRows([0, 2]), (random_inputs(7, (2, 5, 4))[0], 2.0 * random_inputs(8, (4,))[0]), cpu_targets=_ETHOS_U
    ),
    "accumulate": OpTestCase(FunctionModule(accumulate_rows), random_inputs(4, (4, 3), (2, 3)), cpu_targets=_EVERY_TARGET),
}

OP = ArmOp(
    name="index_put",
    edge_targets=(exir_ops.edge.aten.index_put.default,),
    aten_targets=(torch.ops.aten.index_put.default,),
    support=support,
    annotate=annotate_index_put,
    lower=lower,
    test_cases=TEST_CASES,
)
