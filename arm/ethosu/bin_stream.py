"""ExecuTorch's Vela bin stream: the blob an ``EthosUBackend`` delegate holds in a .pte.

The Ethos-U runtime in ExecuTorch reads this layout, so it is fixed from outside:

    block   := name (16 bytes, NUL padded) | length (u32 LE) | external (u8) | reserved (11 bytes)
               | data (``length`` bytes, zero padded to a multiple of 16)
    stream  := vela_bin_stream | cmd_data | weight_data | scratch_size | inputs | outputs | vela_end_stream

``scratch_size`` holds one u32; ``inputs`` and ``outputs`` hold an i32 count and then, per tensor,
six i32 shape dims, element size, offset and memory region. Header and footer blocks are empty.
"""

from __future__ import annotations

import dataclasses
import struct

_NAME_LENGTH = 16
_ALIGNMENT = 16
_BLOCK_HEADER = struct.Struct(f"<{_NAME_LENGTH}sIB11x")
_IO_COUNT = struct.Struct("<i")
_IO_TENSOR = struct.Struct("<6iiii")
_SCRATCH_SIZE = struct.Struct("<I")

HEADER = "vela_bin_stream"
FOOTER = "vela_end_stream"
BLOCK_ORDER = (HEADER, "cmd_data", "weight_data", "scratch_size", "inputs", "outputs", FOOTER)

# Vela describes every NPU-side I/O tensor with a 6D shape.
IO_RANK = 6


class BinStreamError(ValueError):
    """A byte string is not a well-formed Vela bin stream."""


@dataclasses.dataclass(frozen=True)
class IoTensor:
    """Where one delegate input or output lives for the NPU: its shape, element size and address."""

    shape: tuple[int, ...]
    elem_size: int
    offset: int
    region: int

    def __post_init__(self) -> None:
        if len(self.shape) != IO_RANK:
            raise BinStreamError(f"I/O tensor shapes are {IO_RANK}D in a Vela bin stream, got {self.shape}")


@dataclasses.dataclass(frozen=True)
class VelaBinStream:
    """The parsed content of a bin stream."""

    cmd_data: bytes
    weight_data: bytes
    scratch_size: int
    inputs: tuple[IoTensor, ...]
    outputs: tuple[IoTensor, ...]


def write_bin_stream(stream: VelaBinStream) -> bytes:
    blocks = {
        HEADER: b"",
        "cmd_data": stream.cmd_data,
        "weight_data": stream.weight_data,
        "scratch_size": _SCRATCH_SIZE.pack(stream.scratch_size),
        "inputs": _pack_io(stream.inputs),
        "outputs": _pack_io(stream.outputs),
        FOOTER: b"",
    }
    return b"".join(_pack_block(name, blocks[name]) for name in BLOCK_ORDER)


def parse_bin_stream(data: bytes) -> VelaBinStream:
    blocks = _split_blocks(data)
    names = [name for name, _ in blocks]
    if names != list(BLOCK_ORDER):
        raise BinStreamError(f"expected blocks {list(BLOCK_ORDER)}, found {names}")
    by_name = dict(blocks)
    for name in (HEADER, FOOTER):
        if by_name[name]:
            raise BinStreamError(f"block {name!r} must be empty, has {len(by_name[name])} bytes")
    scratch = by_name["scratch_size"]
    if len(scratch) != _SCRATCH_SIZE.size:
        raise BinStreamError(f"block 'scratch_size' must hold {_SCRATCH_SIZE.size} bytes, has {len(scratch)}")
    return VelaBinStream(
        cmd_data=by_name["cmd_data"],
        weight_data=by_name["weight_data"],
        scratch_size=_SCRATCH_SIZE.unpack(scratch)[0],
        inputs=_unpack_io("inputs", by_name["inputs"]),
        outputs=_unpack_io("outputs", by_name["outputs"]),
    )


def _pack_block(name: str, data: bytes) -> bytes:
    encoded = name.encode("ascii")
    if len(encoded) >= _NAME_LENGTH:  # the runtime reads the name as a NUL-terminated string
        raise BinStreamError(f"block name {name!r} is longer than {_NAME_LENGTH - 1} bytes")
    header = _BLOCK_HEADER.pack(encoded, len(data), 0)
    return header + data + b"\x00" * _padding(len(data))


def _split_blocks(data: bytes) -> list[tuple[str, bytes]]:
    blocks = []
    offset = 0
    while offset < len(data):
        if len(data) - offset < _BLOCK_HEADER.size:
            raise BinStreamError(
                f"truncated stream: {len(data) - offset} bytes at offset {offset} cannot hold a block header"
            )
        raw_name, length, external = _BLOCK_HEADER.unpack_from(data, offset)
        name = raw_name.split(b"\x00", 1)[0].decode("ascii", errors="replace")
        if external:
            raise BinStreamError(f"block {name!r} refers to external data, which this reader does not resolve")
        start = offset + _BLOCK_HEADER.size
        end = start + length
        if end + _padding(length) > len(data):
            raise BinStreamError(
                f"truncated stream: block {name!r} at offset {offset} declares {length} bytes, "
                f"only {len(data) - start} remain"
            )
        blocks.append((name, bytes(data[start:end])))
        offset = end + _padding(length)
    return blocks


def _pack_io(tensors: tuple[IoTensor, ...]) -> bytes:
    packed = [_IO_TENSOR.pack(*t.shape, t.elem_size, t.offset, t.region) for t in tensors]
    return _IO_COUNT.pack(len(tensors)) + b"".join(packed)


def _unpack_io(name: str, data: bytes) -> tuple[IoTensor, ...]:
    if len(data) < _IO_COUNT.size:
        raise BinStreamError(f"block {name!r} is too short to hold a tensor count ({len(data)} bytes)")
    (count,) = _IO_COUNT.unpack_from(data)
    expected = _IO_COUNT.size + count * _IO_TENSOR.size
    if count < 0 or len(data) != expected:
        raise BinStreamError(
            f"block {name!r} declares {count} tensors, which needs {expected} bytes; it has {len(data)}"
        )
    tensors = []
    for index in range(count):
        *shape, elem_size, offset, region = _IO_TENSOR.unpack_from(data, _IO_COUNT.size + index * _IO_TENSOR.size)
        tensors.append(IoTensor(tuple(shape), elem_size, offset, region))
    return tuple(tensors)


def _padding(length: int) -> int:
    return -length % _ALIGNMENT
