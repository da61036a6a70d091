"""A SLICE of a tensor of rank 5 or more is copied out right after it, at its own shape, before anything reads it.

Vela 5.2.0 flattens rank-5 tensors onto the NPU's 4D feature maps and reads a SLICE's output in place, as a window
into its source. When the window's reader then runs per batch (a RESHAPE to rank 4 with a batch of 2 or more, as
timm's attention does with ``q * scale`` on the q slice of its (3, B, heads, N, d) qkv tensor), the stream steps the
output per batch but not the window: on the U85 every batch reads the first one's window (the mul op case
``rank5_slice_times_constant``: 251 of 512 outputs off, bit for bit against the TOSA reference model on the NPU
model, whose registers show the same NPU_SET_IFM_BASE0 for both batches and an OFM base stepped by one batch). On
the U55 the same graphs crash Vela (SIGSEGV) or give streams that write past the scratch area. Measured on tiny
graphs (``high_rank_slice_copies_test``): a slice along the last axis, of a rank-6 tensor, and a widening
RESCALE read at rank 5 go wrong too; a slice of a rank-4 tensor, and a batch-1 reader on the U85, are exact.

An int8 (or int16) RESCALE by 1 right after the SLICE, at the slice's own rank-5 shape, makes Vela write the
window out in one elementwise pass; every later reader then reads a whole tensor, which is exact on both NPUs in
every shape measured. The copy costs that one pass (the mul case on the U85-256: 672 NPU cycles, against 848 for
the alternative of a plain int32 constant operand, which is exact only on the U85). A copy placed after the
RESHAPE to rank 4 does not help: the window is already lost there.

The copy is a per-channel RESCALE (a multiplier of 1 for every channel), as matmul_operand_copies.py's is: Vela
5.2.0 drops a per-tensor identity RESCALE in some contexts and reads the window after all (deit_tiny 64x64 on the
U85-256 lost the MATMUL copies of its ninth attention block; see that module). A per-channel one it keeps.

Two kinds of reader need no copy here, so a slice read (through RESHAPEs) only by them is left alone: a TRANSPOSE
writes its whole output (rank-5 windows into TRANSPOSEs are exact on both NPUs), and a MATMUL operand gets
arm/tosa/matmul_operand_copies.py's copy at the operand's own shape, which Vela fuses with the transpose it puts
on a right-hand operand (a copy at rank 5 cannot be: deit_tiny 64x64 U85-256 cost 1,160,504 NPU cycles with every
q, k, v slice copied here, 1,120,640 with this split, 1,120,130 as before, when block 9 departed).
"""

from __future__ import annotations

import numpy as np
import tosa_serializer as ts

from arm.tosa.graph import TosaGraph
from arm.tosa.identity_copy import insert_identity_copy

# Vela's feature maps have four dimensions; a slice of a higher-rank tensor is where its windows go wrong.
_NPU_FEATURE_MAP_RANK = 4
# RESCALE copies integers only; a float graph never goes to Vela.
_COPYABLE = frozenset({np.dtype(np.int8), np.dtype(np.int16)})
_VIEWS = frozenset({ts.Op.RESHAPE})
# Readers a window needs no copy for (besides TRANSPOSEs, which the graph marks by their perms).
_WHOLE_READERS = frozenset({ts.Op.MATMUL})


def copy_high_rank_slices(graph: TosaGraph) -> None:
    for slice_op in [operator for operator in graph.operators if operator.op == ts.Op.SLICE]:
        source, window = graph.tensors[slice_op.inputs[0]], slice_op.outputs[0]
        if len(source.shape) <= _NPU_FEATURE_MAP_RANK or graph.tensors[window].dtype not in _COPYABLE:
            continue
        readers = graph.consumers(window)
        if not readers or _read_whole(graph, window):
            continue
        copy = insert_identity_copy(graph, window, position=graph.operators.index(slice_op) + 1)
        for reader in readers:
            reader.inputs[:] = [copy if name == window else name for name in reader.inputs]


def _read_whole(graph: TosaGraph, name: str) -> bool:
    """Whether every reader of ``name``, seen through RESHAPEs, is a TRANSPOSE (which writes its whole output:
    measured exact from rank-5 windows on both NPUs) or a MATMUL (matmul_operand_copies.py copies its operand)."""
    readers = graph.consumers(name)
    for reader in readers:
        if reader.op in _VIEWS:
            if not _read_whole(graph, reader.outputs[0]):
                return False
        elif reader.op not in _WHOLE_READERS and reader.perms is None:
            return False
    return bool(readers) and name not in graph.outputs
