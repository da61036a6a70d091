"""A MATMUL operand that is a window of a larger tensor (a SLICE, then only RESHAPEs) is copied first.

Vela 5.2.0 reads a SLICE's output in place, as a window into its source, rather than copying it. For a
MATMUL operand that window loses its batch step: the stream reads the first batch's window for every
batch (found on the NPU model, bit for bit against the TOSA reference model). A Conformer's
``q, k, v = qkv.unbind(0)`` then ``q @ k.transpose(-2, -1)`` on the U85-256 computed every head's
scores from head 0's queries (its U85 delegate: 1858 of 2048 outputs off, by up to 23 steps), and
arm/ops/unbind.py's ``qkv`` case departed on both NPUs (157 of 320 outputs). Tiny graphs depart on the
U55 too: ``x[0] @ x[1].mT`` of one tensor, ``x[..., :8] @ x[..., 8:].mT``. An int8 RESCALE by 1 between the window and the MATMUL makes Vela
write the operand out (a small elementwise pass), and the MATMUL then reads a whole tensor, as it
does everywhere it is exact.

The copy is per channel (a multiplier of 1 for each): Vela 5.2.0 sometimes drops a per-tensor identity RESCALE and
reads the window after all. deit_tiny (64x64, U85-256) kept the per-tensor copies in eleven of its twelve attention
blocks and dropped them in the ninth, whose three per-head q @ k^T products then all read head 0's queries (the
same NPU_SET_IFM_BASE0 for each NPU_OP_CONV; the delegate 848 of 1000 logits off, by up to 9; found by
runtime/npu_model/departure_bisect.py). With per-channel copies Vela keeps every one, the delegate is bit-exact,
and the cycles stay (1,120,130 -> 1,120,640 NPU cycles).
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph
from arm.tosa.identity_copy import insert_identity_copy

# The operators that pass a window through without Vela writing it out anywhere.
_VIEWS = frozenset({ts.Op.RESHAPE})
_MATMUL_OPERANDS = (0, 1)
# RESCALE copies integers only; a float MATMUL never goes to Vela.
_COPYABLE = frozenset({np.dtype(np.int8), np.dtype(np.int16)})


def copy_windowed_matmul_operands(graph: TosaGraph) -> None:
    for matmul in [operator for operator in graph.operators if operator.op == ts.Op.MATMUL]:
        for position in _MATMUL_OPERANDS:
            operand = matmul.inputs[position]
            if graph.tensors[operand].dtype in _COPYABLE and _is_window(graph, operand):
                matmul.inputs[position] = insert_identity_copy(graph, operand, position=graph.operators.index(matmul))


def _is_window(graph: TosaGraph, name: str) -> bool:
    """Whether ``name`` is a SLICE's output, seen through view operators only."""
    producer = graph.producer(name)
    while producer is not None and producer.op in _VIEWS:
        producer = graph.producer(producer.inputs[0])
    return producer is not None and producer.op == ts.Op.SLICE
