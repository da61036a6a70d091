"""aten.argmax(x, dim, keepdim) -> TOSA ARGMAX (int32 indices; the int64 narrowing pass casts them back on the CPU).

Quantization keeps order, so the INT lowering takes ARGMAX of the int8 codes: it matches the quantized
module exactly, ties included (values that differ in float but share an int8 code are equal there too,
and both TOSA and PyTorch answer the first maximal index). argmax over all dims (dim=None) has a 0-d
result and stays on the CPU.

Integer data (int32 token ids: CLIP's text pooling picks each row's largest id) has no ARGMAX in TOSA
1.0 (int8, int16 and float inputs only), so the INT profile computes it from int32 operators it has:
REDUCE_MAX of the row, EQUAL against it, SELECT of the reversed positions N-i where equal (0
elsewhere), REDUCE_MAX again (N minus the first maximal index) and a SUB from N. The first maximal
index, as PyTorch answers ties, exactly.
"""

from __future__ import annotations

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.axis_reduction import reduce
from arm.ops.common.elementwise import emit
from arm.ops.common.integer_arithmetic import integer_data_support
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, in_float_type, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, float_type_reason, rank_reason
from arm.ops.common.unary import int8_reason
from arm.quantizer.annotation import annotate, input_spec
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.cast import cast
from arm.tosa.graph import TosaValue, int32_elementwise, reshape
from arm.tosa.quantization import is_dequantize
from arm.tosa.specification import TosaSpecification


def input_reason(node: Node, x: Node, spec: TosaSpecification) -> str | None:
    """A float type the spec lowers (float32, float16, bfloat16 with bf16) for FP, a dequantized int8
    tensor for INT; the integer result is not quantized."""
    if spec.is_fp:
        return float_type_reason(node, spec, [x])
    if is_dequantize(x):
        return int8_reason(node, spec, [x])
    return (
        f"{describe(node)}: input {x.name} is not quantized; {spec} needs int8 inputs "
        "(quantize the model with the Arm quantizer, or use the FP profile)"
    )


def ethos_u_reason(node: Node, spec: TosaSpecification) -> str | None:
    if spec.has("u55"):
        return f"{describe(node)}: Vela 5.2.0 cannot run ARGMAX on Ethos-U55/U65; it runs on the CPU"
    # The U85 runs it: Vela 5.2.0 compiles ARGMAX to the U85's arg-max pooling (along the axis it reshapes
    # to width), which runtime/npu_model checks against the TOSA reference model.
    return None


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    dim = node.args[1] if len(node.args) > 1 else node.kwargs.get("dim")
    if reason := ethos_u_reason(node, spec):
        return reason
    if dim is None:
        return f"{describe(node)}: argmax over every dim has a 0-d result, which is not lowered; give dim"
    if _of_integers(x):
        return first_reason(integer_data_support(node, spec, [x]), rank_reason(node, shape_of(x)))
    return first_reason(input_reason(node, x, spec), rank_reason(node, shape_of(x)))


def _of_integers(x: Node) -> bool:
    """Integer data, not a quantized real: token ids the quantizer left alone."""
    return dtype_of(x) in (torch.int8, torch.int16, torch.int32) and not is_dequantize(x)


def annotate_index_result(node: Node, config: QuantizationConfig) -> None:
    """An observed int8 input; the integer indices are not quantized."""
    x = node.args[0]
    annotate(node, {x: input_spec(x, config.activation)}, None)


def emit_argmax(ctx: LoweringContext, value: TosaValue, dim: int, *, name: str) -> TosaValue:
    """ARGMAX of ``value`` along ``dim``: int32, that axis removed."""
    shape = tuple(size for axis, size in enumerate(value.shape) if axis != dim)
    output = ctx.graph.add_tensor(name, shape, np.dtype(np.int32))
    attribute = ts.TosaSerializerAttribute()
    attribute.ArgMaxAttribute(dim, ts.NanPropagationMode.PROPAGATE)
    ctx.graph.add_op(ts.Op.ARGMAX, [value], [output], attribute)
    return output


def first_maximal_index(ctx: LoweringContext, value: TosaValue, dim: int, *, name: str) -> TosaValue:
    """The int32 index of each first maximum of int32 ``value`` along ``dim`` (kept with size 1), from
    REDUCE_MAX, EQUAL, SELECT and SUB: TOSA 1.0's ARGMAX takes no int32."""
    rank, count = value.rank, value.shape[dim]
    largest = reduce(ctx.graph, ts.Op.REDUCE_MAX, value, dim, name=f"{name}_largest")
    matches = emit(ctx, ts.Op.EQUAL, ts.TosaSerializerAttribute.EqualAttribute, [value, largest], name=f"{name}_matches", shape=value.shape, dtype=np.dtype(np.bool_))
    along = [count if axis == dim else 1 for axis in range(rank)]
    # N - i is largest at the first match, and 0 (below every N - i) where the value is not the maximum.
    reversed_positions = ctx.graph.add_const(f"{name}_reversed", np.arange(count, 0, -1, dtype=np.int32).reshape(along))
    nothing = ctx.graph.add_const(f"{name}_nothing", np.zeros((1,) * rank, dtype=np.int32))
    picked = emit(ctx, ts.Op.SELECT, ts.TosaSerializerAttribute.SelectAttribute, [matches, reversed_positions, nothing], name=f"{name}_picked", shape=value.shape, dtype=np.dtype(np.int32))
    best = reduce(ctx.graph, ts.Op.REDUCE_MAX, picked, dim, name=f"{name}_best")
    total = ctx.graph.add_const(f"{name}_count", np.full((1,) * rank, count, dtype=np.int32))
    return int32_elementwise(ctx.graph, ts.Op.SUB, total, best, name=f"{name}_index")


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, dim = node.args[:2]
    value = ctx.value(x)
    if _of_integers(x):
        value = value if value.dtype == np.dtype(np.int32) else cast(ctx.graph, value, np.dtype(np.int32), name=f"{node.name}_int32")
        indices = first_maximal_index(ctx, value, dim % value.rank, name=f"{node.name}_argmax")
        return reshape(ctx.graph, indices, shape_of(node), name=node.name)
    indices = emit_argmax(ctx, value, dim % value.rank, name=f"{node.name}_argmax")
    return indices if indices.shape == shape_of(node) else reshape(ctx.graph, indices, shape_of(node), name=node.name)


def last_dim(x: torch.Tensor) -> torch.Tensor:
    return x.argmax(-1)


def channels_keepdim(x: torch.Tensor) -> torch.Tensor:
    return x.argmax(1, keepdim=True)


def as_int32(x: torch.Tensor) -> torch.Tensor:
    return torch.argmax(x, dim=1).to(torch.int32)


def _ties_on_the_grid() -> tuple[torch.Tensor, ...]:
    """Multiples of 1/32 in [-2, 2) (an int8 grid's exact values) with repeated maxima in many rows."""
    generator = torch.Generator().manual_seed(2)
    x = torch.randint(-64, 64, (6, 10), generator=generator).float() / 32.0
    x[:, 7] = x.max(dim=1).values  # every row's maximum again, later in the row
    return (x,)


def largest_id(ids: torch.Tensor) -> torch.Tensor:
    """CLIP text's pooling position: each row's largest token id (int32, as transformers casts it)."""
    return ids.argmax(dim=-1).to(torch.int32)


def _ids_with_tied_maxima() -> tuple[torch.Tensor]:
    ids = torch.randint(0, 50, (3, 9), generator=torch.Generator().manual_seed(5), dtype=torch.int32)
    ids[:, 6] = ids.max(dim=1).values  # every row's maximum again, later in the row: the first one wins
    ids[2, 0] = 60  # and one row whose maximum comes first
    return (ids,)


_U55 = ("u55_INT",)

TEST_CASES = {
    "last_dim": OpTestCase(FunctionModule(last_dim), random_inputs(0, (2, 3, 8)), cpu_targets=_U55),
    "channels_keepdim": OpTestCase(FunctionModule(channels_keepdim), random_inputs(1, (1, 6, 4, 4)), cpu_targets=_U55),
    "ties_first_index": OpTestCase(FunctionModule(last_dim), _ties_on_the_grid(), cpu_targets=_U55),
    # The model casts the indices to int32 itself: the int32 result is the program's output, no cast on
    # the CPU (arm/passes/int64_to_int32.py drops the round trip through int64).
    "as_int32": OpTestCase(FunctionModule(as_int32), random_inputs(3, (2, 5)), cpu_targets=_U55),
    # int32 data: no ARGMAX takes int32, so REDUCE_MAX, EQUAL, SELECT and SUB (INT profile only).
    "int32_ids_first_of_ties": OpTestCase(
        FunctionModule(largest_id), _ids_with_tied_maxima(), cpu_targets=("u55_INT", "tosa_FP", "vgf_FP")
    ),
    "float16_as_int32": in_float_type(OpTestCase(FunctionModule(as_int32), random_inputs(4, (3, 7))), torch.float16),
}

OP = ArmOp(
    name="argmax",
    edge_targets=(exir_ops.edge.aten.argmax.default,),
    aten_targets=(torch.ops.aten.argmax.default,),
    support=support,
    annotate=annotate_index_result,
    lower=lower,
    test_cases=TEST_CASES,
)
