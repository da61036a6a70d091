"""aten.cumsum(x, dim) -> a 1x1 CONV2D whose weights are the lower-triangular ones matrix, over dim as channels.

``out[i] = sum(x[j] for j <= i)`` is a matrix product with L (L[i][j] = 1 for j <= i) along dim, and
a 1x1 convolution is that product on every other position at once: x viewed as [before, dim, after]
is transposed to put dim innermost (NHWC channels), convolved, and transposed back. Every target
runs CONV2D, the U55 included. INT: int8 codes times weights of 1 (scale 1) sum exactly in int32,
then one RESCALE onto the output grid, as the quantized module rounds the float sum once.

Integer data (int32, not quantized: RoBERTa's position ids are the running count of its non-padding
tokens, ``cumsum(ids != pad)``) has no int32 convolution: it is the log-step scan instead, ``x += x
shifted by s`` for s = 1, 2, 4, ... below the length (SLICE, CONCAT with zeros, int32 ADD), exact, in
the INT profile.
"""

from __future__ import annotations

import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.arm_op import ArmOp
from arm.ops.common.convolution import ConvGeometry, ConvWeights, emit_convolution
from arm.ops.common.elementwise import emit
from arm.ops.common.integer_arithmetic import integer_data_support, is_integer_arithmetic
from arm.ops.common.float_unary import on_int8_grid
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.support import describe, dtype_of, first_reason, profile_reason, rank_reason
from arm.quantizer.annotation import annotate, input_spec
from arm.quantizer.quantization_config import QuantizationConfig
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, pad_tensor, reshape, slice_tensor
from arm.tosa.layout import transpose
from arm.tosa.specification import TosaSpecification

# The weights are a [n, n] constant: beyond this many elements along dim they would outgrow the tensor.
MAX_LENGTH = 1024


def support(node: Node, spec: TosaSpecification) -> str | None:
    x, dim = node.args[:2]
    shape = shape_of(x)
    if is_integer_arithmetic(node):
        return first_reason(
            None if shape else f"{describe(node)}: a 0-d cumsum is a copy; it runs on the CPU",
            integer_data_support(node, spec),
            None
            if dtype_of(x) == dtype_of(node) == torch.int32
            else f"{describe(node)}: {dtype_of(x)} summed into {dtype_of(node)}; integer running sums are lowered "
            "for int32 only (cast the input to int32)",
        )
    if node.kwargs.get("dtype") is not None:
        return f"{describe(node)}: cumsum with dtype={node.kwargs['dtype']} converts; it runs on the CPU"
    length = shape[dim % len(shape)] if shape else 1
    return first_reason(
        None if shape else f"{describe(node)}: a 0-d cumsum is a copy; it runs on the CPU",
        f"{describe(node)}: dim has {length} elements; the triangular weights are lowered up to {MAX_LENGTH}"
        if length > MAX_LENGTH
        else None,
        profile_reason(node, spec, [x]),
        rank_reason(node, shape),
    )


def annotate_cumsum(node: Node, config: QuantizationConfig) -> None:
    """An observed int8 input and output: the running sums reach far beyond the input's range."""
    x = node.args[0]
    annotate(node, {x: input_spec(x, config.activation)}, config.activation)


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    x, dim = node.args[:2]
    shape = shape_of(x)
    dim %= len(shape)
    before, length, after = math.prod(shape[:dim]), shape[dim], math.prod(shape[dim + 1 :])
    if is_integer_arithmetic(node):
        rows = reshape(ctx.graph, ctx.value(x), (before, length, after), name=f"{node.name}_rows")
        return reshape(ctx.graph, _integer_scan(ctx, node, rows), shape_of(node), name=node.name)
    value = reshape(ctx.graph, ctx.value(x), (before, length, after), name=f"{node.name}_rows")
    if after > 1:
        value = transpose(ctx.graph, value, (0, 2, 1), name=f"{node.name}_channels_last")
    nhwc = reshape(ctx.graph, value, (1, before, after, length), name=f"{node.name}_nhwc")
    triangle = np.tril(np.ones((length, length)))
    if ctx.spec.is_fp:
        weights = ConvWeights(triangle.astype(np.float32), None, None)
    else:
        weights = ConvWeights(triangle.astype(np.int8), None, np.ones(length))
    sums = emit_convolution(
        ctx, node, name=f"{node.name}_sums", input_nhwc=nhwc, weights=weights, geometry=ConvGeometry(),
        output_shape_nhwc=(1, before, after, length),
    )
    sums = reshape(ctx.graph, sums, (before, after, length), name=f"{node.name}_sums_rows")
    if after > 1:
        sums = transpose(ctx.graph, sums, (0, 2, 1), name=f"{node.name}_dim_back")
    return reshape(ctx.graph, sums, shape_of(node), name=node.name)


def _integer_scan(ctx: LoweringContext, node: Node, rows: TosaValue) -> TosaValue:
    """Running sums of int32 ``rows`` [before, length, after] along axis 1, in ceil(log2(length)) ADDs."""
    before, length, after = rows.shape
    sums, shift = rows, 1
    while shift < length:
        padded = pad_tensor(ctx.graph, sums, ((0, 0), (shift, 0), (0, 0)), np.int32(0), name=f"{node.name}_padded{shift}")
        shifted = slice_tensor(ctx.graph, padded, (0, 0, 0), rows.shape, name=f"{node.name}_shifted{shift}")
        sums = emit(
            ctx, ts.Op.ADD, ts.TosaSerializerAttribute.AddAttribute, [sums, shifted],
            name=f"{node.name}_sums{shift}", shape=rows.shape, dtype=np.dtype(np.int32),
        )
        shift *= 2
    return sums


def along_last(x: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(x, dim=-1)


def along_channels(x: torch.Tensor) -> torch.Tensor:
    return x.cumsum(1)


def positions_of_tokens(ids: torch.Tensor) -> torch.Tensor:
    """RoBERTa's position ids: each non-padding token's running count (padding id 1), offset past the pad."""
    mask = ids.ne(1).int()
    return (torch.cumsum(mask, dim=1).type_as(mask) * mask).long() + 1


def _ids_with_padding(seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randint(0, 4, shape, generator=generator),)


def int32_running_total(x: torch.Tensor) -> torch.Tensor:
    return torch.cumsum(x, dim=0, dtype=torch.int32)


def _int32_values(seed: int, shape: tuple[int, ...]) -> tuple[torch.Tensor]:
    generator = torch.Generator().manual_seed(seed)
    return (torch.randint(-1000, 1000, shape, generator=generator, dtype=torch.int32),)


TEST_CASES = {
    "last_dim": OpTestCase(FunctionModule(along_last), random_inputs(0, (2, 3, 10))),
    "channels": OpTestCase(FunctionModule(along_channels), random_inputs(1, (1, 6, 4, 5))),
    # Inputs the int8 grid holds exactly: the int32 sums are the float sums, and only the output rounds.
    "exact_grid_values": OpTestCase(FunctionModule(along_last), on_int8_grid(2, (4, 16), 1.0 / 16.0)),
    # int32 data along a middle dim: the U55's scan, and the FP profile's reason (token_positions covers
    # the TOSA INT and U85 targets).
    "int32_data": OpTestCase(
        FunctionModule(int32_running_total),
        _int32_values(4, (5, 3, 2)),
        cpu_targets=("tosa_FP",),
        targets=("u55_INT", "tosa_FP"),
    ),
    # Integer data: int64 ids in (narrowed to int32 on the CPU), the count of non-padding tokens as
    # int32 scans, the cumsum's own int64 result made int32 (arm/passes/int64_to_int32.py). Not on the
    # U55, which keeps the comparison on the CPU (it has none), so the delegate's input is computed there
    # and the harness cannot feed it (int32_data shows the U55's scan); the FP profile has no integer
    # scan (int32_data shows it) but delegates the int32 mul and add.
    "token_positions": OpTestCase(
        FunctionModule(positions_of_tokens),
        _ids_with_padding(3, (2, 13)),
        targets=("tosa_INT", "u85_INT", "vgf_INT"),
    ),
}

OP = ArmOp(
    name="cumsum",
    edge_targets=(exir_ops.edge.aten.cumsum.default,),
    aten_targets=(torch.ops.aten.cumsum.default,),
    support=support,
    annotate=annotate_cumsum,
    lower=lower,
    test_cases=TEST_CASES,
)
