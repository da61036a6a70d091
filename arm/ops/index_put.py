"""aten.index_put (``x[:, i] = v``, ``x[i, j] = v``, ``x.index_put((i,), v)``, index_copy; index_put_ too)
-> TOSA SCATTER of v's rows into x viewed as [before, indexed, after]; quantized, x, v and the output
share one int8 grid (SCATTER copies codes).

Index tensors (broadcast against each other) are one flat row position each in the indexed dims
(common/flat_index.py, shared with index: constants folded, int32 MUL and ADD at run time; indexed
dims that are not adjacent, ``x[i, :, j]``, move to the front by a TRANSPOSE, where PyTorch lays out
their written values too).
Repeated positions (two writes of one row) are legal in PyTorch, where the last write wins, but not
in TOSA SCATTER: common/scatter.py sends every overwritten write to a spare row. accumulate=True adds
into x, which SCATTER cannot: in the INT profile int8 rows are added by a one-hot MATMUL (repeats
summed, exact in int32, one RESCALE; common/scatter.py ``one_hot_accumulate_rows``); FP and integer
data keep it on the CPU. A bool mask (the only index, None elsewhere) with values that take one value
at every True element (their size 1 in the mask's place: the number of True elements is known at run
time only) is SELECT(mask, values, x). The U55 has no SCATTER at all, and Vela 5.2.0 reads
none for the U85: there the rows are written by a one-hot MATMUL and a SELECT instead
(common/scatter.py ``one_hot_scatter_rows``), for int8 data of up to 64 KiB. Run-time indices must be in [0, size) (PyTorch's negative
ones count from the end: that holds for constant indices only).
"""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import SharedQuantizationSpec

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.flat_index import flat_positions, index_tensors, indexed_shape, indexed_view, rows_shape
from arm.ops.common.integer_arithmetic import integer_data_support, is_integer_arithmetic
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.gather import MAX_ONE_HOT_BYTES, MAX_ONE_HOT_TABLE_BYTES, element_type
from arm.ops.common.scatter import one_hot_accumulate_rows, one_hot_scatter_rows, scatter_rows
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.ops.common.tile import broadcast_value
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.layout import transpose
from arm.tosa.rescale import requantize
from arm.tosa.specification import TosaSpecification


def _accumulates(node: Node) -> bool:
    return bool(node.args[3] if len(node.args) > 3 else node.kwargs.get("accumulate", False))


def bool_mask(node: Node) -> tuple[int, Node] | None:
    """(dim, mask) when the only index is one bool mask over x's dims from ``dim`` on (None elsewhere)."""
    indices = index_tensors(node)
    if len(indices) == 1 and dtype_of(indices[0][1]) == torch.bool:
        return indices[0]
    return None


def _masked_values_shape(node: Node) -> tuple[int, ...] | None:
    """The written values laid out over x's dims (the mask's dims of size 1), when they take the same value
    at every masked position: PyTorch's values broadcast to [before..., count, after...] with ``count`` the
    number of True elements, known only at run time, so their own size there must be 1. None otherwise."""
    dim, mask = bool_mask(node)
    values = node.args[2]
    mask_rank, rank = len(shape_of(mask)), len(shape_of(node.args[0]))
    written_rank = rank - mask_rank + 1
    values_shape = shape_of(values)
    if len(values_shape) > written_rank:
        return None
    padded = (1,) * (written_rank - len(values_shape)) + tuple(values_shape)
    if padded[dim] != 1:
        return None
    laid_out = (*padded[:dim], *(1,) * mask_rank, *padded[dim + 1 :])
    return laid_out if _broadcasts(laid_out, shape_of(node.args[0])) else None


def _bool_mask_support(node: Node, spec: TosaSpecification) -> str | None:
    """A bool mask writes one value at each True element: SELECT(mask, values, x), no SCATTER."""
    x, _, values = node.args[:3]
    if _accumulates(node):
        return f"{describe(node)}: accumulate=True with a bool mask index is not lowered; it runs on the CPU"
    if not isinstance(values, Node) or _masked_values_shape(node) is None:
        return (
            f"{describe(node)}: a bool mask writes as many rows as it has True elements (known at run time); only "
            "values of one row for all of them (size 1 in the mask's place) are lowered, as a SELECT"
        )
    if is_integer_arithmetic(node):
        data = integer_data_support(node, spec, [x, values, node])
    else:
        data = first_reason(profile_reason(node, spec, [x, values]), rank_reason(node, shape_of(x)))
    return data


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, _, values = node.args[:3]
    if spec.has("u55"):
        return f"{describe(node)}: the U55 has no SCATTER; the write stays on the CPU"
    if bool_mask(node) is not None:
        return _bool_mask_support(node, spec)
    if _accumulates(node) and (spec.is_fp or is_integer_arithmetic(node)):
        return (
            f"{describe(node)}: accumulate=True adds into x, which TOSA SCATTER cannot; the INT profile adds "
            "quantized int8 rows by a one-hot MATMUL, so this one runs on the CPU"
        )
    indices = index_tensors(node)
    for _, index in indices:
        if dtype_of(index) != torch.int32:
            return (
                f"{describe(node)}: index {index.name} is {dtype_of(index)}; TOSA has no int64 or bool index, "
                "so pass int32 indices (a bool mask is a data-dependent write: use torch.where)"
            )
    if not indices:
        return f"{describe(node)}: no index tensor (every index is None); write the values with copy_ instead"
    if not isinstance(values, Node):
        return f"{describe(node)}: the written values must be a tensor"
    expected = indexed_shape(node)
    if not _broadcasts(shape_of(values), expected):
        return (
            f"{describe(node)}: values {values.name} of shape {shape_of(values)} do not broadcast to the written "
            f"rows {expected}; give values of that shape (or one that broadcasts to it)"
        )
    if is_integer_arithmetic(node):  # int8/int16/int32 data, not quantized reals: SCATTER moves it as it is
        data = integer_data_support(node, spec)
    else:
        data = first_reason(profile_reason(node, spec, [x, values]), rank_reason(node, shape_of(x)))
    one_hot = spec.is_int and (spec.has("u85") or _accumulates(node))
    return first_reason(data, _one_hot_reason(node) if one_hot else None)


def _one_hot_reason(node: Node) -> str | None:
    """The one-hot write (module doc; the U85's, and accumulate=True's): int8, within common/gather.py's
    one-hot bounds."""
    x = node.args[0]
    before, size, rows, after = rows_shape(node)
    no_scatter = (
        f"{describe(node)}: accumulate=True adds by a one-hot MATMUL, which"
        if _accumulates(node)
        else f"{describe(node)}: Vela 5.2.0 reads no SCATTER for the U85, and the one-hot MATMUL that stands in for it"
    )
    element = element_type(x)
    if element != torch.int8:
        return (
            f"{no_scatter} multiplies int8 only (TOSA's int16 MATMUL has an int48 result), but {x.name} is "
            f"{element}; the write stays on the CPU"
        )
    if before * size * after > MAX_ONE_HOT_TABLE_BYTES or before * size * rows > MAX_ONE_HOT_BYTES:
        return (
            f"{no_scatter} reads the whole {before}x{size}x{after} tensor and a {before}x{size}x{rows} one-hot "
            f"matrix per call (bounds: {MAX_ONE_HOT_TABLE_BYTES} and {MAX_ONE_HOT_BYTES} bytes); the write stays on the CPU"
        )
    return None


def _broadcasts(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    try:
        return tuple(torch.broadcast_shapes(shape, target)) == target
    except RuntimeError:
        return False


def annotate_index_put(node: Node, config: QuantizationConfig) -> None:
    """x, the written values and the result share x's grid: SCATTER moves int8 codes unchanged.

    ``x.index_copy(dim, index, source)`` (and index_copy_, in place) is still index_copy when pt2e
    annotates (to_edge makes it an index_put with ``dim`` leading Nones), with the values last."""
    copies = node.target in (torch.ops.aten.index_copy.default, torch.ops.aten.index_copy_.default)
    x, values = (node.args[0], node.args[3]) if copies else (node.args[0], node.args[2])
    shared = SharedQuantizationSpec((x, node))
    inputs = {x: config.activation}
    if isinstance(values, Node) and values is not x:
        inputs[values] = shared
    annotate(node, inputs, shared)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, _, values = node.args[:3]
    base, written = ctx.value(x), ctx.value(values)
    if ctx.spec.is_int and not is_integer_arithmetic(node):
        output = ctx.output_qparams(node)
        base = requantize(ctx.graph, base, name=f"{node.name}_base_rescaled", output=output)
        written = requantize(ctx.graph, written, name=f"{node.name}_values_rescaled", output=output)
    if bool_mask(node) is not None:
        return _lower_bool_mask(node, ctx, base, written)
    before, size, rows, after = rows_shape(node)
    permutation, view_shape, _ = indexed_view(node)
    if permutation is not None:
        base = transpose(ctx.graph, base, permutation, name=f"{node.name}_indexed_first")
    base = reshape(ctx.graph, base, (before, size, after), name=f"{node.name}_base")
    if written.shape != indexed_shape(node):  # values that broadcast (a row written to every row)
        written = broadcast_value(ctx, written, indexed_shape(node), name=f"{node.name}_values_broadcast")
    written = reshape(ctx.graph, written, (before, rows, after), name=f"{node.name}_rows")
    if _accumulates(node):
        write = one_hot_accumulate_rows
    else:
        write = one_hot_scatter_rows if ctx.spec.is_int and ctx.spec.has("u85") else scatter_rows
    result = write(ctx.graph, base, flat_positions(node, ctx), written, name=node.name)
    if permutation is None:
        return reshape(ctx.graph, result, shape_of(node), name=node.name)
    result = reshape(ctx.graph, result, view_shape, name=f"{node.name}_view")
    return transpose(ctx.graph, result, tuple(int(axis) for axis in np.argsort(permutation)), name=node.name)


def _lower_bool_mask(node: Node, ctx: LoweringContext, base: TosaValue, written: TosaValue) -> TosaValue:
    """SELECT(mask, values, x), the mask and the values laid out over x's dims (size 1 where they broadcast)."""
    dim, mask = bool_mask(node)
    rank = len(shape_of(node))
    mask_shape = (*(1,) * dim, *shape_of(mask), *(1,) * (rank - dim - len(shape_of(mask))))
    condition = reshape(ctx.graph, ctx.value(mask), mask_shape, name=f"{node.name}_mask")
    written = reshape(ctx.graph, written, _masked_values_shape(node), name=f"{node.name}_values_laid_out")
    output = ctx.graph.add_tensor(node.name, shape_of(node), base.dtype, base.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.SelectAttribute()
    ctx.graph.add_op(ts.Op.SELECT, [condition, written, base], [output], attribute)
    return output


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


def write_apart_by_input(x: torch.Tensor, rows: torch.Tensor, depths: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    """``x[rows, :, depths] = values``: indexed dims 0 and 2, not adjacent, so values are [written, x.shape[1]]."""
    return torch.ops.aten.index_put.default(x, [rows, None, depths], values)


def write_where_masked(x: torch.Tensor, mask: torch.Tensor, value: torch.Tensor) -> torch.Tensor:
    """``x[:, mask] = value`` with a bool mask over dim 1 and one value for every masked element."""
    return torch.ops.aten.index_put.default(x, [None, mask], value)


def write_masked_rows(x: torch.Tensor, mask: torch.Tensor, row: torch.Tensor) -> torch.Tensor:
    """``x[mask] = row``: the same [1, 3, 4] row written at each True element of a mask over dim 0."""
    return torch.index_put(x, (mask,), row)


def copy_columns_by_input(x: torch.Tensor, columns: torch.Tensor, source: torch.Tensor) -> torch.Tensor:
    """``x.index_copy(1, columns, source)``: pt2e annotates index_copy, to_edge makes it an index_put."""
    return x.index_copy(1, columns, source)


def accumulate_rows(x: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.index_put(x, (torch.tensor([0, 2], dtype=torch.int32),), values, accumulate=True)


def accumulate_rows_by_input(x: torch.Tensor, rows: torch.Tensor, values: torch.Tensor) -> torch.Tensor:
    return torch.index_put(x, (rows,), values, accumulate=True)


_U55 = ("u55_INT",)  # no SCATTER; the U85 writes by one-hot MATMUL

TEST_CASES = {
    # Two middle-dim rows, one counted from the end; x's and v's ranges differ, so the shared grid matters.
    "columns_constant": OpTestCase(
        _WriteRows([3, -1]), (random_inputs(0, (2, 5, 4))[0], 2.0 * random_inputs(1, (2, 2, 4))[0]), cpu_targets=_U55
    ),
    "kv_cache_position": OpTestCase(
        FunctionModule(write_one_position),
        (random_inputs(2, (6, 8))[0], torch.tensor([4], dtype=torch.int32), random_inputs(3, (1, 8))[0]),
        cpu_targets=_U55,
    ),
    # Runtime rows, row 3 written twice: the last write wins, as in PyTorch (the first goes to a spare row).
    "runtime_rows": OpTestCase(
        FunctionModule(write_rows_by_input),
        (random_inputs(5, (4, 3))[0], torch.tensor([3, 1, 3], dtype=torch.int32), random_inputs(6, (3, 3))[0]),
        cpu_targets=_U55,
    ),
    "runtime_apart": OpTestCase(
        FunctionModule(write_apart_by_input),
        (
            random_inputs(13, (2, 3, 4))[0],
            torch.tensor([1, 0], dtype=torch.int32),
            torch.tensor([2, 3], dtype=torch.int32),
            random_inputs(14, (2, 3))[0],
        ),
        cpu_targets=_U55,
    ),
    # int64 columns, as index_copy takes them: the flow narrows them to int32 at the delegate's edge.
    # What it adds (index_copy's annotation at pt2e) is INT-only, and the U55 has no SCATTER.
    "index_copy": OpTestCase(
        FunctionModule(copy_columns_by_input),
        (random_inputs(11, (3, 4, 2))[0], torch.tensor([2, 0]), 2.0 * random_inputs(12, (3, 2, 2))[0]),
        targets=("tosa_INT", "vgf_INT", "u85_INT"),
    ),
    # One row of values written to both indexed rows of every batch: TILEd to the written rows first.
    "broadcast_values": OpTestCase(
        _WriteRows([0, 2]), (random_inputs(7, (2, 5, 4))[0], 2.0 * random_inputs(8, (4,))[0]), cpu_targets=_U55
    ),
    # Bool masks (model inputs): SELECT(mask, value, x); the U55 has no SELECT.
    "bool_mask_scalar": OpTestCase(
        FunctionModule(write_where_masked),
        (random_inputs(15, (2, 3, 4))[0], torch.tensor([True, False, True]), torch.tensor(0.25)),
        cpu_targets=_U55,
    ),
    "bool_mask_rows": OpTestCase(
        FunctionModule(write_masked_rows),
        (random_inputs(16, (3, 3, 4))[0], torch.tensor([False, True, True]), 1.5 * random_inputs(17, (1, 3, 4))[0]),
        cpu_targets=_U55,
    ),
    "accumulate": OpTestCase(
        FunctionModule(accumulate_rows), random_inputs(4, (4, 3), (2, 3)), cpu_targets=("tosa_FP", "vgf_FP", "u55_INT")
    ),
    # Run-time rows, row 2 written twice: both writes add into it (the peer's rank3_accumulate form).
    "accumulate_runtime_repeats": OpTestCase(
        FunctionModule(accumulate_rows_by_input),
        (random_inputs(9, (5, 3))[0], torch.tensor([2, 0, 2], dtype=torch.int32), random_inputs(10, (3, 3))[0]),
        cpu_targets=("tosa_FP", "vgf_FP", "u55_INT"),
    ),
}

OP = ArmOp(
    name="index_put",
    edge_targets=(exir_ops.edge.aten.index_put.default,),
    aten_targets=(torch.ops.aten.index_put.default, torch.ops.aten.index_copy.default, torch.ops.aten.index_copy_.default),
    support=support,
    annotate=annotate_index_put,
    lower=lower,
    test_cases=TEST_CASES,
)
