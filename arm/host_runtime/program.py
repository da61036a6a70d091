"""A .pte loaded into our C++ runtime (runtime/python/c_api.h) and run on numpy or torch inputs.

    from arm import run
    program = run.load("model.pte")
    outputs = program.run([x])          # numpy arrays or torch tensors in, numpy arrays out

CPU ops run on the runtime's kernels, Ethos-U delegates on the functional NPU model of the configuration
each command stream was compiled for (bit for bit what the NPU computes), VGF delegates on Vulkan
(lavapipe) and TOSA delegates on the TOSA reference model (arm/host_runtime/host_delegates.py).
"""

from __future__ import annotations

import ctypes
import dataclasses
from pathlib import Path
from typing import Sequence

import numpy as np

from arm.host_runtime import binding
from arm.host_runtime.host_delegates import HostBackend, HostDelegateError, default_host_backends

# ExecuTorch ScalarType codes (runtime/core/scalar_type.h) -> numpy.
_NUMPY_TYPES = {
    0: np.uint8,
    1: np.int8,
    2: np.int16,
    3: np.int32,
    4: np.int64,
    5: np.float16,
    6: np.float32,
    7: np.float64,
    11: np.bool_,
}
# Error codes of runtime/core/error.h the callbacks report with.
_DELEGATE_FAILED = 11
_INVALID_DELEGATE_BLOB = 3


class RuntimeRunError(RuntimeError):
    """The runtime refused the program or its inputs, or failed while running it."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code


@dataclasses.dataclass(frozen=True)
class TensorSpec:
    """What an input or output of the method is: its numpy dtype and shape."""

    dtype: np.dtype
    shape: tuple[int, ...]


def _spec(view: binding.TensorView, what: str) -> TensorSpec:
    if view.scalar_type not in _NUMPY_TYPES:
        raise RuntimeRunError(0, f"{what} has ScalarType {view.scalar_type}, which has no numpy type here")
    return TensorSpec(np.dtype(_NUMPY_TYPES[view.scalar_type]), tuple(view.sizes[d] for d in range(view.rank)))


def _view_array(view: binding.TensorView, spec: TensorSpec) -> np.ndarray:
    """The tensor's memory as a numpy array (no copy; valid while the runtime holds it)."""
    if view.nbytes == 0:
        return np.zeros(spec.shape, spec.dtype)
    buffer = (ctypes.c_uint8 * view.nbytes).from_address(view.data)
    return np.frombuffer(buffer, dtype=spec.dtype).reshape(spec.shape)


def _as_numpy(value: object) -> np.ndarray:
    # torch is imported only by callers that pass tensors: a numpy-only run never pays for it.
    if type(value).__module__.startswith("torch"):
        value = value.detach().cpu().contiguous().numpy()  # type: ignore[attr-defined]
    return np.ascontiguousarray(value)


class _Callbacks:
    """One host backend behind the C API's callbacks. Exceptions never cross into C: they become codes."""

    def __init__(self, backend: HostBackend):
        self.backend = backend
        self.init = binding.DELEGATE_INIT_FN(self._init)
        self.execute = binding.DELEGATE_EXECUTE_FN(self._execute)

    def _init(self, _context, index, blob, size, error, capacity) -> int:
        try:
            self.backend.init(index, ctypes.string_at(blob, size))
            return 0
        except Exception as failure:  # noqa: BLE001: every failure must come back to C as a code
            binding.write_error(error, capacity, f"{self.backend.backend_id}: {failure}")
            return _INVALID_DELEGATE_BLOB

    def _execute(self, _context, index, args, count, error, capacity) -> int:
        try:
            views = [args[i] for i in range(count)]
            specs = [_spec(view, f"delegate {index} argument {i}") for i, view in enumerate(views)]
            inputs_count = self.backend.input_count(index)
            if inputs_count > count:
                raise HostDelegateError(f"delegate {index} takes {inputs_count} inputs, the call passes {count} values")
            inputs = [_view_array(v, s).copy() for v, s in zip(views[:inputs_count], specs[:inputs_count])]
            outputs = self.backend.run(index, inputs)
            targets = list(zip(views[inputs_count:], specs[inputs_count:]))
            if len(outputs) != len(targets):
                raise HostDelegateError(f"delegate {index} gave {len(outputs)} outputs, the program expects {len(targets)}")
            for number, (output, (view, spec)) in enumerate(zip(outputs, targets)):
                output = np.asarray(output)
                if output.dtype != spec.dtype or output.size != int(np.prod(spec.shape, dtype=np.int64)):
                    raise HostDelegateError(
                        f"delegate {index} output {number} is {output.dtype}{list(output.shape)}, the program "
                        f"expects {spec.dtype}{list(spec.shape)}"
                    )
                _view_array(view, spec)[...] = output.reshape(spec.shape)
            return 0
        except Exception as failure:  # noqa: BLE001
            binding.write_error(error, capacity, f"{self.backend.backend_id}: {failure}")
            return _DELEGATE_FAILED


class Program:
    """A method of a .pte, loaded; ``run`` it as often as needed. Use as a context manager or ``close()``."""

    def __init__(
        self,
        pte: bytes,
        method: str = "forward",
        npu: str = "model",
        host_backends: Sequence[HostBackend] | None = None,
        library: Path | None = None,
    ):
        self._lib = binding.load_library(library)
        self._backends = list(default_host_backends() if host_backends is None else host_backends)
        self._callbacks = [_Callbacks(backend) for backend in self._backends]
        table = (binding.HostBackend * max(1, len(self._callbacks)))()
        for slot, callbacks in zip(table, self._callbacks):
            slot.id = callbacks.backend.backend_id.encode()
            slot.init = callbacks.init
            slot.execute = callbacks.execute
        options = binding.LoadOptions(method.encode(), npu.encode(), 0, 0, table, len(self._callbacks))
        self._pte = bytes(pte)
        handle = ctypes.c_void_p()
        self._check(self._lib.pte_host_program_load(self._pte, len(self._pte), ctypes.byref(options), ctypes.byref(handle),
                                                    *self._error()))
        self._handle = handle
        self.inputs = [self._describe(self._lib.pte_host_program_input, i, "input") for i in range(self._count("input"))]
        self.outputs = [self._describe(self._lib.pte_host_program_output, i, "output") for i in range(self._count("output"))]

    def __enter__(self) -> Program:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if getattr(self, "_handle", None):
            self._lib.pte_host_program_free(self._handle)
            self._handle = None
        for backend in getattr(self, "_backends", []):
            backend.close()

    def __del__(self) -> None:
        self.close()

    @property
    def npu(self) -> str | None:
        """The NPU configuration Ethos-U delegates last ran on ("Ethos-U55-128"), None when none ran."""
        name = self._lib.pte_host_program_npu(self._handle)
        return name.decode() if name else None

    def run(self, inputs: Sequence[object]) -> list[np.ndarray]:
        """Runs the method once on ``inputs`` (numpy arrays or torch tensors, in order); returns copies of the outputs."""
        if len(inputs) != len(self.inputs):
            raise ValueError(f"the method takes {len(self.inputs)} inputs, {len(inputs)} given")
        for index, (value, spec) in enumerate(zip(inputs, self.inputs)):
            array = _as_numpy(value)
            if array.dtype != spec.dtype or array.shape != spec.shape:
                raise ValueError(
                    f"input {index} is {array.dtype}{list(array.shape)}; the method wants {spec.dtype}{list(spec.shape)}"
                    f" (convert with .astype/.reshape, or export the model with this shape)"
                )
            self._check(self._lib.pte_host_program_set_input(self._handle, index, array.ctypes.data, array.nbytes,
                                                             *self._error()))
        self._check(self._lib.pte_host_program_execute(self._handle, *self._error()))
        outputs = []
        for index, spec in enumerate(self.outputs):
            view = binding.TensorView()
            self._check(self._lib.pte_host_program_output(self._handle, index, ctypes.byref(view), *self._error()))
            outputs.append(_view_array(view, spec).copy())
        return outputs

    def _count(self, kind: str) -> int:
        return getattr(self._lib, f"pte_host_program_{kind}_count")(self._handle)

    def _describe(self, function, index: int, kind: str) -> TensorSpec:
        view = binding.TensorView()
        self._check(function(self._handle, index, ctypes.byref(view), *self._error()))
        return _spec(view, f"{kind} {index}")

    def _error(self) -> tuple[ctypes.Array, int]:
        self._last_error = ctypes.create_string_buffer(binding.ERROR_CAPACITY)
        return self._last_error, binding.ERROR_CAPACITY

    def _check(self, code: int) -> None:
        if code != 0:
            raise RuntimeRunError(code, self._last_error.value.decode(errors="replace"))


def load(path: str | Path, method: str = "forward", npu: str = "model") -> Program:
    """Loads ``path`` (a .pte) into the runtime: ``load(path).run([x])``."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"{path}: no such .pte file")
    return Program(path.read_bytes(), method=method, npu=npu)
