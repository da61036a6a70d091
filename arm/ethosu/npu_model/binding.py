"""Python access to the functional Ethos-U55 model (runtime/npu_model) through its C API and ctypes.

``run_bin_stream`` does for a Vela bin stream what the runtime's EthosUBackend does on a device: lay
the inputs out in the scratch area at the offsets Vela chose, run the command stream with base
pointers {0: weights, 1: scratch, 2: fast scratch} and read the outputs back.
"""

from __future__ import annotations

import ctypes
import dataclasses
from pathlib import Path
from typing import Sequence

import numpy as np

from arm.ethosu.bin_stream import IoTensor, parse_bin_stream
from arm.host_runtime.library import find_library

# Where Bazel puts the shared library in runfiles; PTE_NPU_MODEL_LIBRARY overrides it.
_LIBRARY_RUNFILES_PATH = "runtime/npu_model/libpte_npu_model.so"
_LIBRARY_ENV = "PTE_NPU_MODEL_LIBRARY"
_REGION_COUNT = 8
_WEIGHTS_REGION, _SCRATCH_REGION, _FAST_SCRATCH_REGION = 0, 1, 2
_ERROR_CAPACITY = 512
# Work memory for one operation's decoded weights and IFM (MobileNetV2 needs a few MiB).
DEFAULT_WORK_BYTES = 64 << 20
_ELEMENT_TYPES = {1: np.int8, 2: np.int16, 4: np.int32}


class NpuModelError(RuntimeError):
    """The NPU model rejected a command stream or failed while running it."""

    def __init__(self, code: int, message: str):
        super().__init__(f"NPU model error {code}: {message}")
        self.code = code
        self.message = message


class _Region(ctypes.Structure):
    _fields_ = [("data", ctypes.POINTER(ctypes.c_uint8)), ("size", ctypes.c_size_t)]


_TRACE_FN = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_char_p)


def _library_path() -> Path:
    return find_library(
        _LIBRARY_RUNFILES_PATH, _LIBRARY_ENV, "run under Bazel with //runtime/npu_model:libpte_npu_model.so as data"
    )


@dataclasses.dataclass(frozen=True)
class NpuRun:
    """Outputs of one run (raw NPU-side values, shaped as Vela's 6D I/O) and, when asked for, the trace."""

    outputs: list[np.ndarray]
    trace: list[str]


class NpuModel:
    """The NPU ``target`` (an Ethos-U target name such as ``"ethos-u55-128"``), from the C API library."""

    def __init__(self, target: str = "ethos-u55-128", library: Path | None = None, work_bytes: int = DEFAULT_WORK_BYTES):
        self.target = target
        self.work_bytes = work_bytes
        self._lib = ctypes.CDLL(str(library or _library_path()))
        self._lib.pte_npu_decode_weights.restype = ctypes.c_long
        self._lib.pte_npu_decode_weights.argtypes = [
            ctypes.c_char_p,
            ctypes.c_size_t,
            ctypes.POINTER(ctypes.c_int16),
            ctypes.c_size_t,
            ctypes.c_char_p,
            ctypes.c_size_t,
        ]
        self._lib.pte_npu_model_run.restype = ctypes.c_int
        self._lib.pte_npu_model_run.argtypes = [
            ctypes.c_char_p,
            ctypes.c_char_p,
            ctypes.c_size_t,
            ctypes.POINTER(_Region),
            ctypes.c_size_t,
            ctypes.c_size_t,
            _TRACE_FN,
            ctypes.c_void_p,
            ctypes.c_char_p,
            ctypes.c_size_t,
        ]

    def run_payload(self, payload: bytes, regions: Sequence[np.ndarray | None], trace: bool = False) -> list[str]:
        """Runs a driver payload (``cmd_data``) with base pointer i at ``regions[i]`` (uint8 arrays, modified in place)."""
        if len(regions) > _REGION_COUNT:
            raise ValueError(f"{len(regions)} regions given, the NPU has {_REGION_COUNT} base pointers")
        table = (_Region * _REGION_COUNT)()
        for index, region in enumerate(regions):
            if region is None or region.size == 0:
                continue
            if region.dtype != np.uint8 or not region.flags.c_contiguous or not region.flags.writeable:
                raise ValueError(f"region {index} must be a writeable, contiguous uint8 array")
            table[index] = _Region(region.ctypes.data_as(ctypes.POINTER(ctypes.c_uint8)), region.size)
        lines: list[str] = []
        callback = _TRACE_FN(lambda _, line: lines.append(line.decode())) if trace else _TRACE_FN()
        error = ctypes.create_string_buffer(_ERROR_CAPACITY)
        code = self._lib.pte_npu_model_run(
            self.target.encode(), payload, len(payload), table, _REGION_COUNT, self.work_bytes, callback, None,
            error, _ERROR_CAPACITY,
        )
        if code != 0:
            raise NpuModelError(code, error.value.decode(errors="replace"))
        return lines

    def decode_weights(self, stream: bytes, capacity: int) -> np.ndarray:
        """Decodes a compressed weight stream (at most ``capacity`` values) with the model's decoder."""
        values = np.zeros(capacity, dtype=np.int16)
        error = ctypes.create_string_buffer(_ERROR_CAPACITY)
        count = self._lib.pte_npu_decode_weights(
            stream, len(stream), values.ctypes.data_as(ctypes.POINTER(ctypes.c_int16)), capacity, error, _ERROR_CAPACITY
        )
        if count < 0:
            raise NpuModelError(-1, error.value.decode(errors="replace"))
        return values[:count]

    def run_bin_stream(self, bin_stream: bytes, inputs: Sequence[np.ndarray], trace: bool = False) -> NpuRun:
        """Runs a Vela bin stream (as an EthosUBackend delegate holds it) on integer inputs."""
        stream = parse_bin_stream(bin_stream)
        if len(inputs) != len(stream.inputs):
            raise ValueError(f"the command stream takes {len(stream.inputs)} inputs, {len(inputs)} given")
        scratch = np.zeros(stream.scratch_size, dtype=np.uint8)
        for index, (io, value) in enumerate(zip(stream.inputs, inputs)):
            _place(scratch, io, np.ascontiguousarray(value), f"input {index}")
        weights = np.frombuffer(stream.weight_data, dtype=np.uint8).copy()
        regions = [None] * _REGION_COUNT
        regions[_WEIGHTS_REGION] = weights
        regions[_SCRATCH_REGION] = scratch
        lines = self.run_payload(stream.cmd_data, regions, trace=trace)
        outputs = [_read(scratch, io, f"output {index}") for index, io in enumerate(stream.outputs)]
        return NpuRun(outputs, lines)


def _io_bytes(io: IoTensor) -> int:
    return int(np.prod(io.shape)) * io.elem_size


def _check_scratch(io: IoTensor, scratch: np.ndarray, what: str) -> None:
    if io.region != _SCRATCH_REGION:
        raise ValueError(f"{what} lives in region {io.region}; only scratch (region {_SCRATCH_REGION}) I/O is supported")
    if io.offset + _io_bytes(io) > scratch.size:
        raise ValueError(f"{what} spans bytes [{io.offset}, +{_io_bytes(io)}) beyond the {scratch.size}-byte scratch")


def _place(scratch: np.ndarray, io: IoTensor, value: np.ndarray, what: str) -> None:
    _check_scratch(io, scratch, what)
    if value.dtype.itemsize != io.elem_size or value.size != int(np.prod(io.shape)):
        raise ValueError(
            f"{what} is {value.dtype} {value.shape}; the NPU expects {int(np.prod(io.shape))} elements of "
            f"{io.elem_size} bytes"
        )
    scratch[io.offset : io.offset + _io_bytes(io)] = value.reshape(-1).view(np.uint8)


def _read(scratch: np.ndarray, io: IoTensor, what: str) -> np.ndarray:
    _check_scratch(io, scratch, what)
    raw = scratch[io.offset : io.offset + _io_bytes(io)].copy()
    return raw.view(_ELEMENT_TYPES[io.elem_size]).reshape(io.shape)
