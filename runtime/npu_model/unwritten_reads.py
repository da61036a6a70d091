"""Finds the first operation of an Ethos-U delegate whose results depend on memory no command wrote.

    python -m runtime.npu_model.unwritten_reads --pte llama_u55_pte.pte --target ethos-u55-128 [--delegate 0]

A Vela stream should write every scratch byte before it reads it; one that does not computes with whatever the
memory held before the run (README.md has the llama_u55 case this found). The stream runs on the NPU model with
its scratch filled with 0x00 and then with 0xA5 around the inputs, cut after each operation in turn: a byte that
differs between the two runs other than as the two fills was computed from unwritten bytes. Plain copies of
unwritten bytes look like the fills, so the operation named is the first to compute with them, which may come
after the one that copied them; its trace lines say where its operands came from.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
from pathlib import Path
from typing import Sequence

import numpy as np

from arm.ethosu.bin_stream import IoTensor, VelaBinStream, parse_bin_stream
from arm.ethosu.npu_model.binding import NpuModel

FILLS = (0x00, 0xA5)
_COP1 = 0x31504F43
# Driver payload actions (the low byte of a tag) and the words each takes after its tag.
_CONFIG, _CMD_STREAM, _NOP = 1, 2, 5
_ACTION_WORDS = {_CONFIG: 2, _NOP: 0}
_STOP = 0xFFFF0000  # NPU_OP_STOP, param 0xffff
_CMD1_FLAG = 1 << 14
_OPCODE_MASK = 0x3FF
_FIRST_REGISTER = 0x100  # cmd0 opcodes below it are NPU_OP_* commands (U55 and U85 alike)
_WEIGHTS_REGION, _SCRATCH_REGION, _REGION_COUNT = 0, 1, 8


@dataclasses.dataclass(frozen=True)
class CommandStream:
    """A driver payload split into the words before its command stream and the command words."""

    header: tuple[int, ...]
    commands: tuple[int, ...]

    @classmethod
    def parse(cls, payload: bytes) -> CommandStream:
        words = [int(word) for word in np.frombuffer(payload, dtype="<u4")]
        if not words or words[0] != _COP1:
            raise ValueError("the payload does not start with Vela's 'COP1' driver header")
        index = 1
        while index < len(words):
            action = words[index] & 0xFF
            if action == _CMD_STREAM:
                count = words[index] >> 16
                return cls(tuple(words[:index]), tuple(words[index + 1 : index + 1 + count]))
            if action not in _ACTION_WORDS:
                raise ValueError(f"driver action {action} at byte {4 * index} is not one this tool cuts around")
            index += 1 + _ACTION_WORDS[action]
        raise ValueError("the payload has no command stream")

    def operation_ends(self) -> list[int]:
        """For each NPU_OP_* command but STOP, the number of command words up to and including it."""
        ends = []
        index = 0
        while index < len(self.commands):
            word = self.commands[index]
            index += 2 if word & _CMD1_FLAG else 1
            opcode = word & _OPCODE_MASK
            if not word & _CMD1_FLAG and 0 < opcode < _FIRST_REGISTER:
                ends.append(index)
        return ends

    def byte_offset(self, command_index: int) -> int:
        """The payload byte offset of a command word, as the model's errors and trace count it."""
        return 4 * (len(self.header) + 1 + command_index)

    def cut(self, end: int) -> bytes:
        """The payload with its first ``end`` command words, then STOP."""
        commands = [*self.commands[:end], _STOP]
        return np.array([*self.header, _CMD_STREAM | len(commands) << 16, *commands], dtype="<u4").tobytes()


@dataclasses.dataclass(frozen=True)
class Dependence:
    """The first operation with results computed from unwritten bytes, and where those results are."""

    byte_offset: int
    scratch_bytes: int
    first_byte: int
    last_byte: int
    trace: tuple[str, ...]

    def describe(self) -> str:
        return (
            f"the operation at byte {self.byte_offset} computes {self.scratch_bytes} scratch bytes in "
            f"[{self.first_byte}, {self.last_byte}] from memory no command wrote:\n  {self.trace[-1].strip()}"
        )


def run_cut(model: NpuModel, stream: VelaBinStream, commands: CommandStream, end: int, inputs: Sequence[np.ndarray],
            fill: int) -> tuple[np.ndarray, list[str]]:
    """The scratch after the stream's first ``end`` command words, from a scratch filled with ``fill``."""
    scratch = np.full(stream.scratch_size, fill, dtype=np.uint8)
    for io, value in zip(stream.inputs, inputs, strict=True):
        _place(scratch, io, np.ascontiguousarray(value))
    regions: list[np.ndarray | None] = [None] * _REGION_COUNT
    regions[_WEIGHTS_REGION] = np.frombuffer(stream.weight_data, dtype=np.uint8).copy()
    regions[_SCRATCH_REGION] = scratch
    lines = model.run_payload(commands.cut(end), regions, trace=True)
    return scratch, lines


def first_dependence(model: NpuModel, stream: VelaBinStream, inputs: Sequence[np.ndarray]) -> Dependence | None:
    """The first operation whose results differ between the two fills other than as the fills (None: no such)."""
    commands = CommandStream.parse(stream.cmd_data)
    low, high = FILLS
    for end in commands.operation_ends():
        (a, _), (b, lines) = (run_cut(model, stream, commands, end, inputs, fill) for fill in FILLS)
        computed = np.flatnonzero((a != b) & ~((a == low) & (b == high)))
        if computed.size:
            trace = tuple(lines[:-1])  # the last line is the STOP the cut added
            return Dependence(commands.byte_offset(end - 1), int(computed.size), int(computed[0]), int(computed[-1]),
                              trace)
    return None


def _place(scratch: np.ndarray, io: IoTensor, value: np.ndarray) -> None:
    if io.region != _SCRATCH_REGION:
        raise ValueError(f"an input lives in region {io.region}; this tool places inputs in scratch (region 1) only")
    size = int(np.prod(io.shape)) * io.elem_size
    if value.nbytes != size:
        raise ValueError(f"an input has {value.nbytes} bytes; the stream expects {size} (shape {io.shape})")
    scratch[io.offset : io.offset + size] = value.reshape(-1).view(np.uint8)


def _random_inputs(stream: VelaBinStream, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    types = {1: np.int8, 2: np.int16, 4: np.int32}
    inputs = []
    for io in stream.inputs:
        info = np.iinfo(types[io.elem_size])
        inputs.append(rng.integers(info.min, info.max, io.shape, endpoint=True, dtype=types[io.elem_size]))
    return inputs


def main(argv: Sequence[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pte", type=Path, required=True, help="a .pte with Ethos-U delegates")
    parser.add_argument("--target", required=True, help="the NPU it was compiled for, e.g. ethos-u55-128")
    parser.add_argument("--delegate", type=int, default=0, help="which Ethos-U delegate (execution-plan order)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the random integer inputs")
    parser.add_argument("--trace-lines", type=int, default=40, help="trace lines to print before the operation")
    args = parser.parse_args(argv)

    from arm.ethosu.npu_model.pte_delegates import ethos_u_bin_streams

    streams = ethos_u_bin_streams(args.pte.read_bytes())
    if not 0 <= args.delegate < len(streams):
        parser.error(f"{args.pte} has {len(streams)} Ethos-U delegates; --delegate {args.delegate} is not one")
    stream = parse_bin_stream(streams[args.delegate])
    dependence = first_dependence(NpuModel(args.target), stream, _random_inputs(stream, args.seed))
    if dependence is None:
        print(f"delegate {args.delegate}: no operation computes with scratch bytes that no command wrote")
        return 0
    print("\n".join(dependence.trace[-args.trace_lines :]))
    print(f"delegate {args.delegate}: {dependence.describe()}")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
