"""unwritten_reads on handmade U55 streams: an add that reads an IFM2 no command wrote is named by its byte
offset; the same stream without it, and a stream whose operations read only what was written, have none."""

from __future__ import annotations

import numpy as np
import pytest

from arm.ethosu.bin_stream import IoTensor, VelaBinStream
from arm.ethosu.npu_model.binding import NpuModel
from runtime.npu_model.unwritten_reads import CommandStream, first_dependence

# u55_commands.h: cmd0 and cmd1 opcodes (a cmd1 word also has bit 14 set and is followed by its data word).
_SET_IFM_DEPTH_M1, _SET_IFM_PRECISION, _SET_IFM_REGION = 0x104, 0x105, 0x10F
_SET_OFM_DEPTH_M1, _SET_OFM_PRECISION, _SET_OFM_REGION = 0x113, 0x114, 0x11F
_SET_ACTIVATION_MIN, _SET_ACTIVATION_MAX = 0x126, 0x127
_SET_IFM2_BROADCAST, _SET_IFM2_SCALAR, _SET_IFM2_PRECISION, _SET_IFM2_REGION = 0x180, 0x181, 0x185, 0x18F
_OP_ELEMENTWISE, _ADD = 0x006, 1
_IFM_BASE0, _IFM_STRIDE_X, _IFM_STRIDE_Y = 0x000, 0x004, 0x005
_OFM_BASE0, _OFM_STRIDE_X, _OFM_STRIDE_Y = 0x010, 0x014, 0x015
_OFM_SCALE, _OPA_SCALE, _OPB_SCALE = 0x024, 0x025, 0x026
_IFM2_BASE0, _IFM2_STRIDE_X, _IFM2_STRIDE_Y = 0x080, 0x084, 0x085


def cmd0(opcode: int, payload: int) -> list[int]:
    return [opcode | payload << 16]


def cmd1(opcode: int, data: int, param: int = 0) -> list[int]:
    return [opcode | 1 << 14 | param << 16, data]


def add(ifm: int, ofm: int, ifm2: int | None) -> list[int]:
    """OFM = IFM + IFM2 (or + 3) on 1x1x4 int8 tensors in region 1 (scratch) at the given byte offsets."""
    words = [
        *cmd0(_SET_IFM_REGION, 1), *cmd1(_IFM_BASE0, ifm), *cmd0(_SET_IFM_DEPTH_M1, 3),
        *cmd1(_IFM_STRIDE_X, 4), *cmd1(_IFM_STRIDE_Y, 4), *cmd0(_SET_IFM_PRECISION, 1),
        *cmd0(_SET_OFM_REGION, 1), *cmd1(_OFM_BASE0, ofm), *cmd0(_SET_OFM_DEPTH_M1, 3),
        *cmd1(_OFM_STRIDE_X, 4), *cmd1(_OFM_STRIDE_Y, 4), *cmd0(_SET_OFM_PRECISION, 1 | 1 << 8),
        *cmd0(_SET_ACTIVATION_MIN, 0xFF80), *cmd0(_SET_ACTIVATION_MAX, 0x7F),
        *cmd1(_OFM_SCALE, 1), *cmd1(_OPA_SCALE, 1), *cmd1(_OPB_SCALE, 1), *cmd0(_SET_IFM2_PRECISION, 1),
    ]  # fmt: skip
    if ifm2 is None:
        words += [*cmd0(_SET_IFM2_SCALAR, 3), *cmd0(_SET_IFM2_BROADCAST, 1 << 7)]
    else:
        words += [
            *cmd0(_SET_IFM2_REGION, 1), *cmd1(_IFM2_BASE0, ifm2), *cmd1(_IFM2_STRIDE_X, 4),
            *cmd1(_IFM2_STRIDE_Y, 4), *cmd0(_SET_IFM2_BROADCAST, 0),
        ]  # fmt: skip
    return words + cmd0(_OP_ELEMENTWISE, _ADD)


def u55_stream(*operations: list[int]) -> VelaBinStream:
    """A U55-128 driver payload (Vela's header: COP1, CONFIG, three NOPs, CMD_STREAM) over a 16-byte scratch
    whose input is its first four bytes."""
    commands = [word for operation in operations for word in operation] + [0xFFFF0000]
    header = [0x31504F43, 0x00010001, 7 | 24 << 8, 0, 5, 5, 5, 2 | len(commands) << 16]
    payload = np.array(header + commands, dtype="<u4").tobytes()
    io = IoTensor((1, 1, 1, 1, 1, 4), 1, 0, 1)
    return VelaBinStream(payload, b"", 16, (io,), (IoTensor((1, 1, 1, 1, 1, 4), 1, 12, 1),))


@pytest.fixture(scope="module")
def model() -> NpuModel:
    return NpuModel("ethos-u55-128")


INPUT = [np.array([1, -2, 30, -40], dtype=np.int8)]
FIRST_COMMAND = 32  # after the 8 header words


def test_an_add_of_unwritten_bytes_is_named_by_its_offset(model: NpuModel) -> None:
    # bytes 4..7 = input + 3; bytes 12..15 = bytes 4..7 + bytes 8..11, which nothing wrote.
    first, second = add(0, 4, None), add(4, 12, 8)
    dependence = first_dependence(model, u55_stream(first, second), INPUT)
    assert dependence is not None
    # The second add's last word, NPU_OP_ELEMENTWISE.
    assert dependence.byte_offset == FIRST_COMMAND + 4 * (len(first) + len(second) - 1)
    assert (dependence.first_byte, dependence.last_byte, dependence.scratch_bytes) == (12, 15, 4)
    assert "NPU_OP_ELEMENTWISE" in dependence.trace[-1]


def test_written_operands_give_none(model: NpuModel) -> None:
    # The second add reads bytes 4..7 twice: both written by the first.
    assert first_dependence(model, u55_stream(add(0, 4, None), add(4, 12, 4)), INPUT) is None
    assert first_dependence(model, u55_stream(add(0, 4, None)), INPUT) is None


def test_the_payload_is_cut_after_each_operation() -> None:
    first, second = add(0, 4, None), add(4, 12, 8)
    commands = CommandStream.parse(u55_stream(first, second).cmd_data)
    assert commands.operation_ends() == [len(first), len(first) + len(second)]
    assert commands.byte_offset(0) == FIRST_COMMAND
    cut = np.frombuffer(commands.cut(len(first)), dtype="<u4")
    # The header, CMD_STREAM with the new count, the first add, STOP.
    assert cut[7] == 2 | (len(first) + 1) << 16 and cut[-1] == 0xFFFF0000 and len(cut) == 8 + len(first) + 1
