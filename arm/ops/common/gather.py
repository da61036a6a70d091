"""TOSA GATHER for embedding and index_select: rows of a [N, K, C] table picked by [N, W] int32 indices;
and, for the Ethos-U85, the same lookup of a constant table as a one-hot convolution.

TOSA has no int64, so indices must be int32. The U55 has no GATHER. Vela 5.2.0 leaves every TOSA GATHER
on the CPU for the U85 although its U85 architecture has gather (measured: int8, int16 and int32
values; constant and input tables; [1, 10, 4] to [1, 256, 64] tables with 3 to 16 indices, N of 1 and
2; the Sram_Only, Shared_Sram and Dedicated_Sram_384KB memory modes; the peer's own Llama GATHERs too).
It does run EQUAL, CAST and CONV2D there, so a lookup in a constant table (an embedding) is lowered
for the U85 as ``onehot(ids) @ table``: EQUAL of the ids against 0..K-1, CAST of the bool to int8,
and a 1x1 CONV2D whose weights are the table's int8 rows. One term of each sum is nonzero, so the
result is the looked-up row exactly (``one_hot_rows``); 5,920 U85-256 cycles for a 256x64 table and 16 ids.
The U55 has no EQUAL either: there the one-hot matrix comes from a 1x1 CONV2D of the int16 ids with
weights 1 and bias -k (``id - k`` in row k's channel), rescaled to int8 with saturation (zero stays
zero, nothing else reaches it) and a TABLE that maps 0 to 1 and every other code to 0
(``_one_hot_from_differences``).
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.convolution import ConvGeometry, ConvWeights, emit_convolution
from arm.ops.common.integer_arithmetic import integer_data_support, is_integer_arithmetic
from arm.ops.common.support import describe, dtype_of, float8_moved, profile_reason
from arm.ops.common.table import table as table_lookup
from arm.tosa.cast import cast
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import INT48, TosaGraph, TosaValue, reshape, tosa_dtype
from arm.tosa.quantization import QParams, is_dequantize
from arm.tosa.rescale import from_int32, rescale
from arm.tosa.specification import TosaSpecification

# The one-hot matrix is [ids, rows] int8 in the NPU's SRAM: bound it well below the smallest SRAM a
# U85 system configuration gives Vela. And the convolution reads the whole table per call (its MACs are
# ids x rows x width) where a CPU gather reads the looked-up rows only: Llama-tiny's 256x64 table costs
# 5,920 U85-256 cycles for 16 ids; a GPT-2-sized one (50257x768) would read 38 MB per call. Larger
# lookups stay on the CPU, with the reason.
MAX_ONE_HOT_BYTES = 256 * 1024
MAX_ONE_HOT_TABLE_BYTES = 64 * 1024

# On a grid of scale 1 and zero point 0 the one-hot codes are the reals 0 and 1, and int8 data (not
# quantized) its own values.
ONE_HOT_GRID = QParams((1.0,), 0, np.dtype(np.int8))
# The U55's one-hot matrix is built from the ids as int16 (a16w8 CONV2D): a table of more rows would
# have ids that int16 cannot hold, and an out-of-range id saturated to 32767 must match no row.
MAX_U55_ONE_HOT_ROWS = (1 << 15) - 1
# What each NPU family's one-hot lookup stands in for, to open its reasons with.
_NO_GATHER = {"u55": "the U55 has no GATHER", "u85": "Vela 5.2.0 runs no GATHER on the U85"}


def looked_up_data_reason(node: Node, spec: TosaSpecification) -> str | None:
    """Why the rows ``node`` looks up (node.args[0]) cannot move on ``spec``: integer data by the shared
    integer-data rule, float8 rows on the float targets that move them, anything else by its profile."""
    x = node.args[0]
    if is_integer_arithmetic(node):
        return integer_data_support(node, spec)
    if spec.is_fp and float8_moved(spec, [x, node]):
        return None
    return profile_reason(node, spec, [x])


def indices_reason(
    node: Node, indices: Node, spec: TosaSpecification, *, one_hot_on_u85: bool = False, one_hot_on_u55: bool = False
) -> str | None:
    """The rule both ops share: a target with GATHER (or, with ``one_hot_on_u85`` / ``one_hot_on_u55``,
    that NPU's one-hot lookup), and int32 indices."""
    if spec.has("u55") and not one_hot_on_u55:
        return f"{describe(node)}: the U55 has no GATHER; the lookup stays on the CPU"
    if spec.has("u85") and not one_hot_on_u85:
        return f"{describe(node)}: Vela 5.2.0 runs no GATHER on the U85; the lookup stays on the CPU"
    if dtype_of(indices) != torch.int32:
        return (
            f"{describe(node)}: indices {indices.name} are {dtype_of(indices)}; TOSA has no int64, "
            "so pass int32 indices (e.g. indices.to(torch.int32))"
        )
    return None


def index_value(ctx: LoweringContext, indices: Node, rows: int, *, name: str) -> TosaValue:
    """The indices as the [rows, W] tensor GATHER takes; constants are repeated per row at compile time."""
    if ctx.is_constant(indices):
        return positions_per_row(ctx.graph, ctx.constant(indices).numpy().reshape(-1), rows, name=name)
    count = math.prod(shape_of(indices))
    row = reshape(ctx.graph, ctx.value(indices), (1, count), name=name if rows == 1 else f"{name}_row")
    return positions_per_row(ctx.graph, row, rows, name=name)


def positions_per_row(graph: TosaGraph, positions: np.ndarray | TosaValue, rows: int, *, name: str) -> TosaValue:
    """W positions (numbers, or a [1, W] int32 tensor) as GATHER's [rows, W] indices, the same for every row:
    repeated at compile time, or TILEd."""
    if isinstance(positions, np.ndarray):
        data = positions.astype(np.int32).reshape(1, -1)
        return graph.add_const(name, np.ascontiguousarray(np.repeat(data, rows, axis=0)))
    if rows == 1:
        return positions
    output = graph.add_tensor(name, (rows, positions.shape[1]), positions.dtype)
    attribute = ts.TosaSerializerAttribute()
    attribute.TileAttribute()
    graph.add_op(ts.Op.TILE, [positions, graph.add_shape_const(f"{name}_multiples", (rows, 1))], [output], attribute)
    return output


def gather(ctx: LoweringContext, table: TosaValue, indices: TosaValue, *, name: str) -> TosaValue:
    """GATHER of [N, K, C] ``table`` rows by [N, W] ``indices``: a [N, W, C] tensor on the table's grid."""
    rows, _, channels = table.shape
    output = ctx.graph.add_tensor(name, (rows, indices.shape[1], channels), table.dtype, table.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.GatherAttribute()
    ctx.graph.add_op(ts.Op.GATHER, [table, indices], [output], attribute)
    return output


def one_hot_reason(node: Node, table: Node, indices: Node, spec: TosaSpecification) -> str | None:
    """Why the U85's or U55's one-hot lookup does not take ``table[indices]``: the table must be a
    quantized constant (an embedding's weights) of at most ``MAX_ONE_HOT_TABLE_BYTES`` (and, on the U55,
    ``MAX_U55_ONE_HOT_ROWS`` rows), and the one-hot matrix must fit ``MAX_ONE_HOT_BYTES``."""
    no_gather = _NO_GATHER["u55" if spec.has("u55") else "u85"]
    stand_in = f"{describe(node)}: {no_gather}, and the one-hot lookup that stands in for it"
    if not (is_dequantize(table) and table.args[0].op == "placeholder"):
        return f"{stand_in} needs a constant table, but {table.name} is computed; the lookup stays on the CPU"
    rows, width = shape_of(table)
    if rows * width > MAX_ONE_HOT_TABLE_BYTES:
        return (
            f"{stand_in} reads the whole {rows}x{width} table per call, more than {MAX_ONE_HOT_TABLE_BYTES} bytes, "
            "where a CPU gather reads the looked-up rows only; the lookup stays on the CPU"
        )
    if spec.has("u55") and rows > MAX_U55_ONE_HOT_ROWS:
        return (
            f"{stand_in} takes the ids as int16, which cannot number the {rows} rows of {table.name} (at most "
            f"{MAX_U55_ONE_HOT_ROWS}); the lookup stays on the CPU"
        )
    size = math.prod(shape_of(indices)) * rows
    if size > MAX_ONE_HOT_BYTES:
        return (
            f"{stand_in} would need a {size}-byte one-hot matrix ({math.prod(shape_of(indices))} indices x "
            f"{rows} rows, more than {MAX_ONE_HOT_BYTES}); the lookup stays on the CPU (look up fewer ids per call)"
        )
    return None


def _one_hot(ctx: LoweringContext, ids: TosaValue, rows: int, *, name: str) -> TosaValue:
    """The int8 [N, W, rows] matrix of ``ids`` ([N, W] int32): 1 where the column is the id, else 0
    (EQUAL against 0..rows-1, then CAST of the bool)."""
    batch, count = ids.shape
    column = reshape(ctx.graph, ids, (batch, count, 1), name=f"{name}_ids")
    positions = ctx.graph.add_const(f"{name}_positions", np.arange(rows, dtype=np.int32).reshape(1, 1, rows))
    matches = ctx.graph.add_tensor(f"{name}_matches", (batch, count, rows), np.dtype(np.bool_))
    attribute = ts.TosaSerializerAttribute()
    attribute.EqualAttribute()
    ctx.graph.add_op(ts.Op.EQUAL, [column, positions], [matches], attribute)
    return cast(ctx.graph, matches, np.dtype(np.int8), name=f"{name}_one_hot")


def _one_hot_from_differences(ctx: LoweringContext, ids: TosaValue, rows: int, *, name: str) -> TosaValue:
    """``_one_hot`` without EQUAL (the U55): the int16 ids through a 1x1 CONV2D of weights 1 and bias -k
    give ``id - k`` in channel k, exactly (int48 accumulator); a RESCALE by 1 saturates it to int8,
    which keeps 0 and moves no other difference onto it, and a TABLE maps code 0 to 1 and every other
    code to 0. Ids outside int16 saturate to a code that is no row (``MAX_U55_ONE_HOT_ROWS``), so they
    pick nothing, as EQUAL's one-hot does."""
    batch, count = ids.shape
    ids16 = rescale(ctx.graph, ids, name=f"{name}_ids16", scales=[1.0], output_dtype=np.dtype(np.int16),
                    input_zp=0, output_zp=0)  # fmt: skip
    ids_nhwc = reshape(ctx.graph, ids16, (1, batch * count, 1, 1), name=f"{name}_ids_nhwc")
    operands = [
        ids_nhwc,
        ctx.graph.add_const(f"{name}_ones", np.ones((rows, 1, 1, 1), dtype=np.int8)),
        ctx.graph.add_const(f"{name}_minus_rows", -np.arange(rows, dtype=INT48)),
        ctx.graph.add_scalar_const(f"{name}_ids_zp", 0, np.int16),
        ctx.graph.add_scalar_const(f"{name}_ones_zp", 0, np.int8),
    ]
    differences = ctx.graph.add_tensor(f"{name}_differences", (1, batch * count, 1, rows), INT48)
    attribute = ts.TosaSerializerAttribute()
    attribute.Conv2dAttribute(
        pad=[0, 0, 0, 0], stride=[1, 1], dilation=[1, 1], local_bound=False, acc_type=tosa_dtype(INT48)
    )
    ctx.graph.add_op(ts.Op.CONV2D, operands, [differences], attribute)
    saturated = rescale(ctx.graph, differences, name=f"{name}_saturated", scales=[1.0], output_dtype=np.dtype(np.int8),
                        input_zp=0, output_zp=0)  # fmt: skip
    is_zero = np.zeros(256, dtype=np.int8)
    is_zero[128] = 1  # TABLE entry i is code i - 128
    one_hot = table_lookup(ctx.graph, saturated, is_zero, name=f"{name}_one_hot", qparams=None)
    return reshape(ctx.graph, one_hot, (batch, count, rows), name=f"{name}_one_hot_rows")


def one_hot_rows(ctx: LoweringContext, node: Node, table: Node, indices: TosaValue, *, name: str) -> TosaValue:
    """The rows of the constant int8 ``table`` [K, C] picked by ``indices`` ([1, W] int32), as a [1, W, 1, C]
    int8 tensor on ``node``'s output grid, which must be the table's (embedding shares it)."""
    values, qparams = ctx.quantized_constant(table)
    rows, channels = values.shape
    count = indices.shape[1]
    build = _one_hot_from_differences if ctx.spec.has("u55") else _one_hot  # the U55 has no EQUAL
    one_hot = build(ctx, indices, rows, name=name).with_qparams(ONE_HOT_GRID)
    one_hot_nhwc = reshape(ctx.graph, one_hot, (1, count, 1, rows), name=f"{name}_one_hot_nhwc")
    # The weights are the table's raw codes (zero point 0); the bias takes the table's zero point off
    # each output channel, so the accumulator holds code - zero_point of the picked row, exactly.
    scale = qparams.scale
    weights = ConvWeights(
        values=np.ascontiguousarray(values.T),
        bias=np.full(channels, -qparams.zero_point * scale, dtype=np.float64),
        scales=np.full(channels, scale, dtype=np.float64),
    )
    return emit_convolution(
        ctx,
        node,
        name=name,
        input_nhwc=one_hot_nhwc,
        weights=weights,
        geometry=ConvGeometry(),
        output_shape_nhwc=(1, count, 1, channels),
    )


# A run-time lookup on the U85 (ids from the program's input or computed): the one-hot matrix is built
# at run time, and MATMUL (both operands run-time tensors, int8 only: TOSA's int16 MATMUL has an int48
# result) picks the rows. Both bounds above apply: the MATMUL reads the whole table per call.
def run_time_one_hot_reason(node: Node, data: Node, rows: int, width: int, count: int) -> str | None:
    """Why the U85's run-time one-hot lookup does not take ``count`` rows of a [rows, width] table
    ``data`` (a dequantized int8 activation or int8 integers); None when it does."""
    no_gather = f"{describe(node)}: Vela 5.2.0 runs no GATHER on the U85, and the one-hot MATMUL that stands in for it"
    dtype = element_type(data)
    if dtype not in (torch.int8, torch.bool):  # bool rows move as int8 0/1 (``one_hot_lookup``)
        return (
            f"{no_gather} multiplies int8 only (TOSA's int16 MATMUL has an int48 result), but {data.name} is "
            f"{dtype}; the lookup stays on the CPU"
        )
    if rows * width > MAX_ONE_HOT_TABLE_BYTES:
        return (
            f"{no_gather} reads the whole {rows}x{width} table per call, more than {MAX_ONE_HOT_TABLE_BYTES} "
            "bytes, where a CPU gather reads the looked-up rows only; the lookup stays on the CPU"
        )
    if count * rows > MAX_ONE_HOT_BYTES:
        return (
            f"{no_gather} would need a {count * rows}-byte one-hot matrix ({count} indices x {rows} rows, more "
            f"than {MAX_ONE_HOT_BYTES}); the lookup stays on the CPU (look up fewer ids per call)"
        )
    return None


def element_type(data: Node) -> torch.dtype | None:
    """The integer type a one-hot MATMUL would multiply: a dequantize's quantized type (int16 for a16w8),
    else the tensor's own (int8 data that is not quantized; float for what nothing quantized)."""
    if is_dequantize(data):
        return next((arg for arg in data.args if isinstance(arg, torch.dtype)), None)
    return dtype_of(data)


def one_hot_matmul_rows(ctx: LoweringContext, table: TosaValue, positions: TosaValue, *, name: str) -> TosaValue:
    """The rows of int8 ``table`` [N, K, C] at run-time ``positions`` ([1, W] int32, shared by every n, or
    [N, W], one row of positions per n) as an int32 [N, W, C]: each element the picked code minus the
    table's zero point, exactly (one term of each sum is nonzero). EQUAL against 0..K-1, CAST of the bool
    to int8, MATMUL."""
    batch, rows, _ = table.shape
    one_hot = _one_hot(ctx, positions, rows, name=name).with_qparams(ONE_HOT_GRID)
    if one_hot.shape[0] == 1:
        one_hot = tile_batch(ctx.graph, one_hot, batch, name=f"{name}_one_hot_tiled")
    return int8_matmul(ctx.graph, one_hot, table, name=f"{name}_picked")


def one_hot_lookup(ctx: LoweringContext, table: TosaValue, positions: TosaValue, *, name: str) -> TosaValue:
    """``one_hot_matmul_rows`` (positions [1, W] or [N, W]) back on ``table``'s own int8 grid (quantized data), or as int8 integers
    (``table`` without a grid: integer data, its codes moved as they are), or as bools (bool data)."""
    qparams = table.qparams
    if table.dtype == np.bool_:
        # bool rows as int8 0/1 through the MATMUL, and back: CAST both ways, which TOSA's INT profile defines.
        int8_table = cast(ctx.graph, table, np.dtype(np.int8), name=f"{name}_codes")
        codes = one_hot_lookup(ctx, int8_table, positions, name=name)
        return cast(ctx.graph, codes, np.dtype(np.bool_), name=f"{name}_bool")
    if qparams is None:
        picked = one_hot_matmul_rows(ctx, table.with_qparams(ONE_HOT_GRID), positions, name=name)
        return cast(ctx.graph, picked, np.dtype(np.int8), name=f"{name}_int8")
    picked = one_hot_matmul_rows(ctx, table, positions, name=name)
    return from_int32(ctx.graph, picked, name=f"{name}_rescaled", accumulator_scales=[qparams.scale], output=qparams)


def tile_batch(graph: TosaGraph, value: TosaValue, batch: int, *, name: str) -> TosaValue:
    """[1, H, W] repeated to [batch, H, W] (MATMUL takes no broadcast)."""
    if batch == 1:
        return value
    tiled = graph.add_tensor(name, (batch, *value.shape[1:]), value.dtype, value.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.TileAttribute()
    graph.add_op(ts.Op.TILE, [value, graph.add_shape_const(f"{name}_multiples", (batch, 1, 1))], [tiled], attribute)
    return tiled


def int8_matmul(graph: TosaGraph, lhs: TosaValue, rhs: TosaValue, *, name: str) -> TosaValue:
    """MATMUL of int8 [N, H, C] by [N, C, W] with their zero points: the exact int32 [N, H, W]."""
    output = graph.add_tensor(name, (lhs.shape[0], lhs.shape[1], rhs.shape[2]), np.dtype(np.int32))
    operands = [
        lhs,
        rhs,
        graph.add_scalar_const(f"{name}_lhs_zp", lhs.qparams.zero_point, np.int8),
        graph.add_scalar_const(f"{name}_rhs_zp", rhs.qparams.zero_point, np.int8),
    ]
    attribute = ts.TosaSerializerAttribute()
    attribute.MatMulAttribute()
    graph.add_op(ts.Op.MATMUL, operands, [output], attribute)
    return output
