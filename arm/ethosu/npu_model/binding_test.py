"""The Python binding of the NPU model: Vela's weight encoder round-trips through the model's decoder,
a run returns its trace, a broken command stream raises an error naming the command, and U55 and U85
models take their own streams."""

from __future__ import annotations

import numpy as np
import pytest
from ethosu import mlw_codec

from arm.ethosu.bin_stream import parse_bin_stream
from arm.ethosu.npu_model.binding import NpuModel, NpuModelError

# Driver payload: 'COP1', CONFIG + 2 words, 3 NOPs, CMD_STREAM; then the commands.
_HEADER_WORDS = 8
_STOP = 0xFFFF0000


def _payload(commands: list[int], log2_macs: int = 7, product: int = 0) -> bytes:
    """A driver payload for an Ethos-U55 (product 0) or U85 (product 2)."""
    header = [0x31504F43, 0x00010001, log2_macs | 24 << 8 | product << 28, 0, 5, 5, 5, 2 | len(commands) << 16]
    return np.array(header + commands, dtype="<u4").tobytes()


@pytest.fixture(scope="module")
def npu() -> NpuModel:
    return NpuModel("ethos-u55-128")


@pytest.fixture(scope="module")
def u85() -> NpuModel:
    return NpuModel("ethos-u85-256")


@pytest.mark.parametrize("seed", range(6))
def test_weight_decoder_inverts_velas_encoder(npu: NpuModel, seed: int) -> None:
    rng = np.random.default_rng(seed)
    count = int(rng.integers(1, 4000))
    sparse = rng.integers(-255, 256, count) * (rng.random(count) < 0.3)
    normal = np.clip(np.round(rng.normal(0, 20, count)), -255, 255)
    weights = [int(value) for value in (sparse if seed % 2 else normal)]
    decoded = npu.decode_weights(bytes(mlw_codec.encode(weights)), count + 16)
    assert decoded.tolist() == weights


def test_a_run_returns_its_trace(npu: NpuModel) -> None:
    region_command = 0x010F | 1 << 16  # NPU_SET_IFM_REGION 1
    trace = npu.run_payload(_payload([region_command, _STOP]), [], trace=True)
    assert trace == ["    32 NPU_SET_IFM_REGION 1", "    36 NPU_OP_STOP 65535"]


def test_an_unknown_command_is_an_error_naming_its_offset(npu: NpuModel) -> None:
    with pytest.raises(NpuModelError, match=r"unknown cmd0 opcode 0x004 \(word 0x00000004\) at byte 32"):
        npu.run_payload(_payload([0x0004, _STOP]), [])


def test_a_stream_for_another_npu_is_rejected(npu: NpuModel) -> None:
    with pytest.raises(NpuModelError, match="compiled for Ethos-U55 with 64 MACs per cycle; this model is an Ethos-U55-128"):
        npu.run_payload(_payload([_STOP], log2_macs=6), [])


def test_a_u85_stream_runs_on_the_u85_model(u85: NpuModel) -> None:
    trace = u85.run_payload(_payload([_STOP], log2_macs=8, product=2), [], trace=True)
    assert trace == ["    32 NPU_OP_STOP 65535"]


def test_an_unknown_npu_name_is_rejected() -> None:
    with pytest.raises(NpuModelError, match="unknown NPU 'ethos-u99-1'"):
        NpuModel("ethos-u99-1").run_payload(_payload([_STOP]), [])
