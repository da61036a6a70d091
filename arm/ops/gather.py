"""aten.gather(x, dim, index) -> one TOSA GATHER of x's elements by their flat offsets.

``out[p] = x[p with p[dim] replaced by index[p]]`` picks a different element for every output position,
which TOSA GATHER's [N, K, C] row lookup expresses only with the tensor flattened to [1, numel, 1] and
each position's flat offset as its index. For constant indices the offsets are computed at compile
time; for runtime indices they are ``index * stride[dim] + offset of p with p[dim] = 0`` in int32 (MUL
and ADD, which both TOSA profiles have for int32). Quantized, the output keeps the input's grid.

The Ethos-U55 has no GATHER and Vela 5.2.0 runs none on the U85 (arm/ops/common/gather.py). There a
constant index along the last axis, as DeBERTa-v2's disentangled attention picks each query's scores
at its relative positions (``gather(c2p, -1, c2p_pos)``, the index folded from shapes), is a one-hot
MATMUL instead: x's rows [R, 1, K] times a constant [R, K, W] int8 with one 1 per column (row r,
column j: a 1 at k = index[r, j]). With x's zero point given to MATMUL, each int32 result is the
picked code minus the zero point, exactly; one RESCALE puts it on the output grid. On the U85 a run-time
index is the same selection with the one-hot built at run time: the flat offsets (as for GATHER) EQUAL
against 0..numel-1, and one MATMUL of x flattened (common/gather.py ``one_hot_lookup``), for int8 x of
up to 64 KiB. int8, int16 or int32 data (not quantized) moves as it is on TOSA INT; on the U85, int8.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.fallback import LoweringError
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.gather import (
    MAX_ONE_HOT_BYTES,
    gather,
    indices_reason,
    looked_up_data_reason,
    one_hot_lookup,
    run_time_one_hot_reason,
)
from arm.ops.common.integer_arithmetic import is_integer_arithmetic
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, rank_reason
from arm.tosa.cast import cast
from arm.ops.common.unary import int8_reason
from arm.ops.matmul import matmul_values
from arm.quantizer.annotation import shared_with_input
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.quantization import QParams
from arm.tosa.rescale import from_int32, requantize
from arm.tosa.specification import TosaSpecification


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, _, index = node.args[:3]
    return first_reason(
        _ethos_u_reason(node, spec) if _is_ethos_u(spec) else indices_reason(node, index, spec),
        _bool_data_reason(node, spec) if dtype_of(node) == torch.bool else looked_up_data_reason(node, spec),
        rank_reason(node, shape_of(x)),
    )


def _bool_data_reason(node: Node, spec: TosaSpecification) -> str | None:
    """bool rows move as int8 0/1, with a CAST each way (INT profile): around GATHER, or inside the U85's
    one-hot lookup (common/gather.py ``one_hot_lookup``)."""
    if spec.is_fp:
        return f"{describe(node)}: bool data; {spec} has no bool CAST to move it through GATHER (the INT profile has)"
    return None


def _ethos_u_reason(node: Node, spec: TosaSpecification) -> str | None:
    """The one-hot MATMUL with constant selectors (both Ethos-U); on the U85, where that does not
    apply, the run-time one-hot lookup, which takes any index."""
    constant_selectors = _one_hot_reason(node, spec)
    if _moves_data(node) and constant_selectors is None:
        constant_selectors = f"{describe(node)}: the one-hot MATMUL with constant selectors takes quantized data only"
    if constant_selectors is None or spec.has("u55"):
        return constant_selectors
    return _run_time_one_hot_reason(node, spec)


def _run_time_one_hot_reason(node: Node, spec: TosaSpecification) -> str | None:
    x, _, index = node.args[:3]
    return first_reason(
        indices_reason(node, index, spec, one_hot_on_u85=True),
        run_time_one_hot_reason(node, x, math.prod(shape_of(x)), 1, math.prod(shape_of(index))),
    )


def _is_ethos_u(spec: TosaSpecification) -> bool:
    return spec.is_int and (spec.has("u55") or spec.has("u85"))


def _one_hot_reason(node: Node, spec: TosaSpecification) -> str | None:
    """Why an Ethos-U gather is not a one-hot MATMUL (see the module doc); None when it is."""
    x, dim, index = node.args[:3]
    x_shape, index_shape = shape_of(x), shape_of(index)
    no_gather = f"{describe(node)}: Vela 5.2.0 runs no GATHER on the Ethos-U, and the one-hot MATMUL that stands in"
    if not isinstance(index, Node) or index.op != "placeholder":
        return f"{no_gather} for it needs a constant index, but {index} is computed at run time; it runs on the CPU"
    if dim % len(x_shape) != len(x_shape) - 1:
        return f"{no_gather} for it selects along the last axis only, not dim {dim}; it runs on the CPU"
    if tuple(x_shape[:-1]) != tuple(index_shape[:-1]):
        return (
            f"{no_gather} for it needs the index's leading dims {tuple(index_shape[:-1])} to be x's "
            f"{tuple(x_shape[:-1])}; it runs on the CPU"
        )
    size = _one_hot_bytes(x_shape, index_shape)
    if size > MAX_ONE_HOT_BYTES:
        return (
            f"{no_gather} for it would need a {size}-byte one-hot constant (more than {MAX_ONE_HOT_BYTES}); "
            "it runs on the CPU"
        )
    # Vela 5.2.0 has no int16 MATMUL on the U55 (arm/ops/matmul.py); int8 on both keeps one rule.
    return int8_reason(node, spec, [x])


def _one_hot_bytes(x_shape: tuple[int, ...], index_shape: tuple[int, ...]) -> int:
    return math.prod(index_shape[:-1]) * x_shape[-1] * index_shape[-1]


def annotate_gather(node: Node, config: QuantizationConfig) -> None:
    shared_with_input(node, node.args[0], config.activation)


def flat_offsets(shape: tuple[int, ...], dim: int, index: np.ndarray) -> np.ndarray:
    """Each output position's offset into ``x`` of ``shape`` flattened: its own coordinates, with dim's from index."""
    coordinates = list(np.indices(index.shape))
    coordinates[dim] = index.astype(np.int64) % shape[dim]
    return np.ravel_multi_index(coordinates, shape).astype(np.int32)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, dim, index = node.args[:3]
    run_time_one_hot = ctx.spec.is_int and ctx.spec.has("u85") and not (
        ctx.is_constant(index) and not _moves_data(node) and _one_hot_reason(node, ctx.spec) is None
    )
    if _is_ethos_u(ctx.spec) and not run_time_one_hot:
        return _one_hot_selection(ctx, node)
    shape = shape_of(x)
    dim %= len(shape)
    value = ctx.value(x)
    if ctx.spec.is_int and not _moves_data(node):
        value = requantize(ctx.graph, value, name=f"{node.name}_rescaled", output=ctx.output_qparams(node))
    table = reshape(ctx.graph, value, (1, math.prod(shape), 1), name=f"{node.name}_table")
    bool_through_gather = table.dtype == np.bool_ and not run_time_one_hot
    if bool_through_gather:  # TOSA's GATHER takes no bool: its rows as int8 0/1
        table = cast(ctx.graph, table, np.dtype(np.int8), name=f"{node.name}_table_int8")
    if ctx.is_constant(index):
        offsets = flat_offsets(shape, dim, ctx.constant(index).numpy())
        chosen = ctx.graph.add_const(f"{node.name}_offsets", offsets.reshape(1, -1))
    else:
        flat = reshape(ctx.graph, ctx.value(index), (1, math.prod(shape_of(index))), name=f"{node.name}_index")
        chosen = _runtime_offsets(ctx, flat, shape, dim, shape_of(index), name=f"{node.name}_offsets")
    if run_time_one_hot:
        elements = one_hot_lookup(ctx, table, chosen, name=f"{node.name}_elements")
    else:
        elements = gather(ctx, table, chosen, name=f"{node.name}_elements")
    if bool_through_gather:
        elements = cast(ctx.graph, elements, np.dtype(np.bool_), name=f"{node.name}_elements_bool")
    return reshape(ctx.graph, elements, shape_of(node), name=node.name)


def _moves_data(node: Node) -> bool:
    """Integer or bool data, moved as it is (no grid)."""
    return is_integer_arithmetic(node) or dtype_of(node) == torch.bool


def one_hot_selectors(index: np.ndarray, width: int) -> np.ndarray:
    """[R, K, W] int8 for an [..., W] index into rows of ``width`` (K) values: a 1 at (r, index[r, j], j)."""
    rows = index.reshape(-1, index.shape[-1]).astype(np.int64) % width
    return (rows[:, None, :] == np.arange(width)[None, :, None]).astype(np.int8)


def _one_hot_selection(ctx: LoweringContext, node: Node) -> TosaValue:
    """The Ethos-U form (module doc): x's rows times constant one-hot columns, then one RESCALE."""
    x, _, index = node.args[:3]
    if not ctx.is_constant(index):
        # A model input of int32 passes support's placeholder test; the flow lowers again with it on the CPU.
        reason = f"{describe(node)}: the one-hot selection needs a constant index, but {index.name} is a model input"
        raise LoweringError((node.name,), reason)
    x_shape = shape_of(x)
    selectors = one_hot_selectors(ctx.constant(index).numpy(), x_shape[-1])
    rows = selectors.shape[0]
    value = ctx.quantized_value(x)
    lhs = reshape(ctx.graph, value, (rows, 1, x_shape[-1]), name=f"{node.name}_rows")
    # On a grid of scale 1 and zero point 0 the selector codes are the reals 0 and 1.
    rhs = ctx.graph.add_const(f"{node.name}_selectors", selectors, qparams=QParams((1.0,), 0, np.dtype(np.int8)))
    picked = matmul_values(ctx, lhs, rhs, name=f"{node.name}_picked")
    output = from_int32(
        ctx.graph,
        picked,
        name=f"{node.name}_rescaled",
        accumulator_scales=[value.qparams.scale],
        output=ctx.output_qparams(node),
    )
    return reshape(ctx.graph, output, shape_of(node), name=node.name)


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


# No GATHER on the NPU (arm/ops/common/gather.py): the U55 takes constant last-axis indices only, the
# U85 any index through the run-time one-hot lookup.
_U55 = ("u55_INT",)

TEST_CASES = {
    # The index is smaller than x along the other dims too: those coordinates come from the index's own shape.
    "last_dim_smaller_index": OpTestCase(
        _GatherConstant(2, _index(0, 6, (2, 3, 4))), random_inputs(0, (2, 4, 6)), cpu_targets=_U55
    ),
    "first_dim": OpTestCase(_GatherConstant(0, _index(1, 5, (3, 7))), random_inputs(1, (5, 7)), cpu_targets=_U55),
    # DeBERTa-v2's form: each row's values picked at a constant index of the row's own (relative
    # positions); on the Ethos-U a one-hot MATMUL.
    "constant_index_per_row": OpTestCase(_GatherConstant(-1, _index(3, 16, (2, 8, 8))), random_inputs(3, (2, 8, 16))),
    "runtime_index": OpTestCase(
        FunctionModule(gather_by_input), (*random_inputs(2, (3, 8, 2)), _index(2, 8, (3, 5, 2))), cpu_targets=_U55
    ),
    # int8 data, not quantized (the peer's int8 case): moved as it is; the FP profile moves no integers.
    "int8_data": OpTestCase(
        FunctionModule(gather_by_input),
        (torch.randint(-128, 128, (4, 5), generator=torch.Generator().manual_seed(5), dtype=torch.int8), _index(5, 5, (4, 3))),
        targets=("tosa_INT", "u85_INT"),  # the FP profile moves no integers; the U55 has no GATHER
    ),
    # bool data (the peer's bool case): on the U85 the one-hot MATMUL moves it as int8 0/1, cast both ways.
    "bool_data": OpTestCase(
        FunctionModule(gather_by_input),
        (torch.randint(0, 2, (4, 6), generator=torch.Generator().manual_seed(6)).to(torch.bool), _index(6, 6, (4, 3))),
        targets=("tosa_INT", "u85_INT"),
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
