"""On the U85, a transpose after a convolution as the lowest-rank transpose that moves the same bytes.

Axes of size one and runs of axes that stay neighbours in the output carry no movement: NHWC [1, H, W, C]
to NCHW is [H*W, C] to [C, H*W] between two RESHAPEs, which move nothing. Vela 5.2.0 fuses a rank-4
transpose into the write of the convolution before it on the U85, which is slow where the written rows
are short; a collapsed transpose is not fused and runs on its own. Measured (U85-256, int8, a 1x1
convolution, the transpose to NCHW, a RESCALE reading it): W = 2 ([1, 2, 2, 256]) 103,496 cycles
fused against 9,496 collapsed, W = 4 ([1, 4, 4, 96]) 5,704 against 3,728, W = 8 ([1, 8, 8, 64]) 6,997
against 10,735 (the fused write is the cheaper there). So a transpose right after a convolution (or
its fused activation) whose output rows are shorter than ``layout.SHORT_ROWS`` is collapsed; the others stay.
EfficientFormerV2's attention reads q, k and v from 1x1 convolutions of a 2x2 map this way.

A graph input's layout change (an image's NCHW -> NHWC, [C, H*W] -> [H*W, C] collapsed) is cheaper in
another form on either NPU (``change_input_layouts``). Measured alone on [1, 3, 64, 64] int8 (RegNet's
input): the U55-128 runs the rank-4 transpose as two (4,608 cycles each) and the collapsed one as one
(4,608); on the U85-256 the transpose costs 32,997 (rows of 3 bytes written one by one) and the
collapsed one 614,400, while a CONV2D does it in 3,296: the input seen as an image [1, C, H*W, 1], a
kernel (C, 1) and C output channels with identity weights write [1, 1, H*W, C], exactly the codes
(input zero point 0, output scale 1). [16, 256]: 4,416 against 1,440; [8, 1024]: 8,832 against 2,304;
[32, 256]: 5,552 against 4,992, so the U85 convolves axes of up to 16 values.

Not on the U55: Vela runs a rank-4 NHWC <-> NCHW transpose there as two transposes and a collapsed one
as one (a tiny graph saved 1,024 cycles), but over whole models the reshapes around the collapsed
transposes cost more than that (mha_sequence U55-128 340,300 -> 345,380, Llama 216,330 -> 216,586:
Vela copies a reshaped tensor in front of a MATMUL and transposes MATMUL operands it read in place).
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue, rebuild_in_place, reshape
from arm.tosa.layout import has_short_rows, is_weighted_output, transpose
from arm.tosa.rescale import rescale

# The U85 moves a graph input's axis of at most this many values innermost by an identity convolution,
# over at most _MAX_CONVOLVED_ROW positions: the sizes runtime/npu_model/vela_input_layout_test.py shows
# bit-exact on the NPU model (up to 3x1024x1024; EfficientNet-B0's 224x224 and YOLOv8n's 160x160 among them).
# kws_conv1d's [40, 49] MFCCs convolved cost 1,892 U85-256 cycles against its transpose's 1,865: the axis limit stays.
_MAX_CONVOLVED_AXIS = 16
_MAX_CONVOLVED_ROW = 1024 * 1024
# A channels-first tensor whose rows (its last axis) hold at least this many values goes into the 1x1 convolutions
# that read it channels last by themselves (``pointwise_convolutions_of_channels_first``).
_LONG_ROWS = 64
# Vela 5.2.0 refuses a U55 rank-2 transpose with an axis longer than this ("Non-passthrough operation
# (Transpose) could not run on NPU": [3, 257*257] refused, [3, 256*256] compiled); it splits the rank-4 one.
_U55_MAX_TRANSPOSED_AXIS = 65536

def collapse_transposes_after_convolutions(graph: TosaGraph) -> None:
    """Collapses each TRANSPOSE Vela would fuse slowly into the U85 convolution before it."""
    for operator in [operator for operator in graph.operators if operator.perms is not None]:
        if not _fuses_slowly(graph, operator):
            continue
        shape = graph.tensors[operator.inputs[0]].shape
        collapsed_shape, collapsed_perms = collapsed(shape, operator.perms)
        if len(collapsed_perms) < len(shape):
            _rewrite(graph, operator, collapsed_shape, collapsed_perms)


def change_input_layouts(graph: TosaGraph, *, by_convolution: bool) -> None:
    """Rewrites each int8 TRANSPOSE of a graph input that moves one run of axes innermost: collapsed to
    rank 2 (the U55) where Vela takes it, or (``by_convolution``, the U85) as an identity CONV2D where
    the moved run holds at most _MAX_CONVOLVED_AXIS values and the rest _MAX_CONVOLVED_ROW; the others
    stay as they are."""
    for operator in [operator for operator in graph.operators if operator.perms is not None]:
        source = graph.tensors[operator.inputs[0]]
        if source.name not in graph.inputs or source.dtype != np.int8:
            continue
        shape, perms = collapsed(source.shape, operator.perms)
        if perms != (1, 0):
            continue
        if not by_convolution:
            if max(shape) <= _U55_MAX_TRANSPOSED_AXIS:
                _rewrite(graph, operator, shape, perms)
        elif shape[0] <= _MAX_CONVOLVED_AXIS and shape[1] <= _MAX_CONVOLVED_ROW:
            _rewrite_as_convolution(graph, operator, shape)


def pointwise_convolutions_of_channels_first(graph: TosaGraph) -> None:
    """Folds each int8 TRANSPOSE that moves at most _MAX_CONVOLVED_AXIS channels innermost ([A, B] -> [B, A]
    collapsed) out of rows of at least _LONG_ROWS values and is read only by 1x1 CONV2Ds into those
    convolutions: each reads the channels-first tensor as the image [1, A, B, 1] with a kernel (A, 1), its
    weights the same numbers, so the same int32 sums. Vela 5.2.0 on the U85 otherwise fuses such a
    transpose into the write of the operator before it, slowly where the rows it reads are long: YOLOv8n's
    box head (the DFL's softmax over 16 bins of [1, 16, 4, 525], then a 1x1 convolution) spent 433,950 of
    its 2.65 M U85-256 cycles in that requantizing RESCALE. Measured alone (U85-256, a RESCALE, the
    transpose, a 1x1 convolution): [16, 4, 525] 220,178 -> 25,224 cycles, [4, 64, 64] 49,822 -> 26,656,
    [16, 16, 16] 5,156 -> 4,192, but [16, 32, 32] 11,748 -> 13,120 and [16, 8, 8] 1,516 -> 1,964."""
    for operator in [operator for operator in graph.operators if operator.perms is not None]:
        source = graph.tensors[operator.inputs[0]]
        shape, perms = collapsed(source.shape, operator.perms)
        if source.dtype != np.int8 or perms != (1, 0) or shape[0] > _MAX_CONVOLVED_AXIS:
            continue
        if source.shape[-1] < _LONG_ROWS:
            continue
        transposed = operator.outputs[0]
        readers = graph.consumers(transposed)
        if transposed in graph.outputs or not readers or not all(_is_pointwise_reader(graph, r, transposed) for r in readers):
            continue
        value = TosaValue(source.name, source.shape, source.dtype)
        for reader in readers:
            _read_channels_first(graph, reader, value, shape)
        graph.operators.remove(operator)


def _is_pointwise_reader(graph: TosaGraph, operator: TosaOperator, name: str) -> bool:
    """A 1x1 CONV2D of ``name`` (its input, not its weights) keeping its spatial size: stride one, no padding."""
    if operator.op != ts.Op.CONV2D or operator.inputs[0] != name or name in operator.inputs[1:]:
        return False
    weights = graph.tensors[operator.inputs[1]]
    image, output = graph.tensors[name].shape, graph.tensors[operator.outputs[0]].shape
    return weights.data is not None and tuple(weights.shape[1:3]) == (1, 1) and tuple(output[:3]) == tuple(image[:3])


def _read_channels_first(graph: TosaGraph, convolution: TosaOperator, source: TosaValue, shape: tuple[int, ...]) -> None:
    """Rewrites the 1x1 ``convolution`` to read ``source`` (channels first, [A, B] collapsed) directly."""
    channels, positions = shape
    name = convolution.outputs[0]
    weights = graph.const_data(convolution.inputs[1])  # [O, 1, 1, A]
    accumulator = graph.tensors[name]

    def channels_first_convolution() -> TosaValue:
        image = reshape(graph, source, (1, channels, positions, 1), name=f"{name}_channels_first")
        kernel = graph.add_const(f"{name}_channels_first_weights", weights.reshape(weights.shape[0], channels, 1, 1))
        sums = graph.add_tensor(f"{name}_channels_first_sums", (1, 1, positions, weights.shape[0]), accumulator.dtype)
        attribute = ts.TosaSerializerAttribute()
        attribute.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
        graph.add_op(ts.Op.CONV2D, [image, kernel, *convolution.inputs[2:]], [sums], attribute)
        return sums

    rebuild_in_place(graph, convolution, channels_first_convolution)


def _rewrite_as_convolution(graph: TosaGraph, operator: TosaOperator, shape: tuple[int, ...]) -> None:
    """The transpose [A, B] -> [B, A] (``shape`` = (A, B)) of ``operator`` as CONV2D of the image
    [1, A, B, 1] with a kernel (A, 1) of identity weights: output channel a reads the kernel's row a."""
    moved, kept = shape
    value, name = _input_value(graph, operator), operator.outputs[0]

    def identity_convolution() -> TosaValue:
        image = reshape(graph, value, (1, moved, kept, 1), name=f"{name}_image")
        weights = graph.add_const(f"{name}_identity", np.eye(moved, dtype=np.int8).reshape(moved, moved, 1, 1))
        codes = graph.add_tensor(f"{name}_codes", (1, 1, kept, moved), np.dtype(np.int32))
        attribute = ts.TosaSerializerAttribute()
        attribute.Conv2dAttribute([0, 0, 0, 0], [1, 1], [1, 1], False, ts.DType.INT32)
        operands = [
            image, weights, graph.add_const(f"{name}_no_bias", np.zeros(moved, dtype=np.int32)),
            graph.add_scalar_const(f"{name}_input_zp", 0, np.dtype(np.int8)),
            graph.add_scalar_const(f"{name}_weight_zp", 0, np.dtype(np.int8)),
        ]  # fmt: skip
        graph.add_op(ts.Op.CONV2D, operands, [codes], attribute)
        return rescale(
            graph, codes, name=f"{name}_moved", scales=[1.0], output_dtype=np.dtype(np.int8), input_zp=0, output_zp=0
        )

    rebuild_in_place(graph, operator, identity_convolution)


def collapsed(shape: tuple[int, ...], perms: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """(input shape, perms) of the same transpose without axes of size one and with every run of input
    axes that stay neighbours in the output merged into one axis."""
    kept = [axis for axis in perms if shape[axis] != 1]
    runs: list[list[int]] = []  # input axes merged into each output axis, in output order
    for axis in kept:
        if runs and axis == runs[-1][-1] + 1:
            runs[-1].append(axis)
        else:
            runs.append([axis])
    by_input = sorted(range(len(runs)), key=lambda run: runs[run][0])
    collapsed_shape = tuple(int(np.prod([shape[axis] for axis in runs[run]])) for run in by_input)
    position = {run: index for index, run in enumerate(by_input)}
    return collapsed_shape, tuple(position[run] for run in range(len(runs)))


def _fuses_slowly(graph: TosaGraph, operator: TosaOperator) -> bool:
    source = graph.tensors[operator.inputs[0]]
    return has_short_rows(operator.perms, source.shape) and is_weighted_output(graph, source.name)


def _rewrite(graph: TosaGraph, operator: TosaOperator, shape: tuple[int, ...], perms: tuple[int, ...]) -> None:
    value, name = _input_value(graph, operator), operator.outputs[0]

    def collapsed_transpose() -> TosaValue:
        if len(perms) <= 1:  # the transpose moves nothing: one reshape
            return value
        return transpose(graph, reshape(graph, value, shape, name=f"{name}_collapsed"), perms, name=f"{name}_collapsed_transposed")

    rebuild_in_place(graph, operator, collapsed_transpose)


def _input_value(graph: TosaGraph, operator: TosaOperator) -> TosaValue:
    source = graph.tensors[operator.inputs[0]]
    return TosaValue(source.name, source.shape, source.dtype)
