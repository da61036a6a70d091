"""An int8 average onto its input's own grid, rounded as the quantized torch model rounds it: ties to even.

The quantizer shares a mean's (and a global average pool's) grid with its input, so the quantized
model computes ``round_half_even(S / N) + zp`` from the sum ``S`` of the N codes less their zero point
``zp``. TOSA's RESCALE (and AVG_POOL2D) round half up: where N is even and S lands on a half step
(S = k N + N/2, about once in N averages) the plain division is a step above torch whenever k is
even. mha_sequence's mean over 40 tokens and MobileViT's 2x2 global pool (12% of its outputs) were.
An odd N has no ties, and the plain RESCALE stays.

Over a period of two steps, ``v = S / N = 2Q + t`` with ``0 <= t < 2`` rounds half to even to
``2Q + [t > 1/2] + [t >= 3/2]``: the tie at 1/2 goes down to the even 2Q, the one at 3/2 up to
2Q + 2. Each bracket plus Q is a floor of ``(S + a) / 2N``, and a RESCALE by ``1/2N`` (which adds
a half before it floors) of ``S + a - N`` is that floor. With ``S' = sum(q + 128) >= 0`` (the
widening RESCALE's input zero point -128, so every sum is non-negative) and ``p = (zp + 128) mod 2``
(S' = S + N (zp + 128) moves v by an integer whose parity swaps even and odd when p = 1):

    round_half_even(S / N) + zp
        = RESCALE(S' + N p - N/2, 1/2N) + RESCALE(S' - N p + N/2 - 1, 1/2N) - 128

Checked against exact fractions for every S' of N = 2..400 and zero points of both parities. The
multiplier of ``1/2N`` is rounded up, so a non-negative tie lands on or above its half (exact for
sums below 2**30); the operands dip at most ``N/2 + 1`` below zero, a quarter step and one, where
no rounding is near. Cost: two int32 ADDs of a constant, two RESCALEs and one ADD on the averaged
(small) tensor, beside the REDUCE_SUM and the RESCALE the plain form has. A global pool of a power-of-two count up to 64
values computes the same integers in two convolutions (``global_average_by_convolutions``).
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np
import tosa_serializer as ts
from torch.fx import Node

from arm.ops.common.axis_reduction import reduce
from arm.ops.common.integer_arithmetic import Int32Ops
from arm.ops.common.pooling import add_avg_pool2d
from arm.tosa.context import LoweringContext, shape_of
from arm.tosa.graph import TosaValue, reshape
from arm.tosa.layout import to_nchw, to_nhwc
from arm.tosa.quantization import QParams
from arm.tosa.rescale import multiplier_and_shift, rescale

_INT8_MIN = -128
_INT16 = np.dtype(np.int16)
_INT32 = np.dtype(np.int32)
# The int16 pool's scaled codes (code + 128) * K stay within int16 for K up to 128.
_MAX_POOL_SCALE = 128
# The column-sum convolution's kernel is H*W tall: Vela takes kernels of up to 64 rows. Only counts that
# are powers of two take it (1/2N then an exact scale): with EfficientNet-B0's 6x6 squeeze-excite pools
# (36 values, 1/72 rounded up) as convolutions its delegates departed on the NPU model (854 of 1000
# logits, U55 and U85 alike; Vela's convolution output scale, not traced), where the int16 pool is exact.
_MAX_COLUMN_SUM = 64


def lower_average(node: Node, ctx: LoweringContext, dims: Sequence[int]) -> TosaValue | None:
    """``node``'s average of node.args[0] over ``dims`` (sorted), in the node's shape, rounded ties to
    even; None where the plain lowering already rounds as the quantized model does (see
    ``rounds_ties_to_even``), so the caller keeps its own."""
    if not ctx.spec.is_int:
        return None
    source = ctx.value(node.args[0])
    count = math.prod(source.shape[dim] for dim in dims)
    output = ctx.output_qparams(node)
    if not rounds_ties_to_even(count, source.qparams, output) or _costs_a_pass_more(ctx, count):
        return None
    sums = widen_from_minimum(ctx, source, name=f"{node.name}_int32")
    for dim in dims:
        sums = reduce(ctx.graph, ts.Op.REDUCE_SUM, sums, dim, name=f"{node.name}_sum{dim}")
    return _node_average(node, ctx, sums, count, output)


def lower_pooled_average(node: Node, ctx: LoweringContext, kernel: tuple[int, int]) -> TosaValue | None:
    """``node``'s average of the NCHW node.args[0] over unpadded windows ``kernel`` that tile it (stride =
    kernel), rounded ties to even, in the node's shape; None where the plain pool already rounds as the
    quantized model does or the count exceeds 128 (then ``lower_average``'s REDUCE_SUM serves).

    The window sums come from an int16 AVG_POOL2D, as cheap as the int8 one, of the codes plus 128
    scaled by K, the largest multiple of the count N up to 128: its average K / N * S' is an exact
    integer (the pool's rounding has nothing to round), and it is S' on a grid K / N times finer, so
    ``average_ties_to_even`` with count K rounds it. REDUCE_SUM over H and W, the other way to the
    sums, cost MobileViT-XXS 27k U85 cycles (of 1.94M): Vela transposes for each reduced axis. One window
    over the whole map of a power-of-two count up to 64 takes ``global_average_by_convolutions`` instead.
    """
    if not ctx.spec.is_int:
        return None
    source = ctx.value(node.args[0])
    count = kernel[0] * kernel[1]
    output = ctx.output_qparams(node)
    if count > _MAX_POOL_SCALE or not rounds_ties_to_even(count, source.qparams, output):
        return None
    if tuple(source.shape[2:]) == tuple(kernel) and count <= _MAX_COLUMN_SUM and count & (count - 1) == 0:
        return global_average_by_convolutions(ctx, to_nhwc(ctx.graph, source), output, shape_of(node), name=node.name)
    scale = count * (_MAX_POOL_SCALE // count)
    scaled = rescale(
        ctx.graph, source, name=f"{node.name}_int16", scales=[float(scale)], output_dtype=_INT16, input_zp=_INT8_MIN,
        output_zp=0,
    )  # fmt: skip
    pooled = _int16_average_pool(ctx, to_nhwc(ctx.graph, scaled), kernel, name=f"{node.name}_pooled")
    sums = rescale(
        ctx.graph, to_nchw(ctx.graph, pooled, name=f"{node.name}_pooled_nchw"), name=f"{node.name}_int32",
        scales=[1.0], output_dtype=_INT32, input_zp=0, output_zp=0,
    )  # fmt: skip
    return _node_average(node, ctx, sums, scale, output)


def global_average_by_convolutions(
    ctx: LoweringContext, source: TosaValue, output: QParams, shape: Sequence[int], *, name: str
) -> TosaValue:
    """The int8 average of the NHWC ``source`` over all of H and W onto ``output`` (its own grid), rounded
    ties to even, in ``shape`` (NCHW order: B*C values), from two convolutions.

    ``average_ties_to_even``'s integers, computed where Ethos-U computes cheaply: ``source`` seen as an
    image [B, H*W, C, 1] (a reshape: NHWC keeps each channel's H*W codes a column apart), a CONV2D with
    a kernel of ones (H*W, 1) sums each column (input zero point -128, so every sum is S' >= 0) into two
    output channels, each plus its half's constant (the bias) and rounded by 1/2N (the output RESCALE)
    to an int8 half; a 1x1 CONV2D adds the two halves and writes the average with the final RESCALE.
    RegNet's 2x2 head pool (400 channels): 2,682 U55-128 / 736 U85-256 cycles, against 7,804 / 3,888
    for the int16 pool with its int32 tail (and 1,036 / 608 for the AVG_POOL2D that rounds ties up).
    """
    batch, height, width, channels = source.shape
    count = height * width
    parity = (output.zero_point - _INT8_MIN) % 2
    half = count // 2
    biases = (count * parity - half, half - 1 - count * parity)
    halving = _rounded_up(1.0 / (2 * count))
    graph = ctx.graph
    image = reshape(graph, source, (batch, count, channels, 1), name=f"{name}_columns")
    sums = _ones_convolution(ctx, image, (count, 1), biases, input_zp=_INT8_MIN, name=f"{name}_halves_sums")
    lowest = min(_apply_scale(bias, halving) for bias in biases)  # each half is lowest for the sum 0
    halves_zp = _INT8_MIN - lowest
    halves = rescale(graph, sums, name=f"{name}_halves", scales=[halving], output_dtype=np.dtype(np.int8),
                     input_zp=0, output_zp=halves_zp)  # fmt: skip
    pairs = reshape(graph, halves, (1, 1, batch * channels, 2), name=f"{name}_pairs")
    total = _ones_convolution(ctx, pairs, (1, 1), (0,), input_zp=halves_zp, name=f"{name}_total")
    average = rescale(
        graph, total, name=f"{name}_average", scales=[1.0], output_dtype=np.dtype(np.int8), input_zp=0,
        output_zp=_INT8_MIN, output_qparams=output,
    )  # fmt: skip
    # [1, 1, B*C, 1] holds the averages in NCHW [B, C, 1, 1] order: a reshape, no transpose.
    return reshape(graph, average, shape, name=name)


def _ones_convolution(
    ctx: LoweringContext, image: TosaValue, kernel: tuple[int, int], biases: Sequence[int], *, input_zp: int, name: str
) -> TosaValue:
    """Unpadded stride-1 CONV2D of the int8 NHWC ``image`` with a kernel of ones: one int32 output channel
    per bias, each the window's sum of (code - input_zp) plus its bias."""
    batch, height, width, channels = image.shape
    graph = ctx.graph
    weights = graph.add_const(f"{name}_ones", np.ones((len(biases), *kernel, channels), dtype=np.int8))
    bias = graph.add_const(f"{name}_bias", np.array(biases, dtype=np.int32))
    shape = (batch, height - kernel[0] + 1, width - kernel[1] + 1, len(biases))
    sums = graph.add_tensor(name, shape, _INT32)
    attribute = ts.TosaSerializerAttribute()
    attribute.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
    operands = [
        image, weights, bias, graph.add_scalar_const(f"{name}_input_zp", input_zp, np.dtype(np.int8)),
        graph.add_scalar_const(f"{name}_weight_zp", 0, np.dtype(np.int8)),
    ]  # fmt: skip
    graph.add_op(ts.Op.CONV2D, operands, [sums], attribute)
    return sums


def _apply_scale(value: int, scale: float) -> int:
    """RESCALE's single rounding of ``value`` by ``scale`` (as multiplier and shift): halves up."""
    multiplier, shift = multiplier_and_shift(scale)
    return (value * multiplier + (1 << (shift - 1))) >> shift


def _node_average(node: Node, ctx: LoweringContext, sums: TosaValue, count: int, output: QParams) -> TosaValue:
    """``average_ties_to_even`` of ``sums`` in the node's shape, named after the node."""
    if tuple(sums.shape) == tuple(shape_of(node)):
        return average_ties_to_even(ctx, sums, count, output, name=node.name)
    average = average_ties_to_even(ctx, sums, count, output, name=f"{node.name}_average")
    return reshape(ctx.graph, average, shape_of(node), name=node.name)


def _int16_average_pool(ctx: LoweringContext, value: TosaValue, kernel: tuple[int, int], *, name: str) -> TosaValue:
    """AVG_POOL2D of an NHWC int16 tensor (zero point 0) over windows ``kernel`` with stride ``kernel``."""
    batch, height, width, channels = value.shape
    output = ctx.graph.add_tensor(name, (batch, height // kernel[0], width // kernel[1], channels), _INT16)
    # One window over the whole input strides by one, as mean's global pool does (the U55 limits strides to 3).
    stride = (1, 1) if (height, width) == kernel else kernel
    return add_avg_pool2d(ctx.graph, value, output, (kernel, stride, (0, 0, 0, 0)), 0, ts.DType.INT32)


def _costs_a_pass_more(ctx: LoweringContext, count: int) -> bool:
    """Whether the exact form's int32 sums would cost Ethos-U a full-size pass beyond the NPU's own pool:
    for a count the int16 pool cannot sum exactly (above _MAX_POOL_SCALE), REDUCE_SUM over H and W (Vela
    transposes each reduced axis to the channels first) or a depthwise convolution of ones. Measured on
    EfficientNet-B0's squeeze-excite pools (14x14 to 112x112), against 5.6 M / 15.3 M cycles with the
    pool: U85-256 27.3 M with REDUCE_SUMs, 7.2 M with depthwise sums (6.1 M with only the 14x14 ones);
    U55-128 15.6 M and 16.6 M. There the average rounds half up, as the NPU's pool (and the peer) does:
    a tie lands once in ``count`` averages at most (EfficientNet-B0: 12 output steps from its quantized
    model on Ethos-U, 0 on TOSA).

    Nor does an int16 pool pay for itself above 128 values. With K = 128 for even counts of 130-254 its
    rounded average P = round(128 S' / N) still decides every tie (a tie makes 128 S' / N an exact
    integer, and every other S' lies at least 128 / N > 1/2 of a unit of P away; checked against exact
    fractions with TOSA's AVG_POOL2D reciprocal for every S' of every even N up to 254), and it made
    EfficientNet-B0 224's six 14x14 squeeze-excite pools exact, but the widening RESCALE and the int16
    pool of the full map cost 15.27 M -> 16.19 M U55-128 and 5.60 M -> 6.36 M U85-256 cycles (the peer:
    15.32 M, 5.60 M) for 9 -> 7 output steps (session 12, bench.zoo_audit, 16 calibration inputs)."""
    return (ctx.spec.has("u55") or ctx.spec.has("u85")) and count > _MAX_POOL_SCALE


def rounds_ties_to_even(count: int, source: QParams | None, output: QParams | None) -> bool:
    """Whether an average of ``count`` int8 codes onto ``output`` needs the exact form: ``output`` is the
    input's own grid (the only case with ties at a half step) and ``count`` is even."""
    if source is None or output is None or count % 2:
        return False
    return np.dtype(source.dtype) == np.int8 and source.matches(output)


def widen_from_minimum(ctx: LoweringContext, value: TosaValue, *, name: str) -> TosaValue:
    """``value``'s int8 codes plus 128 as int32, each in [0, 255]: sums of them are never negative."""
    return rescale(
        ctx.graph, value, name=name, scales=[1.0], output_dtype=_INT32, input_zp=_INT8_MIN, output_zp=0
    )


def average_ties_to_even(
    ctx: LoweringContext, sums: TosaValue, count: int, output: QParams, *, name: str, offset: int = 0
) -> TosaValue:
    """The int8 average on ``output`` (the input's grid) from ``sums``, each a sum of ``count`` codes
    widened by ``widen_from_minimum`` less ``offset`` (the sums of the raw codes: ``offset`` = 128 x
    count); the module docstring derives it."""
    ops = Int32Ops(ctx, name, sums.rank)
    parity = (output.zero_point - _INT8_MIN) % 2
    half = count // 2
    scale = _rounded_up(1.0 / (2 * count))
    low = ops.add(sums, offset + count * parity - half)
    high = ops.add(sums, offset + half - 1 - count * parity)
    halves = [
        rescale(ctx.graph, operand, name=f"{name}_{what}", scales=[scale], output_dtype=_INT32, input_zp=0, output_zp=0)
        for what, operand in (("low", low), ("high", high))
    ]
    total = ops.add(*halves)
    return rescale(
        ctx.graph,
        total,
        name=name,
        scales=[1.0],
        output_dtype=np.dtype(np.int8),
        input_zp=0,
        output_zp=_INT8_MIN,
        output_qparams=output,
    )


def _rounded_up(scale: float) -> float:
    """``scale`` as RESCALE's multiplier and shift would hold it, with the multiplier rounded up rather
    than to nearest (exactly representable, so rescale() keeps it)."""
    multiplier, shift = multiplier_and_shift(scale)
    if math.ldexp(multiplier, -shift) < scale:
        multiplier += 1
    return math.ldexp(multiplier, -shift)
