"""A copy of a tensor as a RESCALE by 1, placed where a Vela 5.2.0 workaround needs it (see
matmul_operand_copies.py and high_rank_slice_copies.py for the departures it avoids).

The copy scales per channel: Vela drops a per-tensor identity RESCALE as a no-op (in deit_tiny's U85 block
9 it did, and the MATMUL read the slice window again), but keeps one with a multiplier per channel.
"""

from __future__ import annotations

from arm.tosa.graph import TosaGraph, TosaValue
from arm.tosa.rescale import rescale


def insert_identity_copy(graph: TosaGraph, name: str, *, position: int) -> str:
    """Copies tensor ``name`` by an operator inserted at ``position`` in the operator list; returns the
    copy's name. The caller rewires the readers that should read the copy."""
    tensor = graph.tensors[name]
    operators_before = len(graph.operators)
    copy = rescale(
        graph,
        TosaValue(tensor.name, tensor.shape, tensor.dtype),
        name=f"{name}_copy",
        scales=[1.0] * tensor.shape[-1],
        output_dtype=tensor.dtype,
        input_zp=0,
        output_zp=0,
    )
    graph.move_appended(operators_before, position)
    return copy.name
