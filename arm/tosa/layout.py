"""Data layout: the TOSA graph keeps PyTorch's NCHW at its edges, convolutions and pools run in NHWC.

Every layout change of the lowering is a TRANSPOSE made here. Each NHWC-bound op is lowered on its
own, between a transpose to NHWC and one back to NCHW, which leaves round trips such as
``conv -> to NCHW -> add -> to NHWC -> conv``. ``cancel_round_trips`` runs after the lowering and
propagates the inner layout instead: it sinks every transpose below the layout-agnostic ops that read
it (elementwise ops, CONCAT, PAD, SLICE, TILE, REDUCE_*, rewriting their axes and constants for the new
layout), until it meets its inverse, which it cancels, or an op that needs the outer layout (a
RESHAPE, a graph output); a one-element operand (a scalar ADD or MUL) reads the same in every layout.
A network of convolutions, pools, elementwise ops, activations, concats
and pads is thus left with one transpose at each NCHW input and one in front of each NCHW-only
consumer. A transpose that sank through a widening RESCALE (int8 -> int32) without meeting its inverse
is moved back above it (``_hoist_above_widening``), where it moves a quarter of the bytes.
"""

from __future__ import annotations

from typing import Callable

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue

NCHW_TO_NHWC = (0, 2, 3, 1)
NHWC_TO_NCHW = (0, 3, 1, 2)

# Operators computing each output element from the input elements at the same index (after
# broadcasting), whatever the index means: their same-rank inputs may be permuted together.
_ELEMENTWISE = frozenset({
    ts.Op.ABS, ts.Op.ADD, ts.Op.BITWISE_AND, ts.Op.BITWISE_NOT, ts.Op.BITWISE_OR, ts.Op.BITWISE_XOR,
    ts.Op.CEIL, ts.Op.CLAMP, ts.Op.CLZ, ts.Op.COS, ts.Op.EQUAL, ts.Op.ERF, ts.Op.EXP, ts.Op.FLOOR,
    ts.Op.GREATER, ts.Op.GREATER_EQUAL, ts.Op.INTDIV, ts.Op.LOG, ts.Op.LOGICAL_AND, ts.Op.LOGICAL_NOT,
    ts.Op.LOGICAL_OR, ts.Op.LOGICAL_XOR, ts.Op.MAXIMUM, ts.Op.MINIMUM, ts.Op.MUL, ts.Op.NEGATE,
    ts.Op.POW, ts.Op.RECIPROCAL, ts.Op.RSQRT, ts.Op.SELECT, ts.Op.SIGMOID, ts.Op.SIN, ts.Op.SUB,
    ts.Op.TABLE, ts.Op.TANH,
})  # fmt: skip

# Operators with one axis attribute (TosaOperator.axis), rebuilt for the axis's new position.
_AXIS_ATTRIBUTES: dict[ts.Op, Callable[[ts.TosaSerializerAttribute, int], None]] = {
    ts.Op.CONCAT: ts.TosaSerializerAttribute.ConcatAttribute,
    ts.Op.REDUCE_SUM: ts.TosaSerializerAttribute.ReduceSumAttribute,
    ts.Op.REDUCE_MAX: lambda attribute, axis: attribute.ReduceMaxAttribute(axis, ts.NanPropagationMode.PROPAGATE),
    ts.Op.REDUCE_MIN: lambda attribute, axis: attribute.ReduceMinAttribute(axis, ts.NanPropagationMode.PROPAGATE),
}

# Operators with per-axis shape operands: (input index, values per axis), e.g. PAD's [before, after].
_PER_AXIS_SHAPES: dict[ts.Op, tuple[tuple[int, int], ...]] = {
    ts.Op.PAD: ((1, 2),),
    ts.Op.SLICE: ((1, 1), (2, 1)),
    ts.Op.TILE: ((1, 1),),
}


def transpose(graph: TosaGraph, value: TosaValue, perms: tuple[int, ...], *, name: str) -> TosaValue:
    output = graph.add_tensor(name, tuple(value.shape[p] for p in perms), value.dtype, value.qparams)
    attribute = ts.TosaSerializerAttribute()
    attribute.TransposeAttribute(list(perms))
    graph.add_op(ts.Op.TRANSPOSE, [value], [output], attribute, perms=tuple(perms))
    return output


def to_nhwc(graph: TosaGraph, value: TosaValue) -> TosaValue:
    """Names the result ``<value>_to_nhwc``."""
    _require_rank4(value)
    return transpose(graph, value, NCHW_TO_NHWC, name=f"{value.name}_to_nhwc")


def to_nchw(graph: TosaGraph, value: TosaValue, *, name: str) -> TosaValue:
    """``name`` is the tensor name the NCHW result should carry (usually the FX node's name)."""
    _require_rank4(value)
    return transpose(graph, value, NHWC_TO_NCHW, name=name)


def _require_rank4(value: TosaValue) -> None:
    if value.rank != 4:
        raise ValueError(f"layout change of {value.name} needs a rank-4 tensor, got shape {value.shape}")


def cancel_round_trips(graph: TosaGraph, *, transposes_fuse_into_convolutions: bool = False) -> None:
    """Sinks transposes through layout-agnostic operators and removes the inverse pairs that meet.

    ``X -T-> Y -op-> Z`` becomes ``X -op'-> Z' -T-> Z`` when every non-constant data input of ``op``
    comes through the same T: op' is op in X's layout (constants permuted, axes renamed). Then
    ``X -T-> Y -T'-> W`` with T' the inverse of T lets W's consumers read X, and two equal transposes
    of one tensor (each NHWC op of a graph input makes one) become one. Graph inputs and outputs
    keep their names and shapes, so they stay in PyTorch's layout.
    """
    changed = True
    while changed:
        changed = False
        for operator in list(graph.operators):
            changed |= (
                _sink_transposes(graph, operator)
                or _cancel_inverse(graph, operator)
                or _merge_into_twin(graph, operator)
            )
        _remove_dead_operators(graph)
    while any(
        _hoist_above_widening(graph, operator, below_convolutions=not transposes_fuse_into_convolutions)
        for operator in list(graph.operators)
    ):
        pass


def _data_inputs(graph: TosaGraph, operator: TosaOperator) -> list[int] | None:
    """Indices of the inputs that carry the operator's data layout, or None if it is layout-bound."""
    if operator.perms is not None:
        return None
    if operator.elementwise_unary:
        return [0]
    if operator.op in _ELEMENTWISE:
        rank = len(graph.tensors[operator.outputs[0]].shape)
        return [
            index
            for index, name in enumerate(operator.inputs)
            if graph.tensors[name].kind != "shape" and len(graph.tensors[name].shape) == rank
            and not _is_one_element(graph.tensors[name].shape)
        ]
    if operator.op == ts.Op.CONCAT and operator.axis is not None:
        return list(range(len(operator.inputs)))
    if operator.op in _AXIS_ATTRIBUTES and operator.axis is not None:
        return [0]
    if operator.op in _PER_AXIS_SHAPES:
        return [0]
    return None


def _is_one_element(shape: tuple[int, ...]) -> bool:
    """A [1, 1, 1, 1] operand reads the same in every layout: it neither needs a transpose nor blocks one.

    A scalar computed from a constant (a RESCALE of it: MobileOne's and HGNetV2's scalar scales and
    offsets) had blocked sinking, leaving the blocks' residual ADDs in NCHW and a transpose after each
    convolution feeding them, which Vela 5.2.0 writes 100 times slower on the U85 (see _WEIGHTED).
    """
    return all(dimension == 1 for dimension in shape)


def _sink_transposes(graph: TosaGraph, operator: TosaOperator) -> bool:
    data_inputs = _data_inputs(graph, operator)
    if not data_inputs or len(operator.outputs) != 1:
        return False
    producers = {index: graph.producer(operator.inputs[index]) for index in data_inputs}
    transposes = [producer for producer in producers.values() if producer is not None and producer.perms is not None]
    if not transposes or any(t.perms != transposes[0].perms for t in transposes):
        return False
    if any(
        producer is None or producer.perms is None
        for index, producer in producers.items()
        if graph.tensors[operator.inputs[index]].kind != "const"
    ):
        return False
    perms = transposes[0].perms
    inverse = _inverse(perms)
    for index, producer in producers.items():
        name = operator.inputs[index]
        if producer is not None:
            operator.inputs[index] = producer.inputs[0]
        else:
            data = np.transpose(graph.const_data(name), inverse)
            operator.inputs[index] = graph.add_const(f"{name}_{_layout_name(perms)}", data).name
    for index, per_axis in _PER_AXIS_SHAPES.get(operator.op, ()):
        name = operator.inputs[index]
        values = graph.const_data(name).reshape(len(perms), per_axis)[list(inverse)].flatten()
        operator.inputs[index] = graph.add_shape_const(f"{name}_{_layout_name(perms)}", values)
    if operator.axis is not None and operator.op in _AXIS_ATTRIBUTES:
        operator.axis = perms[operator.axis]
        operator.attribute = ts.TosaSerializerAttribute()
        _AXIS_ATTRIBUTES[operator.op](operator.attribute, operator.axis)
    _permute_output(graph, operator, perms)
    return True


def _permute_output(graph: TosaGraph, operator: TosaOperator, perms: tuple[int, ...]) -> None:
    """Makes ``operator`` write its output in the inner layout, followed by a transpose to the old name."""
    old = graph.tensors[operator.outputs[0]]
    inverse = _inverse(perms)
    inner = graph.add_tensor(
        f"{old.name}_{_layout_name(perms)}", tuple(old.shape[axis] for axis in inverse), old.dtype
    )
    operator.outputs[0] = inner.name
    attribute = ts.TosaSerializerAttribute()
    attribute.TransposeAttribute(list(perms))
    closing = TosaOperator(ts.Op.TRANSPOSE, [inner.name], [old.name], attribute, perms=perms)
    # Right after the operator: its new inputs are produced before it, its old users come after.
    position = next(index for index, candidate in enumerate(graph.operators) if candidate is operator)
    graph.operators.insert(position + 1, closing)


def _hoist_above_widening(graph: TosaGraph, closing: TosaOperator, *, below_convolutions: bool) -> bool:
    """``X -op-> Y -T-> Z`` becomes ``X -T-> X' -op-> Z`` when ``op`` is elementwise unary and widens
    (int8 -> int32) and T is Y's only reader: a transpose moves bytes, so it runs on the narrower side.

    Sinking leaves such pairs where a transpose went through a widening RESCALE towards an inverse it
    never met: attention's head transpose stops at the rotary embedding's MUL by its cos/sin table. Vela
    5.2.0, U55-128: an int32 [1, 16, 4, 16] transpose takes 1,024 cycles, its int8 source 256.
    """
    if closing.perms is None:
        return False
    producer = graph.producer(closing.inputs[0])
    if producer is None or not producer.elementwise_unary or len(producer.outputs) != 1:
        return False
    source, middle = graph.tensors[producer.inputs[0]], graph.tensors[producer.outputs[0]]
    if source.kind == "const" or source.dtype.itemsize >= middle.dtype.itemsize:
        return False
    if not below_convolutions and is_weighted_output(graph, source.name) and not has_short_rows(closing.perms, source.shape):
        return False
    readers = graph.consumers(middle.name)
    if middle.name in graph.outputs or len(readers) != 1 or readers[0] is not closing:
        return False
    moved = graph.add_tensor(f"{source.name}_transposed", tuple(source.shape[axis] for axis in closing.perms), source.dtype)
    transpose_first = TosaOperator(ts.Op.TRANSPOSE, [source.name], [moved.name], closing.attribute, perms=closing.perms)
    producer.inputs[0] = moved.name
    producer.outputs[0] = closing.outputs[0]
    graph.operators.remove(closing)
    position = next(index for index, candidate in enumerate(graph.operators) if candidate is producer)
    graph.operators.insert(position, transpose_first)
    return True


# Operators whose output RESCALE a transpose must not follow directly where transposes fuse into convolutions:
# Vela 5.2.0 fuses such a transpose into the convolution's output write on the U85, where it ran 100 times slower (ConvNeXt-atto's 1x1 convolution on
# [1, 2, 2, 1280] -> 320 before its layer scale: 32,260 -> 3,200,250 U85-256 cycles).
_WEIGHTED = frozenset({ts.Op.CONV2D, ts.Op.DEPTHWISE_CONV2D, ts.Op.TRANSPOSE_CONV2D, ts.Op.CONV3D, ts.Op.MATMUL})


# Rows (the last axis) of a transposed write shorter than this make the U85's write fused into a convolution slow;
# arm/tosa/transpose_collapsing.py runs such a transpose on its own, as an int8 one after this hoist (EfficientFormerV2's
# residual ADD in NCHW after a 1x1 convolution of a 2x2 map: its int32 transpose fused into the widening RESCALE took
# 204,800 U85-256 cycles).
SHORT_ROWS = 8


def has_short_rows(perms: tuple[int, ...], shape: tuple[int, ...]) -> bool:
    """The transpose by ``perms`` of a tensor of ``shape`` writes rows shorter than ``SHORT_ROWS``."""
    return shape[perms[-1]] < SHORT_ROWS


# Activations Vela fuses into the operator before them: a transpose after one is as fused as right after the
# RESCALE (a ReLU's CLAMP, which remove_identity_clamps may drop after this pass, or a LUT).
_FUSED_ACTIVATIONS = frozenset({ts.Op.CLAMP, ts.Op.TABLE})


def is_weighted_output(graph: TosaGraph, name: str) -> bool:
    """``name`` is the int8 result of a convolution or MATMUL: the RESCALE right after one, or a fused
    activation of it."""
    rescale = graph.producer(name)
    while rescale is not None and rescale.op in _FUSED_ACTIVATIONS:
        rescale = graph.producer(rescale.inputs[0])
    if rescale is None or rescale.op != ts.Op.RESCALE:
        return False
    weighted = graph.producer(rescale.inputs[0])
    return weighted is not None and weighted.op in _WEIGHTED


def _cancel_inverse(graph: TosaGraph, closing: TosaOperator) -> bool:
    if closing.perms is None or closing.outputs[0] in graph.outputs:
        return False
    opening = graph.producer(closing.inputs[0])
    if opening is None or opening.perms is None or not _undoes(opening.perms, closing.perms):
        return False
    consumers = graph.consumers(closing.outputs[0])
    for consumer in consumers:
        consumer.inputs = [opening.inputs[0] if name == closing.outputs[0] else name for name in consumer.inputs]
    return bool(consumers)


def _merge_into_twin(graph: TosaGraph, duplicate: TosaOperator) -> bool:
    """Lets the users of a transpose or reshape read an earlier, equal one of the same tensor.

    Equal reshapes come from ops that each reshape a shared input (Llama's q, k and v projections
    each view the normalized tokens as [1, L, 1, C]): Vela 5.2.0 turns all but one of them into a
    memory copy (1,592 U55-128 cycles for [16, 64] int8), one reshape read three times costs nothing.
    """
    if duplicate.outputs[0] in graph.outputs or not (duplicate.perms is not None or duplicate.op == ts.Op.RESHAPE):
        return False
    twin = next((operator for operator in graph.operators if _same_layout_change(graph, operator, duplicate)), duplicate)
    consumers = graph.consumers(duplicate.outputs[0]) if twin is not duplicate else []
    for consumer in consumers:
        consumer.inputs = [twin.outputs[0] if name == duplicate.outputs[0] else name for name in consumer.inputs]
    return bool(consumers)


def _same_layout_change(graph: TosaGraph, operator: TosaOperator, other: TosaOperator) -> bool:
    """The same transpose, or a reshape to the same shape, of the same tensor."""
    if operator.op != other.op or operator.inputs[0] != other.inputs[0]:
        return False
    if operator.op == ts.Op.RESHAPE:
        return graph.tensors[operator.outputs[0]].shape == graph.tensors[other.outputs[0]].shape
    return operator.perms is not None and operator.perms == other.perms


def _inverse(perms: tuple[int, ...]) -> tuple[int, ...]:
    inverse = [0] * len(perms)
    for position, axis in enumerate(perms):
        inverse[axis] = position
    return tuple(inverse)


def _layout_name(perms: tuple[int, ...]) -> str:
    """The inner layout's name for tensors an op writes before a transpose by ``perms``."""
    return "nhwc" if perms == NHWC_TO_NCHW else "perm" + "".join(str(axis) for axis in _inverse(perms))


def _undoes(first: tuple[int, ...], second: tuple[int, ...]) -> bool:
    return len(first) == len(second) and all(first[second[i]] == i for i in range(len(first)))


def _remove_dead_operators(graph: TosaGraph) -> None:
    live = set(graph.outputs)
    kept: list[TosaOperator] = []
    for operator in reversed(graph.operators):
        if any(name in live for name in operator.outputs):
            kept.append(operator)
            live.update(operator.inputs)
    graph.operators = kept[::-1]


# For the other graph passes (arm.tosa.reshape_sinking, slice_hoisting, identity_clamp_removal).
ELEMENTWISE_OPS = _ELEMENTWISE
remove_dead_operators = _remove_dead_operators
