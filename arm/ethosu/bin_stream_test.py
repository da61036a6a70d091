import struct

import pytest

from arm.ethosu.bin_stream import BinStreamError, IoTensor, VelaBinStream, parse_bin_stream, write_bin_stream

STREAM = VelaBinStream(
    cmd_data=b"COP1" + bytes(range(37)),
    weight_data=bytes(range(16)),
    scratch_size=160,
    inputs=(IoTensor((1, 1, 1, 4, 4, 8), 1, 0, 1), IoTensor((1, 1, 1, 2, 3, 5), 1, 128, 1)),
    outputs=(IoTensor((1, 1, 1, 1, 1, 10), 4, 256, 1),),
)


def test_round_trip():
    data = write_bin_stream(STREAM)
    assert len(data) % 16 == 0
    assert parse_bin_stream(data) == STREAM


def test_layout_matches_runtime_reader():
    data = write_bin_stream(STREAM)
    assert data[:16] == b"vela_bin_stream\x00"
    assert data[-32:] == b"vela_end_stream\x00" + bytes(16)
    name, length, external = struct.unpack_from("<16sIB", data, 32)
    assert (name.rstrip(b"\x00"), length, external) == (b"cmd_data", 41, 0)


def test_empty_io_and_weights_round_trip():
    stream = VelaBinStream(cmd_data=b"", weight_data=b"", scratch_size=0, inputs=(), outputs=())
    assert parse_bin_stream(write_bin_stream(stream)) == stream


@pytest.mark.parametrize("cut", [1, 20, 40])
def test_truncated_stream_raises(cut):
    with pytest.raises(BinStreamError, match="truncated"):
        parse_bin_stream(write_bin_stream(STREAM)[:-cut])


def test_missing_block_raises():
    without_footer = write_bin_stream(STREAM)[:-32]
    with pytest.raises(BinStreamError, match="expected blocks"):
        parse_bin_stream(without_footer)


def test_bad_io_length_raises():
    data = bytearray(write_bin_stream(STREAM))
    inputs_at = data.index(b"inputs\x00")
    struct.pack_into("<i", data, inputs_at + 32, 3)  # claim three inputs, hold two
    with pytest.raises(BinStreamError, match="'inputs' declares 3 tensors"):
        parse_bin_stream(bytes(data))


def test_bad_scratch_length_raises():
    data = bytearray(write_bin_stream(STREAM))
    scratch_at = data.index(b"scratch_size\x00")
    struct.pack_into("<I", data, scratch_at + 16, 2)
    with pytest.raises(BinStreamError, match="scratch_size"):
        parse_bin_stream(bytes(data))


def test_external_block_raises():
    data = bytearray(write_bin_stream(STREAM))
    data[data.index(b"weight_data\x00") + 20] = 1
    with pytest.raises(BinStreamError, match="external"):
        parse_bin_stream(bytes(data))


def test_io_tensor_must_be_6d():
    with pytest.raises(BinStreamError, match="6D"):
        IoTensor((1, 4, 4, 8), 1, 0, 1)
