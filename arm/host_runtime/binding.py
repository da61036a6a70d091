"""ctypes declarations of the runtime's C API (runtime/python/c_api.h, ``libpte_runtime.so``)."""

from __future__ import annotations

import ctypes
from pathlib import Path

from arm.host_runtime.library import find_library

# Where Bazel puts the shared library in runfiles; PTE_RUNTIME_LIBRARY overrides it.
_LIBRARY_RUNFILES_PATH = "runtime/python/libpte_runtime.so"
LIBRARY_ENV = "PTE_RUNTIME_LIBRARY"
ERROR_CAPACITY = 512


class TensorView(ctypes.Structure):
    _fields_ = [
        ("scalar_type", ctypes.c_int32),
        ("rank", ctypes.c_uint32),
        ("sizes", ctypes.POINTER(ctypes.c_int32)),
        ("data", ctypes.c_void_p),
        ("nbytes", ctypes.c_size_t),
    ]


DELEGATE_INIT_FN = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(ctypes.c_uint8), ctypes.c_size_t,
    ctypes.c_void_p, ctypes.c_size_t,
)
DELEGATE_EXECUTE_FN = ctypes.CFUNCTYPE(
    ctypes.c_int, ctypes.c_void_p, ctypes.c_size_t, ctypes.POINTER(TensorView), ctypes.c_size_t,
    ctypes.c_void_p, ctypes.c_size_t,
)


class HostBackend(ctypes.Structure):
    _fields_ = [
        ("id", ctypes.c_char_p),
        ("init", DELEGATE_INIT_FN),
        ("execute", DELEGATE_EXECUTE_FN),
        ("context", ctypes.c_void_p),
    ]


class LoadOptions(ctypes.Structure):
    _fields_ = [
        ("method", ctypes.c_char_p),
        ("npu", ctypes.c_char_p),
        ("runtime_arena_bytes", ctypes.c_size_t),
        ("npu_work_bytes", ctypes.c_size_t),
        ("backends", ctypes.POINTER(HostBackend)),
        ("backend_count", ctypes.c_size_t),
    ]


def library_path() -> Path:
    return find_library(
        _LIBRARY_RUNFILES_PATH,
        LIBRARY_ENV,
        "run under Bazel (`./bazelw run //arm:run -- ...`, or a target with //runtime/python:libpte_runtime.so as data)",
    )


def load_library(path: Path | None = None) -> ctypes.CDLL:
    library = ctypes.CDLL(str(path or library_path()))
    program_p = ctypes.c_void_p
    error = [ctypes.c_char_p, ctypes.c_size_t]
    signatures = {
        "pte_host_program_load": (
            ctypes.c_int,
            [ctypes.c_char_p, ctypes.c_size_t, ctypes.POINTER(LoadOptions), ctypes.POINTER(program_p), *error],
        ),
        "pte_host_program_free": (None, [program_p]),
        "pte_host_program_input_count": (ctypes.c_size_t, [program_p]),
        "pte_host_program_output_count": (ctypes.c_size_t, [program_p]),
        "pte_host_program_input": (ctypes.c_int, [program_p, ctypes.c_size_t, ctypes.POINTER(TensorView), *error]),
        "pte_host_program_output": (ctypes.c_int, [program_p, ctypes.c_size_t, ctypes.POINTER(TensorView), *error]),
        "pte_host_program_set_input": (
            ctypes.c_int, [program_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t, *error],
        ),
        "pte_host_program_execute": (ctypes.c_int, [program_p, *error]),
        "pte_host_program_npu": (ctypes.c_char_p, [program_p]),
        "pte_host_program_arena_used": (ctypes.c_size_t, [program_p]),
    }
    for name, (restype, argtypes) in signatures.items():
        function = getattr(library, name)
        function.restype = restype
        function.argtypes = argtypes
    return library


def write_error(buffer: int, capacity: int, message: str) -> None:
    """Writes ``message`` (truncated, NUL-terminated) into a C caller's error buffer."""
    if not buffer or capacity == 0:
        return
    encoded = message.encode(errors="replace")[: capacity - 1] + b"\0"
    ctypes.memmove(buffer, encoded, len(encoded))
