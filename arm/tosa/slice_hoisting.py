"""``SLICE -> TRANSPOSE`` becomes ``TRANSPOSE -> SLICE`` where the slice only feeds the transpose.

cancel_round_trips sinks a transpose below a SLICE in the hope that it meets its inverse further
down. Where it does not (a strided convolution right after the graph's NCHW input slices off the
rows its window never reaches, then needs NHWC), the slice is left in front of the transpose. Vela
runs a SLICE feeding a convolution as the convolution's read window for free, but a SLICE feeding a
TRANSPOSE as a memory copy (SqueezeNet's stem on the U55: 28,709 cycles). Moving the slice back
below the transpose gives the peer's order: transpose the whole tensor, let the consumer read the window.
Only slices of a graph input are moved: that is the measured case, and elsewhere (a slice of a large
tensor towards a graph output) transposing the whole tensor may cost more than the copy it saves.
"""

from __future__ import annotations

import tosa_serializer as ts

from arm.tosa.graph import TosaGraph, TosaOperator, TosaValue
from arm.tosa.layout import remove_dead_operators, transpose


def hoist_slices_below_transposes(graph: TosaGraph) -> None:
    for closing in [operator for operator in graph.operators if operator.perms is not None]:
        window = graph.producer(closing.inputs[0])
        if _only_feeds(graph, window, closing):
            _swap(graph, window, closing)
    remove_dead_operators(graph)


def _only_feeds(graph: TosaGraph, window: TosaOperator | None, closing: TosaOperator) -> bool:
    return (
        window is not None
        and window.op == ts.Op.SLICE
        and window.inputs[0] in graph.inputs
        and window.outputs[0] not in graph.outputs
        and graph.consumers(window.outputs[0]) == [closing]
    )


def _swap(graph: TosaGraph, window: TosaOperator, closing: TosaOperator) -> None:
    """X -SLICE-> Y -T-> Z becomes X -T-> X' -SLICE'-> Z, SLICE' taking the same window in T's layout."""
    source, start_name, size_name = window.inputs
    tensor = graph.tensors[source]
    perms = closing.perms
    # The transpose comes first: it is inserted where the slice was, which reads X after X is made.
    position = graph.operators.index(window)
    operators_before = len(graph.operators)
    whole = TosaValue(tensor.name, tensor.shape, tensor.dtype)
    transposed = transpose(graph, whole, perms, name=f"{source}_perm{''.join(map(str, perms))}_whole")
    graph.move_appended(operators_before, position)
    start = graph.const_data(start_name)[list(perms)]
    size = graph.const_data(size_name)[list(perms)]
    window.inputs = [
        transposed.name,
        graph.add_shape_const(f"{start_name}_transposed", start),
        graph.add_shape_const(f"{size_name}_transposed", size),
    ]
    window.outputs = list(closing.outputs)
    # The slice now writes Z, so it must come where the transpose was, after X' and before Z's readers.
    graph.operators.remove(window)
    graph.operators.insert(graph.operators.index(closing), window)
    graph.operators.remove(closing)
