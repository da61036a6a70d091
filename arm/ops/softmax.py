"""aten.softmax / aten._softmax -> max-stabilized exp, sum and reciprocal.

FP: REDUCE_MAX, SUB, EXP, REDUCE_SUM, RECIPROCAL, MUL.

INT: the output grid is fixed (1/256, zero point -128; see QuantizationConfig.probability_output).
On an Ethos-U the full-size operators cost cycles in proportion to their element count and width
(int32 ones twice int16 ones), while per-row operators are nearly free, so the full-size work is
kept to int8/int16 operators Vela fuses with their RESCALEs (but for the final product on long rows,
step 5), and all the arithmetic on the row sums happens per row:

1. ``max(x)`` along the axis; for the innermost axis the rows are first transposed to the outer
   axis, where Vela reduces about four times faster (see ``row_maximum``).
2. ``d = x - max(x)`` in raw input steps lies in [-255, 0] (``d + 127`` is an exact int8 index).
3. ``E = round(16383 * exp(scale * d))`` as int16: one int16 TABLE (``Int32Emitter.lookup_steps``),
   or on the U55/U65, which have none, two int8 TABLEs of seven bits each (``Int32Emitter.lookup14``).
   8 bits of exp lose a step of the output; 14 bits move it by well under a tenth of one.
4. ``S = REDUCE_SUM(E)``, then a per-row reciprocal from CLZ normalization and Newton-Raphson
   (arm.ops.common.fixed_point, ``row_inverse``).
5. On unmasked rows of at least UNMASKED_INT32_INVERSE_MIN_KEYS (17) keys and masked rows of at least
   INT32_INVERSE_MIN_KEYS (128): ``R = round(2**K / S)`` as an int32 (three
   Newton steps; K = 31 + log2(output step), 39 for the int8 grid, 42 at most), so R has 20
   significant bits on a 197-key row. E is widened to int32 by a MUL by one, one int32 MUL
   ``E * R / 2**31`` rounds ``E / S`` onto the output grid once, and a RESCALE adds the zero point;
   rounding R moves the result by at most ``E / 2**32`` of an output step. The MUL by one is there
   because a widening RESCALE would be folded into the exp TABLE (a 16-to-32-bit lookup, which our NPU
   model does not run); the shift stays at 31 because Vela runs an int32 MUL with a larger shift with
   double rounding, which TOSA's MUL does not do. On the U55 the two-table E is an int32 sum anyway
   and is read as it is (no narrowing to int16 and widening back).
   Shorter rows: ``R = round(2**28 / S)``, an int16 (S >= 16383), two Newton steps, one int16 x int16
   MUL and a RESCALE by 2**-28; rounding R moves the result by up to ``E / 2**21`` of an output step
   (1/128). That was every row's form before 2026-11-26: on deit_tiny's 197-key rows it put 0.2% of the
   attention probabilities a step off the quantized torch model; the int32 form leaves only half-step
   ties, for 267k instead of 174k U85-256 cycles per [1, 3, 197, 197] softmax (U55-128: 1.16M instead
   of 1.00M). On mha_sequence's 40-key rows (from 32 keys then: UNMASKED_INT32_INVERSE_MIN_KEYS) the
   int32 form took the share of probabilities a step off from 0.26% to 0.01% (arm.report.bisect
   --float64), for U55-128 +6k cycles there (of 340k); on peaked rows E's own 14 bits limit it.
   Shorter rows keep the cheaper form: per-operator costs dominate, and bert (16 keys) sits within 1%
   of the peer's U55 cycles; Llama's masked 16-key rows are another owner's. See bench/README.md
   "deit_tiny against its own quantized model" and "Attention numerics, session 7".

On the TOSA, VGF and U85 targets, unmasked int8 rows take an exact E instead (``_exact_exponentials``):
one int16 TABLE read between two entries at fraction 127 returns ``e[i] + 127 * e[i + 1]``, so the 513
entries hold 256 values of up to 22 bits, and the index ``256 * d + 32767`` lands every difference on
its own pair. S sums E in int32 (E's full scale shrinks on rows of more than 511 keys), R = 2**K / S
takes all the bits row_inverse gives, and one int32 MUL puts E / S on a grid 22 bits below an output
step, whose RESCALE an ADD of zero carries (Vela folds a RESCALE into an ADD, not into a MUL). On a
[1, 3, 197, 197] softmax the probabilities a step off the quantized model in float64 went from 538 of
931,416 to 2, on 16-17-key rows from 0.1-0.3% to none. On the U85 Vela 5.2.0 runs the index
arithmetic as an int32 SUB whose output stage looks the index up in that table with int32 results
(LUT_S16_S32; runtime/npu_model runs it since session 9): U85-256 329,594 -> 439,895 cycles on a
[1, 3, 197, 197] softmax, 3,126 -> 5,826 on [1, 4, 16, 16]; deit_tiny, mobilevit_xxs and yolov8n at
64x64/160 became exact against their quantized models on the U85 (bench/README.md "U85 softmax,
session 9"). Along an outer axis the exact E's sums are halving ADDs of windows
(``_outer_axis_sum``): Vela transposes a tensor to reduce an outer axis, at 866k of 971k U85-256
cycles for yolov8n's [1, 16, 4, 525] DFL softmax (114k with the ADDs; the 14-bit form's 474k). The
U55/U65 take the exact E on rows of 128 keys or more only (``takes_exact_exponentials``): Vela 5.2.0
runs an int16 TABLE there as three 8-bit lookups (a [1, 3, 197, 197] softmax 1.13M -> 2.07M U55-128
cycles); with it and the exact layer norm deit_tiny 224 on the U55 equals its quantized model in
float64 (bench/README.md "deit_tiny on the U55, session 10"). Their rows of 17-127 keys take the
14-bit E with 16 bits of its residual below its unit from two more int8 TABLEs on the same index, 30
bits as the exact E with its residual has, and its sum L enters the row divisor itself
(``fourteen_bit_residual_rows``; bench/README.md "Softmax residual on the U85, session 11" and "The
U55's 30-bit softmax, session 12"); shorter rows keep the 14-bit E alone.
On the TOSA, VGF and U85 targets an int8 TABLE on the int8 index ``d + 127`` gives E's residual
below its unit (8 more bits), its row sum L corrects R per row (``R * (1 - L / S)``) and an int16 MUL
adds the residual's share, so that a probability rounds as the quantized model's float does unless it
lies within about 1e-7 of a step of a half step (E alone: 4e-6 on average, up to 3e-5 on peaked rows;
it put one of Conformer's 16,384 probabilities a step off). On the U85-256 it costs about 9,800 cycles
on a [1, 4, 40, 40] softmax (29,321 -> 38,876 read twice as int8, 270 more widened once; session 10's
int16 pair TABLE for the residual and its int32 MUL cost 22,542, above mha_sequence's headroom;
bench/README.md "Softmax residual on the U85, session 11"). The U85's rows of 128+ keys and the
U55/U65's rows of 128+ go without it (``has_exp_residual``).

int16 inputs (a16w8; output grid 1/32768, zero point 0): ``d`` lies in [-65534, 0], so ``d + 32767``
is an int16 index into one interpolating int16 TABLE of ``E`` (common/table.py), on the U55 too
(Vela 5.2.0 runs it there); steps 4 and 5 are unchanged (K = 42 on long rows: the int16 grid's step
is 2**-15). E's interpolation error (a unit or two of its 14 bits where exp is steepest) stays within
an int16 output step on the a16w8 cases.

Masked (attention): ``softmax(masked_fill(scores, hidden, -inf))`` with a constant ``hidden`` is lowered
as one softmax of the int8 scores (arm/ops/common/masked_scores.py) in which hidden keys get E = 0, so
their probability is exactly 0 and the others are normalized over the visible keys only, as in float.
One ADD puts a bias of -512 on hidden scores (an int8 constant of -128, widened at run time) and writes
them as int16; the row maximum of that tensor is the visible keys' maximum, and its differences from it
index one int16 TABLE of E on every target, the U55/U65 too (Vela 5.2.0 runs int16 TABLEs there, fused
with the SUB): every hidden key lies below -256 steps, where the table holds 0. E is the same 14-bit
value the unmasked U55 path assembles from two int8 TABLEs. No SELECT, so the U55 runs it too.
A mask that hides no key (a constant all-False ``hidden``) is no mask: the scores' unmasked softmax.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import torch
import tosa_serializer as ts
from executorch.exir.dialects._ops import ops as exir_ops
from torch.fx import Node

from arm.ops.common.axis_reduction import reduce
from arm.ops.common.elementwise import emit
from arm.ops.common.fixed_point import (
    LOOKUP14_MAX,
    RECIPROCAL_FRACTION_BITS,
    RECIPROCAL_STEPS,
    Int32Emitter,
    normalize,
    reciprocal,
)
from arm.ops.common.masked_scores import masked_scores
from arm.ops.common.op_test_case import FunctionModule, OpTestCase, random_inputs
from arm.ops.common.arm_op import ArmOp
from arm.ops.common.support import describe, first_reason, profile_reason, rank_reason
from arm.ops.common.table import INT16_TABLE_ENTRIES, int16_table, quantized_function_table16, table
from arm.ops.common.unary import emit_unary, fp_mul, int8_reason
from arm.quantizer.annotation import annotate
from arm.quantizer.quantization_config import QuantizationConfig, get_symmetric_a16w8_quantization_config
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaGraph, TosaValue, concat, reshape, slice_tensor
from arm.tosa.quantization import QParams
from arm.tosa.rescale import rescale
from arm.tosa.specification import TosaSpecification

# E's full scale: the largest int16 two int8 table bytes hold.
EXP_FULL_SCALE = LOOKUP14_MAX
# Largest reduction whose sum of E fits int32.
MAX_REDUCED_ELEMENTS = 1 << 15
# R = 2**K / S: K at most 42 keeps the normalizing shift of S >= EXP_FULL_SCALE non-negative (and R < 2**29).
_MAX_INVERSE_FRACTION_BITS = 42
# Short rows' R = 2**28 / S: at most 2**28 / EXP_FULL_SCALE < 2**15 (an int16), and E * R < 2**29.
_INT16_INVERSE_FRACTION_BITS = 28
# Vela runs an int32 MUL whose shift exceeds 31 with double rounding (TOSA's apply_scale_32 rounds once).
_MAX_MUL_SHIFT = 31


def softmax_dim(node: Node) -> int:
    return node.args[1] % len(shape_of(node))


def support(node: Node, spec: TosaSpecification) -> str | None:
    x = node.args[0]
    masked = masked_scores(node)
    # A masked softmax reads the int8 scores behind its masked_fill (see the module doc).
    quantized_input = masked.args[0] if masked is not None and spec.is_int else x
    reduced = shape_of(x)[softmax_dim(node)] if shape_of(x) else 1
    half_to_float = len(node.args) > 2 and node.args[2]
    return first_reason(
        profile_reason(node, spec, [quantized_input]),
        # The masked lowering's hidden-key bias and two-table E are written for int8 scores.
        int8_reason(node, spec, [quantized_input]) if masked is not None else None,
        rank_reason(node, shape_of(x)),
        f"{describe(node)}: half_to_float is not supported" if half_to_float else None,
        (
            f"{describe(node)}: softmax over {reduced} elements exceeds the {MAX_REDUCED_ELEMENTS} the integer "
            f"lowering can sum in int32; split the axis or use the FP profile"
            if spec.is_int and reduced > MAX_REDUCED_ELEMENTS
            else None
        ),
    )


def annotate_softmax(node: Node, config: QuantizationConfig) -> None:
    # A masked softmax's input stays float: masked_fill annotated the scores it reads.
    inputs = {} if masked_scores(node) is not None else {node.args[0]: config.activation}
    annotate(node, inputs, config.probability_output())


def lower(node: Node, ctx: LoweringContext) -> TosaValue:
    axis = softmax_dim(node)
    if ctx.spec.is_fp:
        return float_softmax(ctx, ctx.value(node.args[0]), axis, name=node.name)
    masked = masked_scores(node)
    if masked is None:
        return _lower_int(node.name, ctx, ctx.value(node.args[0]), axis, ctx.output_qparams(node))
    scores, mask = masked.args[:2]
    x = ctx.value(scores)
    hidden = ctx.constant(mask).numpy().astype(bool)
    if not hidden.any():
        # A mask that hides no key (TinyViT's attention biases at their zero initialization, which sdpa
        # reads as a hiding mask) is a plain softmax of the scores, with the unmasked rows' exact E.
        return _lower_int(node.name, ctx, x, axis, ctx.output_qparams(node))
    hidden = hidden.reshape((1,) * (x.rank - hidden.ndim) + hidden.shape)
    return _lower_int(node.name, ctx, x, axis, ctx.output_qparams(node), hidden=hidden)


@dataclasses.dataclass(frozen=True)
class FloatExponentials:
    """``shifted = x - max(x)``, ``exp = EXP(shifted)`` and ``total``, its sum along the axis (FP)."""

    shifted: TosaValue
    exp: TosaValue
    total: TosaValue


def float_exponentials(ctx: LoweringContext, x: TosaValue, axis: int, *, name: str) -> FloatExponentials:
    maximum = reduce(ctx.graph, ts.Op.REDUCE_MAX, x, axis, name=f"{name}_max")
    shifted = emit(ctx, ts.Op.SUB, ts.TosaSerializerAttribute.SubAttribute, [x, maximum],
                   name=f"{name}_shifted", shape=x.shape, dtype=x.dtype)  # fmt: skip
    exp = emit_unary(ctx, ts.Op.EXP, ts.TosaSerializerAttribute.ExpAttribute, shifted, name=f"{name}_exp")
    return FloatExponentials(shifted, exp, reduce(ctx.graph, ts.Op.REDUCE_SUM, exp, axis, name=f"{name}_sum"))


def float_softmax(ctx: LoweringContext, x: TosaValue, axis: int, *, name: str) -> TosaValue:
    exponentials = float_exponentials(ctx, x, axis, name=name)
    inverse = emit_unary(ctx, ts.Op.RECIPROCAL, ts.TosaSerializerAttribute.ReciprocalAttribute, exponentials.total,
                         name=f"{name}_reciprocal")  # fmt: skip
    return fp_mul(ctx, exponentials.exp, inverse, name=name)


@dataclasses.dataclass(frozen=True)
class ShiftedExponentials:
    """The pieces softmax and log_softmax share, along the reduced axis.

    ``steps_below_max``: ``x - max(x)`` in raw input steps, in [-255, 0] (int32).
    ``exp``: ``E = round(EXP_FULL_SCALE * exp(scale * steps_below_max))`` (int16, or int32 where the
    lookup assembles it in int32 anyway and the caller asked for ``wide`` E).
    ``total``: ``S``, the sum of E, in [EXP_FULL_SCALE, EXP_FULL_SCALE * N] (int32).
    """

    steps_below_max: TosaValue
    exp: TosaValue
    total: TosaValue


def shifted_exponentials(
    ints: Int32Emitter,
    x: TosaValue,
    axis: int,
    spec: TosaSpecification,
    *,
    hidden: np.ndarray | None = None,
    wide: bool = False,
) -> ShiftedExponentials:
    """``hidden`` (bool, x's rank, broadcastable to it): keys whose E is 0 (a masked softmax). ``wide``:
    the caller reads E as int32; the U55's two-table E is then not narrowed to int16 (one full-size
    RESCALE, and the caller's widening, fewer)."""
    graph = ints.graph
    if hidden is not None:  # int8 scores: support keeps masked int16 scores on the CPU
        return _masked_exponentials(ints, x, axis, hidden)
    maximum = row_maximum(graph, x, axis, name=f"{ints.prefix}_max")
    # Zero points cancel in x - max: both sides are read raw.
    steps_below_max = ints.sub(ints.widen(x, "x_int32"), ints.widen(maximum, "max_int32"), "steps_below_max")
    if x.dtype == np.int16:
        exp = _int16_exponentials(ints, steps_below_max, x.qparams)
    elif spec.has("u55"):  # no int16 TABLE on the U55/U65
        index = rescale(
            graph, steps_below_max, name=f"{ints.prefix}_exp_index", scales=[1.0], output_dtype=np.dtype(np.int8),
            input_zp=0, output_zp=127,
        )  # fmt: skip
        exp = ints.lookup14(index, _exp_values(x.qparams), "exp", wide=wide)
    else:
        exp = ints.lookup_steps(steps_below_max, _exp_values(x.qparams), "exp")
    exp_int32 = exp if exp.dtype == np.int32 else ints.widen(exp, "exp_int32")
    total = reduce(graph, ts.Op.REDUCE_SUM, exp_int32, axis, name=f"{ints.prefix}_sum")
    return ShiftedExponentials(steps_below_max, exp, total)


def _exp_values(grid: QParams) -> np.ndarray:
    """E for the int8 differences -255..0 (raw steps of ``grid``)."""
    return np.round(EXP_FULL_SCALE * np.exp(grid.scale * np.arange(-255, 1, dtype=np.float64)))


# d + _INT16_INDEX_OFFSET maps the int16 grid's differences [-65534, 0] onto the int16 codes.
_INT16_INDEX_OFFSET = 32767


def _int16_exponentials(ints: Int32Emitter, steps_below_max: TosaValue, grid: QParams) -> TosaValue:
    """``E = EXP_FULL_SCALE * exp(scale * d)`` (int16) for int16 input steps ``d``, by one int16 TABLE."""
    shifted = ints.add(steps_below_max, ints.constant(_INT16_INDEX_OFFSET, "exp_offset"), "exp_steps")
    index = rescale(ints.graph, shifted, name=f"{ints.prefix}_exp_index", scales=[1.0], output_dtype=np.dtype(np.int16),
                    input_zp=0, output_zp=0)  # fmt: skip
    # On a grid of unit step: code c stands for d = c - 32767; E's grid has step 1/EXP_FULL_SCALE.
    code_grid = QParams((1.0,), 0, np.dtype(np.int16))
    exp_grid = QParams((1.0 / EXP_FULL_SCALE,), 0, np.dtype(np.int16))
    entries = quantized_function_table16(lambda code: np.exp(grid.scale * (code - _INT16_INDEX_OFFSET)), code_grid,
                                         exp_grid)  # fmt: skip
    return int16_table(ints.graph, index, entries, name=f"{ints.prefix}_exp", qparams=None)


# Added to hidden scores (raw int8 steps): below every visible score by more than the table's reach
# (-128 - 512 + 255 < -256 steps below any visible maximum).
_HIDDEN_BIAS = -512


def _masked_exponentials(ints: Int32Emitter, x: TosaValue, axis: int, hidden: np.ndarray) -> ShiftedExponentials:
    """The masked softmax's steps 1-4 on int8 scores ``x`` (last axis), every target alike.

    One ADD writes the biased scores as int16, hidden keys at or below -385 (int8 would saturate them to
    -128, a visible score). The row maximum and the differences read that one tensor as rows
    [..., keys]: Vela 5.2.0 copies a tensor that is both reshaped and read by another operator (2,760
    U55-128 cycles for an int16 [2, 32, 16]). The differences ``d`` of visible keys lie in [-255, 0];
    hidden keys' lie below -256, where the int16 TABLE of E (``Int32Emitter.lookup_steps``, one
    operator with the SUB on the U55 too: Vela 5.2.0 runs int16 TABLEs there) holds 0, so their E is
    exactly 0 and the sum S covers the visible keys only.
    """
    graph = ints.graph
    # Stored as int8 (-128 at hidden keys) and widened by 4 at run time: an ADD reading an int32 constant
    # from flash costs the U55-128 8,192 cycles for a [1, 4, 16, 16] attention.
    hidden_steps = graph.add_const(f"{ints.prefix}_hidden", np.where(hidden, _HIDDEN_BIAS // 4, 0).astype(np.int8))
    bias = ints.widen(hidden_steps, "hidden_bias", scale=4.0)
    biased = ints.add(ints.widen(x, "x_int32"), bias, "biased_int32")
    biased16 = rescale(graph, biased, name=f"{ints.prefix}_biased", scales=[1.0], output_dtype=np.dtype(np.int16),
                       input_zp=0, output_zp=0)  # fmt: skip
    # The row maximum and the differences read ``biased16`` as it is: Vela 5.2.0 copies a tensor that
    # is both reshaped and read by another operator (2,760 U55-128 cycles for an int16 [2, 32, 16]).
    maximum = _last_axis_maximum(graph, biased16, name=f"{ints.prefix}_max")
    steps = ints.sub(ints.widen(biased16, "biased_int32_steps"), ints.widen(maximum, "max_int32"), "steps_below_max")
    exp = ints.lookup_steps(steps, _exp_values(x.qparams), "exp", below_range=0)
    total = reduce(graph, ts.Op.REDUCE_SUM, ints.widen(exp, "exp_int32"), axis, name=f"{ints.prefix}_sum")
    return ShiftedExponentials(steps, exp, total)


def _last_axis_maximum(graph: TosaGraph, x: TosaValue, *, name: str) -> TosaValue:
    """REDUCE_MAX over the last axis, keeping it (size 1), reduced as the outer axis of the last two
    axes' transpose (see ``row_maximum``), without reshaping ``x``."""
    perms = [*range(x.rank - 2), x.rank - 1, x.rank - 2]
    columns = graph.add_tensor(f"{name}_columns", tuple(x.shape[axis] for axis in perms), x.dtype, x.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.TransposeAttribute(perms)
    graph.add_op(ts.Op.TRANSPOSE, [x], [columns], attribute)
    maximum = reduce(graph, ts.Op.REDUCE_MAX, columns, x.rank - 2, name=f"{name}_columns_max")
    return reshape(graph, maximum, (*x.shape[:-1], 1), name=name)


def row_maximum(graph: TosaGraph, x: TosaValue, axis: int, *, name: str) -> TosaValue:
    """REDUCE_MAX of ``x`` along ``axis``, keeping the axis (size 1).

    Vela 5.2.0 reduces the innermost axis about four times slower than an outer one (a [128, 32]
    int8 tensor: 17,455 U55-128 cycles against 2,832 for its [32, 128] transpose, plus 1,536 for the
    TRANSPOSE; U85-256 19,819 against 1,404 + 2,528). So an innermost reduction runs on the rows
    transposed to [N, rows]. The TRANSPOSE is added without layout perms: it is part of this
    computation, not a layout change arm.tosa.layout may move (sinking it below the reduction
    would undo it).
    """
    if axis != x.rank - 1 or x.rank < 2:
        return reduce(graph, ts.Op.REDUCE_MAX, x, axis, name=name)
    count = x.shape[axis]
    rows = reshape(graph, x, (math.prod(x.shape[:-1]), count), name=f"{name}_rows")
    columns = graph.add_tensor(f"{name}_columns", (count, rows.shape[0]), x.dtype, x.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.TransposeAttribute([1, 0])
    graph.add_op(ts.Op.TRANSPOSE, [rows], [columns], attribute)
    maximum = reduce(graph, ts.Op.REDUCE_MAX, columns, 0, name=f"{name}_columns_max")
    return reshape(graph, maximum, (*x.shape[:-1], 1), name=name)


def _lower_int(
    name: str, ctx: LoweringContext, x: TosaValue, axis: int, output: QParams, *, hidden: np.ndarray | None = None
) -> TosaValue:
    ints = Int32Emitter(ctx.graph, name, x.rank)
    # The exact E (a 22-bit int16 TABLE read) everywhere but on the U55/U65's short rows
    # (takes_exact_exponentials): Vela 5.2.0 runs an int16 TABLE there as three int8 lookups. On the U85
    # Vela runs the index arithmetic as an int32 SUB that looks its result up in the table with int32
    # results (LUT_S16_S32, which runtime/npu_model runs).
    if hidden is None and x.dtype == np.int8 and takes_exact_exponentials(x.shape[axis], ctx.spec):
        exponentials = _exact_exponentials(ints, x, axis, residual=has_exp_residual(x.shape[axis], ctx.spec))
        return _exact_quotient(name, ctx, ints, exponentials, output)
    if hidden is None and x.dtype == np.int8 and fourteen_bit_residual_rows(x.shape[axis], ctx.spec):
        return _exact_quotient(name, ctx, ints, _fourteen_bit_exponentials_with_residual(ints, x, axis), output)
    int32_inverse = x.shape[axis] >= (INT32_INVERSE_MIN_KEYS if hidden is not None else UNMASKED_INT32_INVERSE_MIN_KEYS)
    exponentials = shifted_exponentials(ints, x, axis, ctx.spec, hidden=hidden, wide=int32_inverse)
    if not int32_inverse:
        return _quotient_by_int16_inverse(name, ctx, ints, exponentials, output)
    return _quotient_by_int32_inverse(name, ctx, ints, exponentials, output)


# On the U55/U65, unmasked rows of at least this many keys take the exact E (takes_exact_exponentials).
U55_EXACT_EXP_MIN_KEYS = 128


def takes_exact_exponentials(keys: int, spec: TosaSpecification) -> bool:
    """Whether unmasked int8 rows of ``keys`` elements take the exact 22-bit E (``_exact_exponentials``).

    Everywhere but on the U55/U65's short rows. On the U85 Vela 5.2.0 runs the index arithmetic as an
    int32 SUB that looks its result up in the table with int32 results (LUT_S16_S32, which
    runtime/npu_model runs). On the U55 it runs the int16 TABLE as three int8 lookups and their sums:
    a [1, 3, 197, 197] softmax costs 2,069,784 U55-128 cycles instead of 1,130,645, a fixed amount per
    probability. A rule of cost: rows of U55_EXACT_EXP_MIN_KEYS or more take it (deit_tiny's 197 keys,
    +11 M cycles on 180 M, within the peer's 233 M); shorter rows keep the 14-bit E, because the
    attention models with short rows are small and already near the peer's cycles (bert's 16 keys
    within 0.6%), so the same cost per probability would put them above it.
    """
    return not spec.has("u55") or keys >= U55_EXACT_EXP_MIN_KEYS


def fourteen_bit_residual_rows(keys: int, spec: TosaSpecification) -> bool:
    """Whether unmasked int8 rows of ``keys`` elements take the 14-bit E with its residual
    (``_fourteen_bit_exponentials_with_residual``): on the U55/U65, rows of UNMASKED_INT32_INVERSE_MIN_KEYS
    keys up to the exact E's U55_EXACT_EXP_MIN_KEYS.

    E + e / 2**16 has 30 bits, as the exact E with its residual on the other targets, so these rows
    round as those do. Session 11's 22 bits (one residual byte, R's first-order correction by L) left
    a probability up to about 1e-5 of an output step off its value: Conformer's one 3.3e-7 of a step
    from a half step rounded the other way (3 steps at its output). A numpy model of the integer
    arithmetic (rows of 17, 32, 40 and 127 keys of N(0, 40) codes, input step 2**-5, 32.4 million
    probabilities) finds the 22-bit form off float64's rounding on 77, all within 1.1e-5 of a step of
    a half step, the 30-bit form on 4, all within 2.1e-7 (R's rounding, ``E * 2**-35`` of a step at
    most, and L's in the divisor are what is left). Within mha_sequence a [1, 4, 40, 40] softmax costs
    111,640 U55-128 cycles instead of 100,280 with one residual byte (session 11, the softmax alone:
    107,304 with one byte, 76,856 with the 14-bit E alone, 135,708 with the exact E's int16 TABLE).
    Shorter rows keep the 14-bit E: bert's 16-key rows sit within 1,689 cycles of the peer's U55 total.
    """
    return spec.has("u55") and UNMASKED_INT32_INVERSE_MIN_KEYS <= keys < U55_EXACT_EXP_MIN_KEYS


# ---- int8 unmasked rows: E with 22 bits from one int16 TABLE ---------------------------------------

# An int16 TABLE reads entries e[i] and e[i + 1] at i = (c + 32768) >> 7 and returns
# ``e[i] * 128 + (e[i + 1] - e[i]) * f`` with f = c & 127 (TOSA's apply_lookup_s). At f = 127 that is
# ``e[i] + 127 * e[i + 1]``: a pair of int16 entries holds any value up to 127 * 32767 exactly. The index
# ``256 * d + 32767`` puts every difference d in [-255, 0] on its own pair (i = 2 * (d + 255) + 1) at f = 127.
_PAIR_WEIGHT = 127
_PAIR_INDEX_STEP = 256
_PAIR_INDEX_OFFSET = 32767
# The largest E: its high entry stays within int16 together with the slope e[i + 1] - e[i] (|e[i]| <= 63).
_EXACT_EXP_LIMIT = _PAIR_WEIGHT * ((1 << 15) - 1 - _PAIR_WEIGHT // 2)
# R = round(2**K / S) comes from row_inverse, whose right shift 59 - K - normalize's shift must not be
# negative; the quotient E * R is shifted right by at most 31 (Vela: see _MAX_MUL_SHIFT) and kept below 2**30.
_RECIPROCAL_SHIFT_BASE = 31 + RECIPROCAL_FRACTION_BITS
_QUOTIENT_BITS = 30
# R < 2**29 (see _exact_quotient): R**2 shifted right by 28 stays below 2**30.
_INVERSE_SQUARE_SHIFT = 28
# R < 2**_INVERSE_BITS: the residual's product reads it narrowed to 15 bits (_residual_quotient).
_INVERSE_BITS = 29


def exact_exp_full_scale(keys: int) -> int:
    """E's full scale for rows of ``keys`` elements: as large as the pair lookup holds and S = sum(E) fits int32."""
    return min(_EXACT_EXP_LIMIT, ((1 << 31) - 1) // keys)


def _pair_entries(values: np.ndarray) -> np.ndarray:
    """The 513 int16 TABLE entries whose pairs (2k + 1, 2k + 2) read back ``values[k]`` at f = 127."""
    values = np.asarray(values, dtype=np.int64)
    high = np.round(values / _PAIR_WEIGHT).astype(np.int64)
    low = values - _PAIR_WEIGHT * high  # in [-63, 63]
    entries = np.zeros(INT16_TABLE_ENTRIES, dtype=np.int64)
    entries[1::2] = low
    entries[2::2] = high
    return entries.astype(np.int16)


# E's residual below its unit, in units of 2**-_RESIDUAL_BITS: an int8 TABLE (residual_lookup).
# R's correction and the residual's product keep their MUL shifts within 31 (see _exact_quotient).
_RESIDUAL_BITS = 8


@dataclasses.dataclass(frozen=True)
class ExactExponentials:
    """The exact E of int8 rows along the reduced axis, with the part of ``F * exp`` below E's unit.

    ``exp``: ``E = round(F * exp(scale * d))`` (int32, up to 22 bits); ``residual``:
    ``round((F * exp(scale * d) - E) * 2**residual_bits)`` (int16, from an int8 TABLE, +128 clipped to
    127, or from two on the U55's 14-bit E); ``total`` and ``residual_total``: their sums S and L along
    the axis (int32); ``full_scale``: F.
    Some Ethos-U rows go without the residual (None, see has_exp_residual).
    """

    exp: TosaValue
    residual: TosaValue | None
    total: TosaValue
    residual_total: TosaValue | None
    full_scale: int
    # The residual's unit: 2**-residual_bits of E's.
    residual_bits: int = _RESIDUAL_BITS
    # Set where L must enter the divisor exactly (a 14-bit E's L / S is too large for R's first-order
    # correction, see _combined_inverse): S * 2**total_shift + L / 2**(residual_bits - total_shift).
    total_shift: int | None = None


# On the U85, rows shorter than this many keys take E's residual (has_exp_residual).
U85_EXP_RESIDUAL_MAX_KEYS = 128


def has_exp_residual(keys: int, spec: TosaSpecification) -> bool:
    """Whether the exact E of rows of ``keys`` elements carries its residual on ``spec``'s target: on the
    TOSA and VGF targets always, on the U85 on rows shorter than U85_EXP_RESIDUAL_MAX_KEYS, on the
    U55/U65 never (their rows of 128+ keys take the exact E, and deit_tiny 224 equals its quantized
    model there without it; the residual's int8 TABLE, sum and MUL would add to the three int16-indexed
    lookups Vela runs the exact E's TABLE as).

    A rule of cost and need, as takes_exact_exponentials is: the residual costs a fixed number of
    cycles per probability (U85-256: about 9,800 on a [1, 4, 40, 40] softmax; 282k on
    [1, 4, 256, 256], 924k -> 1.21M), and an attention's probabilities grow as the square of its
    keys where its other layers grow linearly, so long rows pay most (MobileViT-xxs 256, with
    256-key rows: 32.3M -> 37.9M cycles with it everywhere, above the peer's 35.7M; 32.8M with this
    rule). They also need it least: what E's rounding moves a probability by shrinks as 1 / S, and
    S grows with the row. On short rows it took Conformer U85-256 from 3 steps to 0 (one probability
    3.3e-7 of a step from a half step), 102,508 -> 109,360 cycles, and mha_sequence 78,743 -> 88,568
    (the peer's 90,388).
    """
    if spec.has("u55"):
        return False
    return not spec.has("u85") or keys < U85_EXP_RESIDUAL_MAX_KEYS


def _pair_table(ints: Int32Emitter, index: TosaValue, values: np.ndarray, what: str) -> TosaValue:
    """``values[k]`` (int32) at the pair index of difference k - 255 (see _PAIR_WEIGHT)."""
    graph = ints.graph
    looked_up = graph.add_tensor(f"{ints.prefix}_{what}", index.shape, np.dtype(np.int32))
    attribute = ts.TosaSerializerAttribute()
    attribute.TableAttribute()
    graph.add_op(ts.Op.TABLE, [index, graph.add_const(f"{ints.prefix}_{what}_entries", _pair_entries(values))],
                 [looked_up], attribute, elementwise_unary=True)  # fmt: skip
    return looked_up


def _axis_sum(ints: Int32Emitter, value: TosaValue, axis: int, what: str) -> TosaValue:
    """The sum of int32 ``value`` along ``axis``, keeping it: halving ADDs along an outer axis."""
    if axis != value.rank - 1:
        return _outer_axis_sum(ints, value, axis, what)
    return reduce(ints.graph, ts.Op.REDUCE_SUM, value, axis, name=f"{ints.prefix}_{what}")


def _exact_exponentials(ints: Int32Emitter, x: TosaValue, axis: int, *, residual: bool) -> ExactExponentials:
    """Steps 1-4 for int8 rows without a mask, with ``E = round(F * exp(scale * d))`` as an int32 of up to
    22 bits (F = exact_exp_full_scale) from one int16 TABLE (see _PAIR_WEIGHT), on every target, and
    the residual ``F * exp(scale * d) - E`` on a grid 2**-_RESIDUAL_BITS finer from a second one.

    The 14-bit E of ``shifted_exponentials`` (log_softmax's) rounds each exponential by up to 1/32768 of
    the largest one, which put 0.06% of the probabilities of 197-key rows and 0.1-0.3% of 16-17-key
    rows a step off the quantized torch model; 22 bits leave 1/8 million. That still moved a probability
    by 0.5 / S of its value's scale (up to 3e-5 of an output step on a peaked row, 4e-6 on average on
    Conformer's 32-key rows), and Conformer has a probability 3.3e-7 of a step below a half step that E
    alone rounded up; with the residual the average is 1e-7 and the largest 1e-6 (numpy model of the
    integer arithmetic, 32-key rows of scores 0.03-0.13 apart), R's own rounding the largest part left.
    """
    graph = ints.graph
    keys = x.shape[axis]
    maximum = row_maximum(graph, x, axis, name=f"{ints.prefix}_max")
    # index = 256 * (x - max) + 32767: the scale rides on the widening RESCALEs, the offset on the row maximum.
    scaled_x = ints.widen(x, "x_int32", scale=float(_PAIR_INDEX_STEP))
    scaled_max = ints.widen(maximum, "max_int32", scale=float(_PAIR_INDEX_STEP))
    row_offset = ints.sub(scaled_max, ints.constant(_PAIR_INDEX_OFFSET, "index_offset"), "index_base")
    steps = ints.sub(scaled_x, row_offset, "exp_steps")
    index = rescale(graph, steps, name=f"{ints.prefix}_exp_index", scales=[1.0], output_dtype=np.dtype(np.int16),
                    input_zp=0, output_zp=0)  # fmt: skip
    values = exact_exp_full_scale(keys) * np.exp(x.qparams.scale * np.arange(-255, 1, dtype=np.float64))
    rounded = np.round(values)
    exp = _pair_table(ints, index, rounded, "exp")
    total = _axis_sum(ints, exp, axis, "sum")
    full_scale = exact_exp_full_scale(keys)
    if not residual:
        return ExactExponentials(exp, None, total, None, full_scale)
    return _with_residual(ints, residual_index(ints, x, maximum), values - rounded, exp, total, axis, full_scale)


def residual_index(ints: Int32Emitter, x: TosaValue, maximum: TosaValue) -> TosaValue:
    """The int8 index ``d + 127`` of the int8 rows' differences ``d = x - max`` in [-255, 0]."""
    steps = ints.sub(ints.widen(x, "x_int32_steps"), ints.widen(maximum, "max_int32_steps"), "steps_below_max")
    return rescale(ints.graph, steps, name=f"{ints.prefix}_exp_index8", scales=[1.0],
                   output_dtype=np.dtype(np.int8), input_zp=0, output_zp=127)  # fmt: skip


def _with_residual(
    ints: Int32Emitter,
    index: TosaValue,
    below_unit: np.ndarray,
    exp: TosaValue,
    total: TosaValue,
    axis: int,
    full_scale: int,
) -> ExactExponentials:
    """E and S with E's residual ``round(below_unit * 2**_RESIDUAL_BITS)`` (``below_unit``: 256 values in
    [-1/2, 1/2], the part of ``F * exp`` below E's unit, by difference d + 255) and its sum L.

    One int8 TABLE on the int8 ``index`` (+128 clipped to 127: 2**-_RESIDUAL_BITS of a unit), widened
    to int16 once: the product's int16 MUL reads it (_residual_quotient) and L sums it. An int8 TABLE
    is what the Ethos-U runs cheapest (Vela 5.2.0 runs the U85's SUB and TABLE as one int8 operator:
    the int16 pair TABLE on the exact E's index took 9,257 U85-256 cycles on [1, 4, 40, 40]).
    """
    entries = np.clip(np.round(np.asarray(below_unit) * 2.0**_RESIDUAL_BITS), -128, 127).astype(np.int8)
    looked_up = table(ints.graph, index, entries, name=f"{ints.prefix}_exp_residual", qparams=None)
    residual = rescale(ints.graph, looked_up, name=f"{ints.prefix}_exp_residual_int16", scales=[1.0],
                       output_dtype=np.dtype(np.int16), input_zp=0, output_zp=0)  # fmt: skip
    residual_total = _axis_sum(ints, ints.widen(residual, "exp_residual_int32"), axis, "residual_sum")
    return ExactExponentials(exp, residual, total, residual_total, full_scale)


def _fourteen_bit_exponentials_with_residual(ints: Int32Emitter, x: TosaValue, axis: int) -> ExactExponentials:
    """The U55/U65's E and S on rows of fourteen_bit_residual_rows: the 14-bit E of two int8 TABLEs
    (``_fourteen_bit_exp``) and, from two more on the same int8 index, its residual below its unit in
    units of 2**-_U55_RESIDUAL_BITS (``_two_byte_residual``): E + e / 2**16 has 30 bits, as the exact
    E with its residual has on the other targets, for four int8 lookups where Vela 5.2.0 runs the exact
    E's int16 TABLE as three int16-indexed ones and their sums.

    One residual byte (22 bits, session 11) left E's rounding moving a probability by up to about
    3e-5 of an output step on a 40-key row: Conformer's one probability 3.3e-7 of a step from a half
    step rounded the other way. With 30 bits what is left is R's own rounding, below ``E * 2**-35`` of
    a step (5e-7 at the row maximum, see _exact_quotient).
    """
    keys = x.shape[axis]
    maximum = row_maximum(ints.graph, x, axis, name=f"{ints.prefix}_max")
    index = residual_index(ints, x, maximum)
    values = EXP_FULL_SCALE * np.exp(x.qparams.scale * np.arange(-255, 1, dtype=np.float64))
    rounded = np.round(values)
    exp = _fourteen_bit_exp(ints, index, rounded)
    total = _axis_sum(ints, exp, axis, "sum")
    residual = _two_byte_residual(ints, index, values - rounded)
    residual_total = _axis_sum(ints, ints.widen(residual, "exp_residual_int32"), axis, "residual_sum")
    # S * 2**a stays below 2**31 on every row: S <= keys * F.
    total_shift = min(_U55_RESIDUAL_BITS, 31 - (keys * EXP_FULL_SCALE).bit_length())
    return ExactExponentials(exp, residual, total, residual_total, EXP_FULL_SCALE, residual_bits=_U55_RESIDUAL_BITS,
                             total_shift=total_shift)  # fmt: skip


# The U55 form's residual unit: 2**-16 of E's (two int8 TABLEs, _two_byte_residual).
_U55_RESIDUAL_BITS = 16


def _two_byte_residual(ints: Int32Emitter, index: TosaValue, below_unit: np.ndarray) -> TosaValue:
    """``round(below_unit * 2**16)`` (int16) for 256 values in [-1/2, 1/2] by index + 128: two int8 TABLEs
    of its signed high byte and the signed rest, joined by ``_join_bytes``' ADD."""
    residual = np.clip(np.round(np.asarray(below_unit) * 2.0**_U55_RESIDUAL_BITS), -(1 << 15), (127 << 8) + 127)
    residual = residual.astype(np.int64)
    high = (residual + 128) >> 8  # in [-128, 127]
    low = residual - (high << 8)  # in [-128, 127]
    graph = ints.graph
    high_byte = table(graph, index, high.astype(np.int8), name=f"{ints.prefix}_exp_residual_high", qparams=None)
    low_byte = table(graph, index, low.astype(np.int8), name=f"{ints.prefix}_exp_residual_low", qparams=None)
    return _join_bytes(ints, high_byte, low_byte, 8, "exp_residual")


# The U55 ADD's fixed weight of its larger operand (see _join_bytes).
_U55_ADD_LARGER_SCALE = 2.0**19


def _join_bytes(ints: Int32Emitter, high: TosaValue, low: TosaValue, low_bits: int, what: str) -> TosaValue:
    """``high * 2**low_bits + low`` (int16) for int8 ``high`` and ``low`` by one ADD.

    The ADD weighs ``high`` by 2**19 and ``low`` by 2**(19 - low_bits) and narrows by the latter:
    Vela 5.2.0 folds both RESCALEs into a U55 ADD whose larger scale is exactly 2**19, the flow's usual
    ADD of two grids, which the U55 runs as TOSA does (bench/README.md "U55 departures and fuzzing,
    session 10").
    """
    low_scale = _U55_ADD_LARGER_SCALE / 2**low_bits
    summed = ints.add(ints.widen(high, f"{what}_high_int32", scale=_U55_ADD_LARGER_SCALE),
                      ints.widen(low, f"{what}_low_int32", scale=low_scale), f"{what}_scaled")  # fmt: skip
    return rescale(ints.graph, summed, name=f"{ints.prefix}_{what}_int16", scales=[1.0 / low_scale],
                   output_dtype=np.dtype(np.int16), input_zp=0, output_zp=0)  # fmt: skip


def _fourteen_bit_exp(ints: Int32Emitter, index: TosaValue, values: np.ndarray) -> TosaValue:
    """``values[index + 128]`` (int32) for 256 values in [0, EXP_FULL_SCALE]: two int8 TABLEs of their top
    and low seven bits, one ADD of the two into int16 (``_join_bytes``), and an int16 MUL by one.

    ``Int32Emitter.lookup14`` widens each table by a MUL and adds in int32 instead (U55-128 on
    [1, 4, 40, 40]: 5,760 + 5,760 + 10,880 cycles, here 11,520 + 5,120); the int16 MUL by one widens
    the sum for the quotient's int32 MUL, which Vela runs as a RESCALE only as an ADD and a MUL.
    """
    graph = ints.graph
    values = np.asarray(values, dtype=np.int64)
    high = table(graph, index, (values >> 7).astype(np.int8), name=f"{ints.prefix}_exp_high", qparams=None)
    low = table(graph, index, (values & 0x7F).astype(np.int8), name=f"{ints.prefix}_exp_low", qparams=None)
    exp16 = _join_bytes(ints, high, low, 7, "exp")
    one = graph.add_const(f"{ints.prefix}_exp_one", np.ones((1,) * ints.rank, np.dtype(np.int16)))
    return ints.mul(exp16, one, "exp", shift=0)


def _outer_axis_sum(ints: Int32Emitter, exp: TosaValue, axis: int, what: str) -> TosaValue:
    """The sum of int32 ``exp`` along an outer ``axis`` as ADDs of its halves (windows of one tensor).

    Vela 5.2.0 reduces an outer axis by transposing the whole tensor first, at its full width: yolov8n's
    DFL softmax (16 bins of [1, 16, 4, 525]) spent 866k of its 971k U85-256 cycles on the int32 E's
    transpose (433k for the 14-bit E's int16 one). Halving ADDs read windows in place.
    """
    value, index = exp, 0
    while value.shape[axis] > 1:
        size = value.shape[axis]
        half = size // 2

        def window(start: int, length: int, part: str) -> TosaValue:
            begin = [0] * value.rank
            begin[axis] = start
            shape = list(value.shape)
            shape[axis] = length
            return slice_tensor(ints.graph, value, begin, shape, name=f"{ints.prefix}_{what}{index}_{part}")

        summed = ints.add(window(0, half, "low"), window(size - half, half, "high"), f"{what}{index}")
        if size % 2:
            summed = concat(ints.graph, [summed, window(half, 1, "middle")], axis,
                            name=f"{ints.prefix}_{what}{index}_odd")  # fmt: skip
        value, index = summed, index + 1
    return value


def _exact_quotient(
    name: str, ctx: LoweringContext, ints: Int32Emitter, exponentials: ExactExponentials, output: QParams
) -> TosaValue:
    """``(E + e) / (S + L)`` onto the output grid, e the residual and L its sum (in E's units), from
    ``R = round(2**K / S)`` (int32, three Newton steps) corrected per row to ``R' = R * (1 - L / S)``:
    ``q = E * R' / 2**t + e * R' / 2**(t + k)`` (an int32 and an int16 MUL), ``(E + e) / (S + L)`` with 20+ bits
    below an output step, and the ADD of the two carries the RESCALE onto the output grid (Vela folds
    it into an ADD, not into a MUL). ``1 / (1 + L / S)`` is ``1 - L / S`` within ``(L / S)**2``, below
    ``(N / 2F)**2`` (2e-10 on a 197-key row)."""
    full_scale = exponentials.full_scale
    residual_bits = exponentials.residual_bits
    # normalize's shift of S >= full_scale is at most 31 - bit_length(full_scale), so R = 2**K / S < 2**29.
    fraction_bits = _RECIPROCAL_SHIFT_BASE - (32 - full_scale.bit_length() - 1)
    quotient_shift = min(_MAX_MUL_SHIFT - residual_bits, max(0, fraction_bits - _QUOTIENT_BITS))
    if exponentials.residual is None:
        inverse = row_inverse(ints, exponentials.total, fraction_bits, steps=RECIPROCAL_STEPS)
        quotient = ints.mul(exponentials.exp, inverse, "quotient", shift=quotient_shift)
        carried = ints.add(quotient, ints.constant(0, "zero"), "quotient_carried")
    else:
        if exponentials.total_shift is None:
            inverse = row_inverse(ints, exponentials.total, fraction_bits, steps=RECIPROCAL_STEPS)
            corrected = _first_order_corrected(ints, inverse, exponentials.residual_total,
                                               shift=residual_bits + fraction_bits - _INVERSE_SQUARE_SHIFT)  # fmt: skip
        else:
            corrected = _combined_inverse(ints, exponentials, fraction_bits, exponentials.total_shift)
        quotient = ints.mul(exponentials.exp, corrected, "quotient", shift=quotient_shift)
        below_unit = _residual_quotient(name, ctx, ints, exponentials.residual, corrected,
                                        shift=quotient_shift + residual_bits)  # fmt: skip
        carried = ints.add(quotient, below_unit, "quotient_carried")
    scale = 2.0 ** (quotient_shift - fraction_bits) / output.scale
    return rescale(ctx.graph, carried, name=name, scales=[scale], output_dtype=output.dtype, input_zp=0,
                   output_zp=output.zero_point, output_qparams=output)  # fmt: skip


def _first_order_corrected(
    ints: Int32Emitter, inverse: TosaValue, residual_total: TosaValue, *, shift: int
) -> TosaValue:
    """``R' = R * (1 - L / S)`` per row: R * L / (2**k * S) = L * R**2 / 2**(k + K). R**2 /
    2**_INVERSE_SQUARE_SHIFT stays below 2**30, and the second MUL's ``shift`` k + K - 28 = k + bit_length(F)
    is at most 30."""
    square = ints.mul(inverse, inverse, "inverse_square", shift=_INVERSE_SQUARE_SHIFT)
    correction = ints.mul(residual_total, square, "inverse_correction", shift=shift)
    return ints.sub(inverse, correction, "inverse_corrected")


def _combined_inverse(
    ints: Int32Emitter, exponentials: ExactExponentials, fraction_bits: int, shift: int
) -> TosaValue:
    """``R' = round(2**(K + a) / (S * 2**a + L / 2**(k - a)))`` per row, a = ``total_shift``: L enters the
    divisor itself, L rounded to 2**-a of E's unit (half of that at most: 2**-12 of a unit on 40-key rows).

    On the U55's 14-bit E the first-order ``R * (1 - L / S)`` leaves ``(L / S)**2`` of each probability,
    up to (N / 2F)**2 = 1.5e-6 on a 40-key row, 3.8e-4 of a step at a probability near 1 (E's 22 bits on
    the other targets: 2**16 times less).
    K + a stays within row_inverse's range: S * 2**a >= F * 2**a keeps normalize's shift at most 17 - a.
    """
    scaled_total = ints.shift_left(exponentials.total, ints.constant(shift, "total_shift"), "total_scaled")
    below_unit = ints.shift_right_rounding_by(exponentials.residual_total, exponentials.residual_bits - shift,
                                              "residual_total_scaled")  # fmt: skip
    divisor = ints.add(scaled_total, below_unit, "total_combined")
    return row_inverse(ints, divisor, fraction_bits + shift, steps=RECIPROCAL_STEPS)


def _residual_quotient(
    name: str, ctx: LoweringContext, ints: Int32Emitter, residual: TosaValue, inverse: TosaValue, *, shift: int
) -> TosaValue:
    """``round(e * R' / 2**shift)`` (int32) for the int16 residual ``e``, from an int16 x int16 MUL.

    The term is at most half a unit of E, so R' needs few bits here: R' / 2**c as an int16 (c = 14,
    R' < 2**29) moves a probability by at most ``2**(6 + c - K)`` output steps (2**-30 on rows with
    E's full 22 bits, K = 50; 2**-22 on the U55's 14-bit E, K = 42). The int16 MUL and the widening of
    e cost the U85-256 4,854 cycles on [1, 4, 40, 40], where an int32 MUL and its widening took 8,394;
    TOSA's int16 MUL has no shift, so a RESCALE of its product takes it (Vela folds it into the MUL).
    """
    narrowing = max(0, _INVERSE_BITS - 15)
    inverse16 = rescale(ctx.graph, inverse, name=f"{name}_inverse_int16", scales=[2.0**-narrowing],
                        output_dtype=np.dtype(np.int16), input_zp=0, output_zp=0)  # fmt: skip
    product = ints.mul(residual, inverse16, "residual_product", shift=0)
    return rescale(ctx.graph, product, name=f"{name}_residual_quotient", scales=[2.0 ** (narrowing - shift)],
                   output_dtype=np.dtype(np.int32), input_zp=0, output_zp=0)  # fmt: skip


# Rows at least this long normalize with an int32 R (step 5 of the module doc): masked rows from 128
# keys, unmasked ones from 17 (deit_tiny at 64x64 has 17 tokens: its int16 R put 0.45% of the
# probabilities a step off). Shorter rows keep the int16 R, which costs fewer cycles where
# per-operator costs dominate: Llama's causal attention (16 keys, masked), bert's 16 keys (U55-128 at
# the peer's cycles only so). A [1, 3, 17, 17] softmax: U55-128 17,735 -> 17,977, U85-256 4,208 -> 5,707.
INT32_INVERSE_MIN_KEYS = 128
UNMASKED_INT32_INVERSE_MIN_KEYS = 17


def _quotient_by_int32_inverse(
    name: str, ctx: LoweringContext, ints: Int32Emitter, exponentials: ShiftedExponentials, output: QParams
) -> TosaValue:
    """``E / S`` on the output grid from ``R = round(2**K / S)`` (int32) and one rounding int32 MUL."""
    # The MUL rounds E * R onto the output grid's power-of-two step (the probability grids' own step),
    # so R carries as many bits as that shift allows.
    exponent = math.floor(math.log2(output.scale))
    fraction_bits = min(_MAX_INVERSE_FRACTION_BITS, _MAX_MUL_SHIFT - exponent)
    inverse = row_inverse(ints, exponentials.total, fraction_bits, steps=RECIPROCAL_STEPS)
    exp_int32 = exponentials.exp
    if exp_int32.dtype != np.int32:
        # E as int32 by a MUL by one: a RESCALE would be folded into the exp TABLE, turning it into a
        # 16-to-32-bit lookup (see the module doc).
        one = ctx.graph.add_const(f"{name}_one", np.ones((1,) * ints.rank, np.dtype(np.int16)))
        exp_int32 = ints.mul(exponentials.exp, one, "exp_wide", shift=0)
    quotient = ints.mul(exp_int32, inverse, "quotient", shift=fraction_bits + exponent)
    return rescale(ctx.graph, quotient, name=name, scales=[2.0**exponent / output.scale], output_dtype=output.dtype,
                   input_zp=0, output_zp=output.zero_point, output_qparams=output)  # fmt: skip


def _quotient_by_int16_inverse(
    name: str, ctx: LoweringContext, ints: Int32Emitter, exponentials: ShiftedExponentials, output: QParams
) -> TosaValue:
    """``E / S`` on the output grid from ``R = round(2**28 / S)`` (an int16, since S >= 2**14 - 1) and an
    int16 x int16 MUL rescaled by 2**-28: rounding R moves the result by at most ``E * 0.5 / 2**28``."""
    inverse_int32 = row_inverse(ints, exponentials.total, _INT16_INVERSE_FRACTION_BITS, steps=2)
    inverse_int16 = rescale(ctx.graph, inverse_int32, name=f"{name}_inverse_int16", scales=[1.0],
                            output_dtype=np.dtype(np.int16), input_zp=0, output_zp=0)  # fmt: skip
    quotient = ints.mul(exponentials.exp, inverse_int16, "quotient", shift=0)
    return rescale(ctx.graph, quotient, name=name, scales=[2.0**-_INT16_INVERSE_FRACTION_BITS / output.scale],
                   output_dtype=output.dtype, input_zp=0, output_zp=output.zero_point, output_qparams=output)  # fmt: skip


def row_inverse(ints: Int32Emitter, total: TosaValue, fraction_bits: int, *, steps: int) -> TosaValue:
    """``R = round(2**fraction_bits / S)`` (int32) for row sums ``S`` in [EXP_FULL_SCALE, 2**31), by
    ``steps`` Newton-Raphson steps (two leave 16 good bits, three all of them)."""
    normalized = normalize(ints, total)
    inverse = reciprocal(ints, normalized.mantissa, steps=steps)
    # 2**K / S = inverse * 2**(shift - 31 - 28 + K): a rounding right shift by 31 + 28 - K - shift, which is
    # >= 0 for K <= _MAX_INVERSE_FRACTION_BITS since S >= EXP_FULL_SCALE = 2**14 - 1 means shift <= 17.
    fixed_shift = 31 + RECIPROCAL_FRACTION_BITS - fraction_bits
    row_shift = ints.sub(ints.constant(fixed_shift, "row_shift_base"), normalized.shift, "row_shift")
    return ints.shift_right_rounding(inverse, row_shift, "inverse")


def softmax_last(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=-1)


def softmax_channels(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=1)


def softmax_first(x: torch.Tensor) -> torch.Tensor:
    return torch.softmax(x, dim=0)


class KeyPaddingSoftmax(torch.nn.Module):
    """Attention over keys of which the last ``hidden`` are padding (a constant mask): a masked softmax."""

    def __init__(self, keys: int, hidden: int):
        super().__init__()
        self.register_buffer("hidden", torch.arange(keys) >= keys - hidden)

    def forward(self, scores: torch.Tensor) -> torch.Tensor:
        return scores.masked_fill(self.hidden, float("-inf")).softmax(-1)


class HeadsSoftmax(torch.nn.Module):
    """ExecuTorch's a16w8 MHA softmax test, smaller: (n, 1, 4 * 16) scores as (n, 1, 4 heads, 1 query, 16 keys)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n, t, _ = x.shape
        return torch.softmax(x.reshape(n, t, 4, 1, 16), dim=-1).reshape(n, t, 64)


def _scaled(seed: int, scale: float, *shapes: tuple[int, ...]) -> tuple[torch.Tensor, ...]:
    return tuple(scale * tensor for tensor in random_inputs(seed, *shapes))


# The near_half_steps case's input step: its calibration row spans [-128, 127] steps exactly (zero point
# 0), so the rows below are their own int8 codes.
_CODES_STEP = 2.0**-5
# Rows (int8 codes) with one probability 6e-6 to 3e-5 of an output step from a half step (the key named
# last), found by a numpy model of the integer arithmetic among 1.6M probabilities of random rows: E
# alone rounds each to the other side; with E's residual each rounds as the exact value does. Each
# lies farther from the half step than float32's own error (about 6e-8 of the value: a fifth row, at
# 126.5000058 steps, the float32 quantized module itself rounds down).
_NEAR_HALF_STEP_ROWS = (
    ([75, 127, 48, -11, 85, 75, 41, 102], 3),
    ([-63, -67, -86, 34, 123, 54, 61, -98], 4),
    ([-92, -26, 7, -10, -99, 104, -38, -42], 0),
    ([-17, -4, 126, 100, -31, -119, -115, -61], 7),
)


# 40-key rows (int8 codes on the same grid), each with probabilities 2e-4 to 1e-3 of an output step from
# a half step that the U55's 14-bit E alone rounds the other way (13 of the 160), found by a numpy model
# of the integer arithmetic among 100,000 rows of N(0, 40) codes. The 22-bit E (the U55's 14-bit E with
# its residual, fourteen_bit_residual_rows) moves a probability of these rows by under 7e-5 of a step.
_HALF_STEP_40_KEY_ROWS = (
    [99, 0, 65, -34, 0, -6, -15, 44, 53, -11, -42, 13, 30, 0, 52, 44, 57, -40, -11, -16, -36, 36, -14, 38, 44, 34,
     -66, 0, 90, 50, -3, 75, -9, 127, -3, -5, -15, -33, -23, -20],
    [52, -48, 25, -31, -7, -21, 35, -54, 5, -38, -30, 2, 29, 39, -65, -17, 17, -31, 35, -4, -36, -67, 16, 76, 13, 53,
     -41, 14, -23, -69, -25, 24, -79, -8, 35, 62, -31, -25, -17, -62],
    [-44, 5, 2, -73, -12, -4, 2, -17, -63, -55, -17, 26, -68, -58, -78, -42, -128, -80, -10, -39, 29, -57, 42, -8, 54,
     5, -18, -5, 45, -98, -37, -44, 47, -20, -14, -40, 43, -18, -18, -36],
    [7, -73, -59, 9, -35, 17, -75, -14, 70, -62, 3, 8, -40, -18, 109, 4, 39, 58, -19, -19, 41, -30, 27, -35, 10, 25,
     -18, 45, -18, -30, -12, 41, -13, -16, -13, -27, 16, 18, 65, 44],
)  # fmt: skip


# 40-key rows (int8 codes on the same grid), each with probabilities 5e-6 to 7e-6 of an output step from a
# half step, of values 0.5 to 2.5 steps (float32's own error there is about 1e-7), found by a numpy model of
# the integer arithmetic among 900,000 rows of N(0, 40) codes: the U55's 14-bit E with one residual byte
# and R's first-order correction (session 11's form) rounds 10 of these 240 the other way; its 30-bit
# form (a second residual byte, L in the divisor) rounds them as float64 does.
_NEAR_HALF_STEP_40_KEY_ROWS = (
    [-18, 42, 29, 18, -44, -18, 23, -8, 49, 47, -23, 36, 10, 29, -14, 52, 24, 7, 37, 15, -45, 68, 22, -10, -16, 124,
     -20, 8, -80, -63, 20, 6, -62, -84, 59, 29, -27, 78, -90, -5],
    [-30, 18, -4, 5, 43, -84, 33, -5, 62, -21, -62, 5, -18, 26, -23, -76, -16, 83, 62, 40, -17, 6, -3, -9, -6, -5,
     127, -17, -13, 55, 31, 22, 57, 29, 50, -64, 71, 11, 34, 8],
    [10, 27, -9, 41, -57, -19, -58, -17, -99, -60, -14, -26, 68, -58, -57, -70, 63, -11, -58, -71, 59, 2, 11, -32,
     -25, -94, -31, -14, 4, -40, 42, 106, -1, 33, 18, -5, 48, -36, -32, -1],
    [-4, 82, 79, -17, -17, -54, 105, -36, -3, -56, -77, -25, -22, -51, -32, -30, 55, 9, 118, 25, -43, 81, -107, 72,
     -15, 42, -15, -36, 29, 9, -35, -59, 50, -22, 28, 3, -37, 33, -57, -20],
    [-19, -87, 30, -27, 30, 5, 11, -7, 1, -13, 48, 22, -9, 24, 8, 68, -1, -57, -17, -2, -17, 51, 37, -95, -9, -14,
     -67, 125, -18, -17, -5, 34, -43, -64, -26, 0, 29, 36, -36, -61],
    [7, -9, 29, 2, -25, 28, 92, 52, -22, 22, 13, -33, -3, -28, -7, -57, -8, 50, -45, 23, -31, -5, 96, -34, -45, -18,
     -85, -2, -24, 14, 29, -6, -23, -57, 43, -57, -69, -23, 32, -12],
)  # fmt: skip


def _codes_calibration(keys: int) -> list[tuple[torch.Tensor, ...]]:
    """One row spanning [-128, 127] codes of _CODES_STEP: the input grid's step is _CODES_STEP, zero point 0."""
    row = torch.zeros(1, keys)
    row[0, 0], row[0, 1] = -128.0, 127.0
    return [(row * _CODES_STEP,)]


def _near_half_step_inputs() -> tuple[torch.Tensor, ...]:
    return (torch.tensor([codes for codes, _ in _NEAR_HALF_STEP_ROWS], dtype=torch.float32) * _CODES_STEP,)


TEST_CASES = {
    "logits": OpTestCase(FunctionModule(softmax_last), random_inputs(0, (2, 10))),
    "rank4_last": OpTestCase(FunctionModule(softmax_last), random_inputs(1, (1, 4, 8, 16))),
    "rank4_channels": OpTestCase(FunctionModule(softmax_channels), random_inputs(2, (1, 16, 4, 4))),
    "rank3_first": OpTestCase(FunctionModule(softmax_first), random_inputs(3, (6, 5, 8))),
    # Attention-sized rows: a sum over 197 elements, and rows dominated by one element; normalized with the
    # int32 R of long rows (INT32_INVERSE_MIN_KEYS), as are the next two.
    "attention_rows": OpTestCase(FunctionModule(softmax_last), random_inputs(4, (1, 3, 12, 197))),
    "masked_long_rows": OpTestCase(KeyPaddingSoftmax(160, 24), random_inputs(8, (1, 2, 3, 160))),
    # A mask that hides nothing: the unmasked rows' exact E (on the U55 the 30-bit form), where the masked
    # rows' 14-bit E and int16 R put 1 of these 3,136 probabilities a step off the quantized module.
    "nothing_hidden_49_keys": OpTestCase(
        KeyPaddingSoftmax(49, 0), _scaled(12, 3.0, (1, 4, 16, 49)), differing_from_quantized=0.0
    ),
    # mha_sequence's 40 keys, unmasked: the exact E with its residual, on the U55 the 14-bit E with
    # its residual (fourteen_bit_residual_rows). No probability a step off the quantized module (the
    # U55's 14-bit E alone put 0.23% of them a step off).
    "attention_40_keys": OpTestCase(
        FunctionModule(softmax_last), _scaled(10, 3.0, (1, 4, 16, 40)), differing_from_quantized=0.0
    ),
    "a16w8_long_rows": OpTestCase(
        FunctionModule(softmax_last),
        random_inputs(9, (2, 160)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
    # Rank-5 rows: the row reciprocal's ``1 - x * r`` has a one-element first operand at rank 5, which Vela
    # 5.2.0 compiles wrongly for the U55 unless it runs at rank 4 (arm/tosa/one_element_first_operands.py).
    # Scores in [-10, 10] (ExecuTorch's range) put the int16 TABLE's entries h = 128 * 10 / 32767 = 0.039 apart
    # in x; its chords over exp lie above it by up to h**2 / 8 = 1.9e-4 of E wherever E is, so a probability P
    # moves by up to 1.9e-4 * P: 6.2 output steps (2**-15) at P near 1, plus the rounding (measured: 3).
    "a16w8_heads": OpTestCase(
        HeadsSoftmax(),
        (torch.rand((2, 1, 64), generator=torch.Generator().manual_seed(11)) * 20.0 - 10.0,),
        steps_from_quantized=7.0,
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
    # The exact E (every target on rows of 197 keys, the U55 too: U55_EXACT_EXP_MIN_KEYS): no probability
    # a step off the quantized module (the 14-bit E put 5 of these 7,092 a step off).
    "attention_rows_exact": OpTestCase(
        FunctionModule(softmax_last), _scaled(11, 3.0, (1, 3, 12, 197)), differing_from_quantized=0.0,
        targets=("tosa_INT", "vgf_INT", "u85_INT", "u55_INT"),
    ),
    # 16 bins along an outer axis, as yolov8n's DFL head has them, with logits of N(0, 2.5): short, peaked
    # rows where E's own rounding decides. The exact E leaves no probability a step off the quantized
    # module; the 14-bit E (the U55's) puts 7 of these 2,048 a step off.
    "short_rows_exact": OpTestCase(
        FunctionModule(softmax_channels), _scaled(16, 2.5, (1, 16, 4, 32)), differing_from_quantized=0.0,
        targets=("tosa_INT", "vgf_INT", "u85_INT"),
    ),
    # Four probabilities 6e-6 to 3e-5 of a step from a half step (float32's own error is below 1e-6 here):
    # the exact E rounded each the other way (_exact_exponentials); E's residual rounds them right. The
    # U85 goes without the residual (has_exp_residual).
    "near_half_steps": OpTestCase(
        FunctionModule(softmax_last), _near_half_step_inputs(),
        calibration=_codes_calibration(8), differing_from_quantized=0.0, targets=("tosa_INT", "vgf_INT", "u85_INT"),
    ),
    # 40-key rows with probabilities 2e-4 to 1e-3 of a step from a half step (_HALF_STEP_40_KEY_ROWS): the
    # U55's 14-bit E alone rounds 13 of the 160 the other way; its residual rounds them right.
    "half_steps_40_keys": OpTestCase(
        FunctionModule(softmax_last), (torch.tensor(_HALF_STEP_40_KEY_ROWS, dtype=torch.float32) * _CODES_STEP,),
        calibration=_codes_calibration(40), differing_from_quantized=0.0,
        targets=("tosa_INT", "vgf_INT", "u85_INT", "u55_INT"),
    ),
    # 40-key rows with probabilities 5e-6 to 7e-6 of a step from a half step (_NEAR_HALF_STEP_40_KEY_ROWS):
    # E's 22 bits round 10 of the 240 the other way on the U55; its 30-bit form rounds them right.
    "near_half_steps_40_keys": OpTestCase(
        FunctionModule(softmax_last),
        (torch.tensor(_NEAR_HALF_STEP_40_KEY_ROWS, dtype=torch.float32) * _CODES_STEP,),
        calibration=_codes_calibration(40), differing_from_quantized=0.0,
        targets=("tosa_INT", "vgf_INT", "u85_INT", "u55_INT"),
    ),
    # Logits spread over +-8: a few elements take nearly all the mass. Input rounding (half a step of
    # ~0.06) moves such outputs by ~2 steps, the bound against the float module.
    "peaked": OpTestCase(FunctionModule(softmax_last), _scaled(5, 2.5, (4, 32))),
    # A narrow input range: all exponentials close to 1, the output near 1/N everywhere.
    "flat": OpTestCase(FunctionModule(softmax_last), _scaled(6, 0.05, (3, 64))),
    # int16 activations: the int16 TABLE of exp (see the module doc); no int16 on TOSA-1.0+INT (TOSA, VGF).
    "a16w8": OpTestCase(
        FunctionModule(softmax_last),
        random_inputs(7, (2, 3, 24)),
        cpu_targets=("tosa_INT", "vgf_INT"),
        quantization=get_symmetric_a16w8_quantization_config,
    ),
}

OP = ArmOp(
    name="softmax",
    edge_targets=(exir_ops.edge.aten._softmax.default,),
    aten_targets=(torch.ops.aten.softmax.int, torch.ops.aten._softmax.default),
    support=support,
    annotate=annotate_softmax,
    lower=lower,
    test_cases=TEST_CASES,
)
