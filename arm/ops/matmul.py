"""aten.matmul / bmm / mm of two activations -> TOSA MATMUL on [N, M, K] x [N, K, W].

Batch dims fold into N when both operands have them; a rank-2 right operand folds the left one's batch
dims into its rows instead. INT: int8 operands with their zero points, an int32 product (int48 for
int16 operands) rescaled onto the output grid. matmul is kept whole where it is delegated (to_edge
would expand and view it into bmm).

Vector operands take torch.matmul's meaning: a 1-d left operand is one row [1, K], a 1-d right one a
column [K, 1]; the product drops those dims again, so ``v @ w`` (dot) is 0-d and ``A @ v`` (mv) a
vector. Batch dims broadcast as in PyTorch: an operand with fewer (or size-1) batch dims is TILEd to
the common batch. Kept whole, such products never become the unsqueeze, expand, mv or dot that to_edge
makes of them (which left an unquantized unsqueeze or expand on the CPU).
"""

from __future__ import annotations

import functools
import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node
from torchao.quantization.pt2e.quantizer import DerivedQuantizationSpec

from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.tile import broadcast_value
from arm.quantizer.annotation import _ANNOTATION_KEY, annotate, input_spec
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.cast import cast
from arm.tosa.graph import BFLOAT16, INT48, TosaValue, reshape
from arm.tosa.quantization import is_dequantize, is_quantize
from arm.tosa.rescale import from_int32
from arm.tosa.specification import TosaSpecification


def _matrix_shapes(node: Node) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The operands' shapes with a vector made a matrix: a 1-d left operand one row, a 1-d right one a
    column (torch.matmul's meaning)."""
    lhs_shape, rhs_shape = shape_of(node.args[0]), shape_of(node.args[1])
    return (
        (1, *lhs_shape) if len(lhs_shape) == 1 else tuple(lhs_shape),
        (*rhs_shape, 1) if len(rhs_shape) == 1 else tuple(rhs_shape),
    )


def _batch_shape(node: Node) -> tuple[int, ...]:
    """The batch dims both operands broadcast to (none when the right operand is a matrix: the left
    one's batch then folds into its rows)."""
    lhs_shape, rhs_shape = _matrix_shapes(node)
    if len(rhs_shape) == 2:
        return ()
    return tuple(torch.broadcast_shapes(lhs_shape[:-2], rhs_shape[:-2]))


def support(node: Node, spec: TosaSpecification) -> str | None:
    lhs, rhs = node.args[:2]
    if min(len(shape_of(lhs)), len(shape_of(rhs))) < 1:
        return f"{describe(node)}: a 0-d operand is no matrix product (use mul)"
    return first_reason(
        profile_reason(node, spec, [lhs, rhs]), rank_reason(node, shape_of(node)), _u55_int16_reason(node, spec)
    )


def _u55_int16_reason(node: Node, spec: TosaSpecification) -> str | None:
    # Vela 5.2.0 on the U55: "Non-passthrough operation (MatMul) could not run on NPU" for int16 operands.
    int16 = any(is_dequantize(operand) and torch.int16 in operand.args for operand in node.args[:2])
    if spec.has("u55") and int16:
        return f"{describe(node)}: Vela 5.2.0 runs no int16 (a16w8) MATMUL on the U55; quantize it to int8"
    return None


def annotate_matmul(node: Node, config: QuantizationConfig) -> None:
    # An operand whose producer fixed its grid (softmax's probabilities) is read on that grid: an
    # observer of its own would add a requantizing RESCALE (1,520 U55-128 cycles per Llama layer).
    lhs, rhs = node.args[:2]
    for operand in (lhs, rhs):
        _derive_scaled_operand_grid(operand, node, config)
    annotate(node, {lhs: input_spec(lhs, config.activation), rhs: input_spec(rhs, config.activation)}, config.activation)


def _derive_scaled_operand_grid(operand: Node, matmul: Node, config: QuantizationConfig) -> None:
    """An operand ``mul(x, c)`` (c a positive constant scalar) that the INT lowering reads as x, with c
    in the product's RESCALE (_before_scalar_scaling), gets the grid of x scaled by c: x's own codes,
    so the quantized model rounds nothing there either. With an observed grid of its own, the quantized
    model rounded q * c where the lowering does not (mha_sequence's scores 0.66% a step off, 2 LSB at
    the logits; deit_tiny's attention likewise).
    """
    if not (isinstance(operand, Node) and operand.target in _ATEN_SCALAR_MULS and list(operand.users) == [matmul]):
        return
    annotation = operand.meta.get(_ANNOTATION_KEY)
    if annotation is None or annotation.output_qspec is None or len(operand.args) != 2:
        return
    for x, factor in (operand.args, operand.args[::-1]):
        if isinstance(x, Node) and x in annotation.input_qspec_map and _is_positive_scalar(factor):
            activation = config.activation
            annotation.output_qspec = DerivedQuantizationSpec(
                derived_from=[(x, operand)],
                derive_qparams_fn=functools.partial(_scaled_qparams, factor=float(factor)),
                dtype=activation.dtype,
                quant_min=activation.quant_min,
                quant_max=activation.quant_max,
                qscheme=activation.qscheme,
            )
            return


_ATEN_SCALAR_MULS = (torch.ops.aten.mul.Tensor, torch.ops.aten.mul.Scalar)


def _is_positive_scalar(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def _scaled_qparams(observers: list, *, factor: float) -> tuple[torch.Tensor, torch.Tensor]:
    scale, zero_point = observers[0].calculate_qparams()
    return (scale * factor).to(torch.float32), zero_point


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    lhs_node, rhs_node = node.args[:2]
    lhs_shape, rhs_shape = _matrix_shapes(node)
    rows, inner, columns = lhs_shape[-2], lhs_shape[-1], rhs_shape[-1]
    batch_shape = _batch_shape(node)
    if len(rhs_shape) == 2:
        batch, rows = 1, math.prod(lhs_shape[:-1])
    else:
        batch = math.prod(batch_shape)
    read = ctx.quantized_value if ctx.spec.is_int else ctx.value
    (lhs_node, lhs_factor), (rhs_node, rhs_factor) = (
        _before_scalar_scaling(ctx, operand) if ctx.spec.is_int else (operand, 1.0) for operand in (lhs_node, rhs_node)
    )
    lhs = _batched(ctx, read(lhs_node), lhs_shape, batch_shape, (batch, rows, inner), name=f"{node.name}_lhs")
    rhs = _batched(ctx, read(rhs_node), rhs_shape, batch_shape, (batch, inner, columns), name=f"{node.name}_rhs")
    product = matmul_values(ctx, lhs, rhs, name=f"{node.name}_product")
    if ctx.spec.is_int:
        product = from_int32(
            ctx.graph,
            product,
            name=f"{node.name}_rescaled",
            accumulator_scales=[lhs.qparams.scale * rhs.qparams.scale * lhs_factor * rhs_factor],
            output=ctx.output_qparams(node),
        )
    return reshape(ctx.graph, product, shape_of(node), name=node.name)


def _batched(
    ctx: LoweringContext,
    value: TosaValue,
    matrix_shape: tuple[int, ...],
    batch_shape: tuple[int, ...],
    shape: tuple[int, int, int],
    *,
    name: str,
) -> TosaValue:
    """``value`` as MATMUL's [N, rows, columns], TILEd first where its batch dims broadcast."""
    if batch_shape and tuple(matrix_shape[:-2]) != batch_shape:
        matrix = reshape(ctx.graph, value, matrix_shape, name=f"{name}_matrix")
        value = broadcast_value(ctx, matrix, (*batch_shape, *matrix_shape[-2:]), name=f"{name}_broadcast")
    return reshape(ctx.graph, value, shape, name=name)


_SCALAR_MULS = (exir_ops.edge.aten.mul.Tensor, exir_ops.edge.aten.mul.Scalar)


def _before_scalar_scaling(ctx: LoweringContext, operand: Node) -> tuple[Node, float]:
    """``(x, c)`` for an operand ``dequantize(quantize(mul(x, c)))`` read by this matmul alone, with
    ``c`` a positive constant scalar and ``x`` quantized; else ``(operand, 1.0)``.

    Attention scales q by 1/sqrt(head_dim) before its product with k: read q itself and put ``c`` in
    the product's RESCALE, and the MUL (768 U55-128 cycles per Llama layer) and its rounding go.
    """
    quantize = operand.args[0] if is_dequantize(operand) and len(operand.users) == 1 else None
    if not (isinstance(quantize, Node) and is_quantize(quantize) and len(quantize.users) == 1):
        return operand, 1.0
    mul = quantize.args[0]
    if not (isinstance(mul, Node) and mul.target in _SCALAR_MULS and len(mul.users) == 1 and len(mul.args) == 2):
        return operand, 1.0
    for x, factor in (mul.args, mul.args[::-1]):
        scalar = _constant_scalar(ctx, factor)
        if isinstance(x, Node) and is_dequantize(x) and scalar is not None and scalar > 0 and shape_of(x) == shape_of(mul):
            return x, scalar
    return operand, 1.0


def _constant_scalar(ctx: LoweringContext, value: object) -> float | None:
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, Node) and ctx.is_constant(value):
        data = ctx.constant(value)
        return float(data.reshape(-1)[0]) if data.numel() == 1 and data.is_floating_point() else None
    return None


def matmul_values(ctx: LoweringContext, lhs: TosaValue, rhs: TosaValue, *, name: str) -> TosaValue:
    """MATMUL; int8 operands give an int32 product whose step is the product of their steps, int16
    operands (a16w8) an int48 one: TOSA 1.0 defines MATMUL i16 x i16 with an i48 accumulator only."""
    if not ctx.spec.is_int:
        # TOSA 1.0 MATMUL gives float16 products for float16 operands, but float32 ones only for bfloat16.
        accumulator = np.dtype(np.float32) if lhs.dtype == BFLOAT16 else lhs.dtype
    else:
        accumulator = INT48 if lhs.dtype == np.int16 else np.dtype(np.int32)
    output = ctx.graph.add_tensor(name, (lhs.shape[0], lhs.shape[1], rhs.shape[2]), accumulator)
    zero_points = [value.qparams.zero_point if ctx.spec.is_int else 0 for value in (lhs, rhs)]
    operands = [
        lhs,
        rhs,
        ctx.graph.add_scalar_const(f"{name}_lhs_zp", zero_points[0], lhs.dtype),
        ctx.graph.add_scalar_const(f"{name}_rhs_zp", zero_points[1], rhs.dtype),
    ]
    attribute = ts.TosaSerializerAttribute()
    attribute.MatMulAttribute()
    ctx.graph.add_op(ts.Op.MATMUL, operands, [output], attribute)
    if lhs.dtype == BFLOAT16:
        return cast(ctx.graph, output, BFLOAT16, name=f"{name}_bfloat16")
    return output


def matmul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return x @ y


def scaled_lhs(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    # attention's q * 1/sqrt(head_dim): the INT lowering reads x and scales the product's RESCALE
    return (x * 0.25) @ y


def batched(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.bmm(x, y)


def matrices(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    return torch.mm(x, y)


def attention_scores(k: torch.Tensor, q: torch.Tensor) -> torch.Tensor:
    # k comes first: a delegate orders its inputs by first use (here k's transpose), and the harness
    # feeds the TOSA graph in the module's argument order.
    return q @ k.transpose(-1, -2)


class _ConstantOperand(torch.nn.Module):
    """A product with a weight the module holds, as ``x @ self.weight.T`` (Falcon's FalconLinear) or
    ``self.weight @ x``: on Ethos-U a CONV2D with the constant as its weights (arm/tosa/constant_matmuls.py)."""

    def __init__(self, shape: tuple[int, int], *, on_the_left: bool):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(*shape) / shape[1] ** 0.5)
        self.on_the_left = on_the_left

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.weight @ x if self.on_the_left else x @ self.weight.T


TEST_CASES = {
    "mm": OpTestCase(FunctionModule(matrices), random_inputs(0, (8, 16), (16, 12))),
    # A constant operand: the batch folds into the convolution's rows; on the left, TILEd to the batch.
    "constant_rhs_transposed": OpTestCase(_ConstantOperand((12, 16), on_the_left=False), random_inputs(11, (2, 6, 16))),
    "constant_lhs": OpTestCase(_ConstantOperand((5, 16), on_the_left=True), random_inputs(12, (2, 16, 7))),
    "bmm": OpTestCase(FunctionModule(batched), random_inputs(1, (3, 5, 8), (3, 8, 6))),
    "matmul_rank4": OpTestCase(FunctionModule(matmul), random_inputs(2, (2, 3, 4, 8), (2, 3, 8, 5))),
    "matmul_rank3_by_rank2": OpTestCase(FunctionModule(matmul), random_inputs(3, (2, 6, 16), (16, 4))),
    "scaled_lhs": OpTestCase(FunctionModule(scaled_lhs), random_inputs(6, (2, 6, 8), (2, 8, 5))),
    # torch.matmul of vectors (the peer's 1-d cases, which it xfails as aten.mv/aten.dot): a row [K]
    # times a batched matrix (TILEd to the batch), and a matrix times a column. (A dot product, 0-d,
    # takes the same path; the replay's 1d_1d cases check it.)
    "vector_by_batch": OpTestCase(FunctionModule(matmul), random_inputs(7, (5,), (2, 5, 3))),
    "matrix_by_vector": OpTestCase(FunctionModule(matmul), random_inputs(8, (2, 4, 5), (5,))),
    # Batch dims that broadcast ([2, 3] against [3]): the right operand TILEd to the left one's batch.
    "broadcast_batch": OpTestCase(FunctionModule(matmul), random_inputs(10, (2, 3, 4, 5), (3, 5, 2))),
    "attention_scores": OpTestCase(FunctionModule(attention_scores), random_inputs(4, (1, 2, 6, 8), (1, 2, 6, 8))),
    # int16 operands: an int48 accumulator; the TOSA-1.0+INT targets (TOSA, VGF) have no int16 extension
    # and Vela puts no int16 MATMUL on the U55.
    "a16w8_bmm": OpTestCase(
        FunctionModule(batched),
        random_inputs(5, (2, 4, 8), (2, 8, 6)),
        cpu_targets=("tosa_INT", "vgf_INT", "u55_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="matmul",
    edge_targets=(exir_ops.edge.aten.matmul.default, exir_ops.edge.aten.bmm.default, exir_ops.edge.aten.mm.default),
    aten_targets=(torch.ops.aten.matmul.default, torch.ops.aten.bmm.default, torch.ops.aten.mm.default),
    support=support,
    annotate=annotate_matmul,
    lower=lower,
    test_cases=TEST_CASES,
    keep_in_edge=(torch.ops.aten.matmul.default,),
)
