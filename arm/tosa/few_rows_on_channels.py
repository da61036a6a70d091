"""Per-row elementwise chains on at most 16 rows run with the rows on the last axis (Ethos-U).

A normalization's statistics (layer norm, group norm, RMS norm, softmax) are per-row tensors [R, 1]:
a reduction over the row, then a chain of 20-35 int32 operators on one value per row (the variance,
its CLZ normalization, a reciprocal square root's Newton-Raphson steps, the row multipliers), and the
results broadcast back over [R, N]. Vela 5.2.0 (its C++ compiler, Regor) folds the single dimensions
of an elementwise operator's output away except when the output is [R, 1] with R at most 16: then it
keeps the rows as the feature map's width and one channel ([1, 1, R, 1], OFM block [1, 1, 16, 8]),
and the U55-128 spends about 20 cycles per element, 320-384 cycles per operator for BERT's 16 rows,
the U85-256 64 (the same operator on [17, 1] or [1, 16], which it runs as channels: U55 20-40, U85 8;
eight int32 ADDs and MULs with a constant on [16, 1]: U55 2,260 cycles, U85 1,024; on [1, 16]: 160
and 64). BERT's five [16, 64] layer norms spent 10,816 U55 cycles each on 32 such operators (session 11).

The operators compute each output element from the inputs at the same flat index, so the chain can
run on [1, R] instead: every operator of the chain writes [1, ..., 1, R], a reshape opens the chain
where it reads a tensor from outside (a reduction's [R, 1] sums) and one closes it where a tensor
leaves it (the row multipliers a full-size MUL broadcasts over [R, N]), under the tensor's old name.
Same operators on the same integers: the numbers cannot change. A unary operator at the head of a
chain stays, since Vela fuses it into the operator before it. Vela runs a reshape as a view when
it is its source's only reader; an opening reshape of a source with other readers, or a closing one
of a tensor the chain reads too, becomes a memory copy (counted by ``copies``; none in BERT's layer
norms, whose per-layer CSV has no copy left).
"""

from __future__ import annotations

import dataclasses
import math

import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaTensor, TosaValue, reshape
from arm.tosa.reshape_sinking import RESHAPED_INFIX, data_inputs

# Vela 5.2.0 runs an elementwise [R, 1] output of at most this many elements as width R, one channel.
MAX_WIDTH_ROWS = 16
# Elementwise operators the layout passes do not move (arm.tosa.layout's set leaves them out) but a
# chain of per-row statistics is full of: normalize_even's and the reciprocals' shifts.
_SHIFTS = frozenset({ts.Op.ARITHMETIC_RIGHT_SHIFT, ts.Op.LOGICAL_LEFT_SHIFT, ts.Op.LOGICAL_RIGHT_SHIFT})


def few_rows_shape(shape: tuple[int, ...]) -> tuple[int, ...] | None:
    """The shape a per-row tensor of ``shape`` takes on the last axis, or None where Vela already
    runs it as channels (more than MAX_WIDTH_ROWS elements, one element, or a last axis above 1)."""
    if len(shape) < 2 or shape[-1] != 1 or not 1 < math.prod(shape) <= MAX_WIDTH_ROWS:
        return None
    return (1,) * (len(shape) - 1) + (math.prod(shape),)


@dataclasses.dataclass(frozen=True)
class Rewritten:
    """What ``run_few_rows_on_channels`` did: operators moved onto channels, and the reshapes it added
    that are not their source's only reader (Vela copies those)."""

    operators: int
    copies: int


def _data_inputs(graph: TosaGraph, operator: TosaOperator) -> list[int] | None:
    """The inputs read element by element at the output's index (arm.tosa.reshape_sinking's, and the shifts')."""
    if operator.op in _SHIFTS:
        rank = len(graph.tensors[operator.outputs[0]].shape)
        return [index for index, name in enumerate(operator.inputs) if len(graph.tensors[name].shape) == rank]
    return data_inputs(graph, operator)


def _moves(graph: TosaGraph, operator: TosaOperator) -> bool:
    """Whether ``operator`` is elementwise on a few-rows output whose data operands are that shape or one element."""
    indices = _data_inputs(graph, operator)
    if not indices:
        return False
    output = graph.tensors[operator.outputs[0]].shape
    if few_rows_shape(output) is None:
        return False
    shapes = [graph.tensors[operator.inputs[index]].shape for index in indices]
    return all(shape == output or math.prod(shape) == 1 for shape in shapes)


def _fuses_into_producer(graph: TosaGraph, operator: TosaOperator, moving: list[TosaOperator]) -> bool:
    """A unary operator (TABLE, CLAMP, per-tensor RESCALE) reading a tensor from outside the chain: Vela
    runs it as its producer's activation for nothing (Llama's RMS norm: the rsqrt TABLE after the mean's
    convolution), which an opening reshape between them would undo (a standalone TABLE, 312 U55 cycles)."""
    producer = graph.producer(operator.inputs[0])
    return (
        operator.elementwise_unary
        and producer is not None
        and not any(producer is candidate for candidate in moving)
    )


def run_few_rows_on_channels(graph: TosaGraph) -> Rewritten:
    """Moves every few-rows elementwise operator onto the last axis (see the module docstring)."""
    moving = [operator for operator in graph.operators if _moves(graph, operator)]
    # Until no unary head is left: a unary operator after one that stays is a head in its turn.
    while staying := [operator for operator in moving if _fuses_into_producer(graph, operator, moving)]:
        moving = [operator for operator in moving if not any(operator is other for other in staying)]
    renamed: dict[str, str] = {}  # a moved operator's old output -> the [1, R] tensor it writes now
    opened: dict[str, str] = {}  # an outside tensor the chain reads -> its opening reshape
    copies = 0
    for operator in moving:
        old = graph.tensors[operator.outputs[0]]
        shape = few_rows_shape(old.shape)
        for index in _data_inputs(graph, operator):
            name = operator.inputs[index]
            tensor = graph.tensors[name]
            if tensor.shape != old.shape:
                continue  # one element, broadcast alike on either shape
            if name in renamed:
                operator.inputs[index] = renamed[name]
            elif tensor.kind == "const":
                constant = graph.add_const(_reshaped_name(name, shape), graph.const_data(name).reshape(shape))
                operator.inputs[index] = constant.name
            else:
                if name not in opened:
                    copies += _other_readers(graph, name, moving) > 0 or name in (*graph.inputs, *graph.outputs)
                    opened[name] = _reshape_before(graph, tensor, shape, operator)
                operator.inputs[index] = opened[name]
        inner = graph.add_tensor(_reshaped_name(old.name, shape), shape, old.dtype)
        operator.outputs[0] = inner.name
        renamed[old.name] = inner.name
    # Whatever still reads an old output is outside the chain (the chain's readers read the new tensors).
    for old_name, inner_name in renamed.items():
        if graph.consumers(old_name) or old_name in graph.outputs:
            copies += bool(graph.consumers(inner_name))
            _close(graph, inner_name, old_name)
    return Rewritten(len(moving), copies)


def _reshaped_name(name: str, shape: tuple[int, ...]) -> str:
    """As arm.tosa.reshape_sinking names a tensor moved to another shape (arm.report probes it by that)."""
    return f"{name}{RESHAPED_INFIX}{'x'.join(str(d) for d in shape)}"


def _other_readers(graph: TosaGraph, name: str, moving: list[TosaOperator]) -> int:
    return sum(1 for reader in graph.consumers(name) if not any(reader is operator for operator in moving))


def _reshape_before(graph: TosaGraph, source: TosaTensor, shape: tuple[int, ...], reader: TosaOperator) -> str:
    """A reshape of ``source`` to ``shape`` placed just before ``reader``, its first reader in the chain."""
    since = len(graph.operators)
    value = TosaValue(source.name, source.shape, source.dtype)
    value = reshape(graph, value, shape, name=_reshaped_name(source.name, shape))
    graph.move_appended(since, graph.operators.index(reader))
    return value.name


def _close(graph: TosaGraph, inner_name: str, old_name: str) -> None:
    """A reshape from the chain's ``inner_name`` back to ``old_name``, right after the operator writing it."""
    old = graph.tensors[old_name]
    producer = graph.producer(inner_name)
    since = len(graph.operators)
    graph.tensors.pop(old_name)
    inner = TosaValue(inner_name, graph.tensors[inner_name].shape, old.dtype)
    reshape(graph, inner, old.shape, name=old_name)  # the old name is free again: it is claimed as is
    graph.move_appended(since, graph.operators.index(producer) + 1)
