"""Lines a Vela bin stream's inputs and outputs up with its delegate's: one blob entry per delegate argument.

ExecuTorch's EthosUBackend (and runtime/delegate/ethosu) copy delegate argument i into the scratch area
at the blob's input i and read the outputs after the inputs, so the blob must list exactly the TOSA
graph's inputs, in its order. Vela 5.2.0 lists only the inputs some operator reads: a graph input that
nothing reads (``x.select_scatter(src, 0, 0)`` on an ``x`` of one row is ``src`` reshaped; ``x`` is a
delegate argument no operator needs) is left out, and every later argument would land on the wrong
tensor. Such an input gets an entry of its own at the end of the scratch area, which the command stream
never touches: the runtime copies the argument there and nothing reads it.
"""

from __future__ import annotations

import dataclasses
from typing import Sequence

import numpy as np
from tosa.TosaGraph import TosaGraph

from arm.artifacts import TensorIo
from arm.ethosu.bin_stream import IO_RANK, IoTensor, VelaBinStream

_SCRATCH_REGION = 1
# Vela aligns its scratch tensors to 16 bytes; the appended entries keep that.
_SCRATCH_ALIGNMENT = 16


class DelegateIoError(RuntimeError):
    """Vela's command stream takes or gives other tensors than the delegate's TOSA graph."""


def read_inputs(tosa_flatbuffer: bytes) -> tuple[bool, ...]:
    """For each input of the graph's main block, whether an operator reads it or it is itself an output."""
    block = TosaGraph.GetRootAs(tosa_flatbuffer, 0).Regions(0).Blocks(0)
    used = {block.Outputs(i) for i in range(block.OutputsLength())}
    for index in range(block.OperatorsLength()):
        operator = block.Operators(index)
        used.update(operator.Inputs(i) for i in range(operator.InputsLength()))
    return tuple(block.Inputs(i) in used for i in range(block.InputsLength()))


def align_delegate_io(
    stream: VelaBinStream, inputs: Sequence[TensorIo], outputs: Sequence[TensorIo], read: Sequence[bool]
) -> VelaBinStream:
    """``stream`` with one input entry per TOSA input (``inputs``, ``read`` from :func:`read_inputs`).

    Raises:
        DelegateIoError: the stream's I/O does not match the graph's in count, order or size.
    """
    _check_matching("output", stream.outputs, outputs)
    if len(stream.inputs) == len(inputs):
        _check_matching("input", stream.inputs, inputs)
        return stream
    kept = [io for io, is_read in zip(inputs, read, strict=True) if is_read]
    if len(stream.inputs) != len(kept):
        raise DelegateIoError(
            f"Vela's command stream takes {len(stream.inputs)} inputs; the delegate's TOSA graph has {len(inputs)}, "
            f"{len(kept)} of them read by an operator"
        )
    _check_matching("input", stream.inputs, kept)
    entries: list[IoTensor] = []
    vela_inputs = iter(stream.inputs)
    scratch_size = stream.scratch_size
    for io, is_read in zip(inputs, read):
        if is_read:
            entries.append(next(vela_inputs))
            continue
        offset = -(-scratch_size // _SCRATCH_ALIGNMENT) * _SCRATCH_ALIGNMENT
        entry = IoTensor(_six_dims(io.shape), np.dtype(io.dtype).itemsize, offset, _SCRATCH_REGION)
        scratch_size = offset + _byte_size(entry)
        entries.append(entry)
    return dataclasses.replace(stream, inputs=tuple(entries), scratch_size=scratch_size)


def _check_matching(kind: str, entries: Sequence[IoTensor], tensors: Sequence[TensorIo]) -> None:
    if len(entries) != len(tensors):
        raise DelegateIoError(
            f"Vela's command stream has {len(entries)} {kind}s; the delegate's TOSA graph has {len(tensors)}"
        )
    for index, (entry, tensor) in enumerate(zip(entries, tensors)):
        elements = int(np.prod(tensor.shape, dtype=np.int64))
        if int(np.prod(entry.shape, dtype=np.int64)) != elements or entry.elem_size != np.dtype(tensor.dtype).itemsize:
            raise DelegateIoError(
                f"{kind} {index} ({tensor.name}) is {elements} x {np.dtype(tensor.dtype).itemsize} bytes in the TOSA "
                f"graph but {entry.shape} x {entry.elem_size} bytes in Vela's command stream"
            )


def _six_dims(shape: Sequence[int]) -> tuple[int, ...]:
    """A TOSA shape as the 6D shape Vela gives every I/O tensor (leading dims merged beyond rank 6)."""
    dims = [int(d) for d in shape] or [1]
    if len(dims) > IO_RANK:
        dims = [int(np.prod(dims[: len(dims) - IO_RANK + 1]))] + dims[len(dims) - IO_RANK + 1 :]
    return (1,) * (IO_RANK - len(dims)) + tuple(dims)


def _byte_size(entry: IoTensor) -> int:
    return int(np.prod(entry.shape, dtype=np.int64)) * entry.elem_size
