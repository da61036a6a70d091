"""Reshapes around elementwise ops: sink them below the ops and fold the pairs that then meet.

Ops lowered in another rank than their neighbours (a 1-D convolution runs as a 1xL CONV2D on
[N, 1, L, C] and hands back [N, L, C]) leave chains like ``conv -> RESHAPE -> CLAMP -> RESHAPE ->
conv``. A reshape in the middle of such a chain is not free: Vela turns a reshape whose tensor it
cannot alias (one read by two consumers, as at a residual branch) into a memory copy. An elementwise
op computes each output element from the input elements at the same flat index, so it may run
before the reshape instead of after it: ``X -R-> Y -op-> Z`` becomes ``X -op-> Z' -R-> Z``. Sunk
reshapes then meet: ``R2(R1(X))`` reads X directly, and is X itself when R2 restores X's shape.
Graph inputs and outputs keep their names and shapes.

A reshape that stays (one of its readers is not elementwise: a convolution, a reduction) is not sunk;
the elementwise readers of its source move above it instead, ``X -R-> Y`` with ``X -op-> Z`` becoming
``Y -op-> Z' -R-> Z``, so that the reshape is X's only reader and Vela aliases it instead of copying X.
A transformer writes this at every layer norm (its output reshaped for the linears and rescaled for the
residual add) and before every softmax (the scores reshaped to rows for the row maximum and rescaled
for the exponent): a 1,520-cycle memory copy each on BERT's U55-128 (session 11).
"""

from __future__ import annotations

import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator
from arm.tosa.layout import ELEMENTWISE_OPS, remove_dead_operators

# Between a tensor's name and its new shape in the name of the tensor an operator writes once its
# reshape has moved below it (``{name}_as_{shape}``): arm.report finds a layer's values by it.
RESHAPED_INFIX = "_as_"


def fold_reshapes(graph: TosaGraph) -> None:
    """Sinks every reshape below the elementwise ops that read it and folds the reshape chains this forms."""
    changed = True
    while changed:
        changed = False
        for operator in list(graph.operators):
            changed |= (
                _sink_reshape(graph, operator)
                or _fold_reshape_of_reshape(graph, operator)
                or _read_after_staying_reshape(graph, operator)
            )
        remove_dead_operators(graph)


def _is_reshape(operator: TosaOperator | None) -> bool:
    return operator is not None and operator.op == ts.Op.RESHAPE


def _data_inputs(graph: TosaGraph, operator: TosaOperator) -> list[int] | None:
    """Indices of the inputs read element by element at the output's index, or None if not elementwise.

    Operands of another rank than the output (RESCALE's multipliers, MUL's shift, zero points) are
    parameters, not data.
    """
    if len(operator.outputs) != 1:
        return None
    if operator.elementwise_unary:
        return [0]
    if operator.op not in ELEMENTWISE_OPS:
        return None
    rank = len(graph.tensors[operator.outputs[0]].shape)
    return [
        index
        for index, name in enumerate(operator.inputs)
        if graph.tensors[name].kind != "shape" and len(graph.tensors[name].shape) == rank
    ]


# For arm.tosa.few_rows_on_channels, which moves elementwise chains by the same reading of their operands.
data_inputs = _data_inputs


def _sink_reshape(graph: TosaGraph, operator: TosaOperator) -> bool:
    data_inputs = _data_inputs(graph, operator)
    if not data_inputs:
        return False
    output = graph.tensors[operator.outputs[0]]
    reshapes = {index: graph.producer(operator.inputs[index]) for index in data_inputs}
    source_shapes = {
        graph.tensors[producer.inputs[0]].shape for producer in reshapes.values() if _is_reshape(producer)
    }
    if len(source_shapes) != 1:
        return False  # no reshape to sink, or reshapes from differently shaped sources
    (source_shape,) = source_shapes
    if any(_stays(graph, producer) for producer in reshapes.values() if _is_reshape(producer)):
        return False  # its source would gain a reader besides the reshape: a copy (_read_after_staying_reshape)
    # Both ranks >= 2 keeps parameters (rank-1 multipliers, shifts) apart from data at either rank.
    if len(source_shape) < 2 or len(output.shape) < 2:
        return False
    for index, producer in reshapes.items():
        tensor = graph.tensors[operator.inputs[index]]
        if _is_reshape(producer):
            if tensor.shape != output.shape:
                return False  # a broadcast operand: its elements do not follow the flat index
        elif tensor.kind != "const" or tensor.data.size != 1:
            return False  # a tensor not reshaped alike, or a constant that is not a scalar
    for index, producer in reshapes.items():
        name = operator.inputs[index]
        if _is_reshape(producer):
            operator.inputs[index] = producer.inputs[0]
        else:
            scalar = graph.const_data(name).reshape((1,) * len(source_shape))
            operator.inputs[index] = graph.add_const(f"{name}_rank{len(source_shape)}", scalar).name
    _reshape_output(graph, operator, source_shape)
    return True


def _stays(graph: TosaGraph, reshape: TosaOperator) -> bool:
    """Whether ``reshape`` has a reader no reshape can sink below, so it stays whatever the sinking does."""
    return any(_data_inputs(graph, reader) is None for reader in graph.consumers(reshape.outputs[0]))


def _read_after_staying_reshape(graph: TosaGraph, reshape: TosaOperator) -> bool:
    """The elementwise unary readers of a staying reshape's source read the reshape's output instead.

    Only when every other reader of the source can move (otherwise the source keeps two readers and
    Vela copies it all the same) and the source is neither a graph input nor output (Vela copies a
    reshape of those in any case).
    """
    if not _is_reshape(reshape) or not _stays(graph, reshape):
        return False
    source, reshaped = reshape.inputs[0], reshape.outputs[0]
    producer = graph.producer(source)
    if producer is None or source in graph.outputs or reshaped in graph.outputs:
        return False
    shape = graph.tensors[reshaped].shape
    readers = [reader for reader in graph.consumers(source) if reader is not reshape]
    if not readers or len(shape) < 2 or len(graph.tensors[source].shape) < 2:
        return False
    if not all(reader.elementwise_unary and len(reader.outputs) == 1 and reader.inputs[0] == source for reader in readers):
        return False
    if any(name == source for reader in readers for name in reader.inputs[1:]):
        return False
    # The reshape runs right after the source's producer, so that it precedes each reader it now feeds.
    graph.operators.remove(reshape)
    position = next(index for index, candidate in enumerate(graph.operators) if candidate is producer)
    graph.operators.insert(position + 1, reshape)
    for reader in readers:
        reader.inputs[0] = reshaped
        _reshape_output(graph, reader, shape)
    return True


def _reshape_output(graph: TosaGraph, operator: TosaOperator, shape: tuple[int, ...]) -> None:
    """Makes ``operator`` write ``shape``, followed by a reshape to its old output tensor."""
    old = graph.tensors[operator.outputs[0]]
    inner = graph.add_tensor(f"{old.name}{RESHAPED_INFIX}{'x'.join(str(d) for d in shape)}", shape, old.dtype)
    operator.outputs[0] = inner.name
    shape_name = graph.add_shape_const(f"{old.name}_shape", old.shape)
    attribute = ts.TosaSerializerAttribute()
    attribute.ReshapeAttribute()
    closing = TosaOperator(ts.Op.RESHAPE, [inner.name, shape_name], [old.name], attribute)
    # Right after the operator: its new inputs are produced before it, its old users come after.
    position = next(index for index, candidate in enumerate(graph.operators) if candidate is operator)
    graph.operators.insert(position + 1, closing)


def _fold_reshape_of_reshape(graph: TosaGraph, outer: TosaOperator) -> bool:
    """``R2(R1(X))`` reads X; when R2 gives back X's shape, R2's readers read X itself."""
    if not _is_reshape(outer):
        return False
    inner = graph.producer(outer.inputs[0])
    if not _is_reshape(inner):
        return False
    source = inner.inputs[0]
    if graph.tensors[source].shape != graph.tensors[outer.outputs[0]].shape or outer.outputs[0] in graph.outputs:
        outer.inputs[0] = source
        return True
    consumers = graph.consumers(outer.outputs[0])
    for consumer in consumers:
        consumer.inputs = [source if name == outer.outputs[0] else name for name in consumer.inputs]
    return bool(consumers)
