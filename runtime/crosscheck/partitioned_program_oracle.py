"""Expected outputs of a partly delegated .pte, computed without our runtime.

    python -m runtime.crosscheck.partitioned_program_oracle --pte llama_u85_pte.pte --output-dir out/

writes ``out/input<i>.npy`` (seeded: floats uniform in [-1, 1), integers uniform in [0, --int-high)) and
``out/expected<i>.npy``. The program's CPU instructions run on ExecuTorch's own host runtime (the
executorch wheel's kernels, the oracle our CPU kernels are checked against everywhere else) and each
delegate runs on the TOSA reference model with the partition's TOSA graph (arm_pte writes it beside the
.pte). No part of our runtime takes part.

``--ethos-u-delegates npu_model`` runs Ethos-U delegates on the functional NPU model instead (Vela's
command stream, for the NPU configuration the delegate's compile spec names): for programs whose command
stream is known to depart from its TOSA graph (a Vela issue the op and zoo tests assert separately), so
that the rest of the program is still checked bit for bit. The NPU model is then the one part of ours
taking part.

How: the instructions split into runs of CPU kernel calls and delegate calls. Each CPU run becomes a
program of its own: the same values, constants, operators and memory plan, with only that run's kernel
calls and no delegates, whose inputs and outputs are every planned tensor the run touches. A byte image
of the planned buffers carries data between runs: a run's inputs are read from the image, its outputs
written back to it, and each delegate reads and writes its tensors there too. Working on memory rather
than on value ids keeps the aliases memory planning makes (a view sharing its source's bytes under
another value id) as they are in the program.
"""

from __future__ import annotations

import argparse
import dataclasses
import pathlib
import sys
from typing import Sequence

import ml_dtypes
import numpy as np
from executorch.exir._serialize._program import PTEFile, deserialize_pte_binary, serialize_pte_binary
from executorch.exir.schema import Chain, DelegateCall, ExecutionPlan, Instruction, KernelCall, Tensor, TensorList

_NUMPY_TYPES = {
    0: np.uint8,  # ScalarType.BYTE
    1: np.int8,
    2: np.int16,
    3: np.int32,
    4: np.int64,
    5: np.float16,  # ScalarType.HALF
    6: np.float32,
    7: np.float64,
    11: np.bool_,
    15: ml_dtypes.bfloat16,  # ScalarType.BFLOAT16: numpy knows it through ml_dtypes, torch.from_numpy does not
    23: ml_dtypes.float8_e5m2,  # ScalarType.FLOAT8E5M2, likewise
    24: ml_dtypes.float8_e4m3fn,  # ScalarType.FLOAT8E4M3FN
}
_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
# Types torch.from_numpy and Tensor.numpy() do not take: they cross as the integers of their bits.
_THROUGH_BITS = {
    _BFLOAT16: np.int16,
    np.dtype(ml_dtypes.float8_e5m2): np.uint8,
    np.dtype(ml_dtypes.float8_e4m3fn): np.uint8,
}

# Ids of delegates lowered to a TOSA graph, whose .tosa arm_pte writes beside the .pte.
_TOSA_LOWERED_BACKENDS = ("EthosUBackend", "TOSABackend", "VgfBackend")


class OracleError(RuntimeError):
    """The program holds something this oracle cannot evaluate; the message names it."""


@dataclasses.dataclass(frozen=True)
class PlannedTensor:
    """Where a planned tensor's bytes live and how to read them."""

    value: int
    dtype: np.dtype
    sizes: tuple[int, ...]
    dim_order: tuple[int, ...]
    memory_id: int
    offset: int

    @property
    def nbytes(self) -> int:
        return int(np.prod(self.sizes, dtype=np.int64)) * self.dtype.itemsize

    @property
    def physical_sizes(self) -> tuple[int, ...]:
        return tuple(self.sizes[d] for d in self.dim_order)


def planned_tensor(plan: ExecutionPlan, value: int) -> PlannedTensor | None:
    """The tensor's place in planned memory; None for constants and non-tensors."""
    tensor = plan.values[value].val
    if not isinstance(tensor, Tensor) or tensor.data_buffer_idx > 0:
        return None
    if tensor.allocation_info is None:
        raise OracleError(f"value {value} is a tensor without planned memory; the oracle needs every tensor planned")
    if int(tensor.scalar_type) not in _NUMPY_TYPES:
        raise OracleError(f"value {value} has scalar type {tensor.scalar_type!r}, which the oracle does not read")
    info = tensor.allocation_info
    return PlannedTensor(
        value=value,
        dtype=np.dtype(_NUMPY_TYPES[int(tensor.scalar_type)]),
        sizes=tuple(tensor.sizes),
        dim_order=tuple(tensor.dim_order),
        memory_id=info.memory_id,
        offset=info.memory_offset_low | (info.memory_offset_high << 32),
    )


class MemoryImage:
    """The program's planned buffers as bytes; tensors read and written in their logical order."""

    def __init__(self, buffer_sizes: Sequence[int]):
        self.buffers = [np.zeros(size, np.uint8) for size in buffer_sizes]

    def read(self, tensor: PlannedTensor) -> np.ndarray:
        raw = self.buffers[tensor.memory_id][tensor.offset : tensor.offset + tensor.nbytes]
        physical = raw.view(tensor.dtype).reshape(tensor.physical_sizes)
        # copy(order="C"), not np.ascontiguousarray, which makes a 0-d tensor 1-d (and ExecuTorch's runtime then
        # refuses it as the input of a 0-d value: "Attempted to change the tensor rank").
        return np.transpose(physical, np.argsort(tensor.dim_order)).copy(order="C")

    def write(self, tensor: PlannedTensor, array: np.ndarray) -> None:
        logical = np.asarray(array, dtype=tensor.dtype).reshape(tensor.sizes)
        physical = np.ascontiguousarray(np.transpose(logical, tensor.dim_order))
        self.buffers[tensor.memory_id][tensor.offset : tensor.offset + tensor.nbytes] = physical.reshape(-1).view(np.uint8)


def _touched_values(plan: ExecutionPlan, call: KernelCall) -> list[int]:
    """Every value a kernel call names, the items of its tensor lists included."""
    values = []
    for index in call.args:
        values.append(index)
        if isinstance(plan.values[index].val, TensorList):
            values.extend(plan.values[index].val.items)
    return values


@dataclasses.dataclass(frozen=True)
class CpuRun:
    """Consecutive kernel calls, run as one program on ExecuTorch's host runtime."""

    program: bytes
    tensors: tuple[PlannedTensor, ...]  # the run program's inputs and, in the same order, its outputs


@dataclasses.dataclass(frozen=True)
class DelegateRun:
    delegate: int  # the delegate's position among the plan's delegate calls (its partition number)
    backend: str
    blob: bytes
    compile_specs: dict[str, str]
    inputs: tuple[PlannedTensor, ...]
    outputs: tuple[PlannedTensor, ...] = ()


def _cpu_run(pte: PTEFile, plan: ExecutionPlan, calls: list[KernelCall]) -> CpuRun:
    touched = sorted({v for call in calls for v in _touched_values(plan, call)})
    tensors = tuple(t for t in (planned_tensor(plan, v) for v in touched) if t is not None)
    ids = [t.value for t in tensors]
    run_plan = dataclasses.replace(
        plan,
        inputs=ids,
        outputs=ids,
        chains=[Chain(inputs=[], outputs=[], instructions=[Instruction(call) for call in calls], stacktrace=None)],
        delegates=[],
    )
    program = dataclasses.replace(pte.program, execution_plan=[run_plan], backend_delegate_data=[])
    data = serialize_pte_binary(dataclasses.replace(pte, program=program), extract_delegate_segments=True)
    return CpuRun(bytes(data), tensors)


def split_program(pte_bytes: bytes) -> tuple[ExecutionPlan, list[CpuRun | DelegateRun]]:
    pte = deserialize_pte_binary(pte_bytes)
    plan = pte.program.execution_plan[0]
    if len(plan.chains) != 1:
        raise OracleError(f"the plan has {len(plan.chains)} chains; the oracle evaluates one")
    runs: list[CpuRun | DelegateRun] = []
    pending: list[KernelCall] = []
    delegates = 0
    for instruction in plan.chains[0].instructions:
        call = instruction.instr_args
        if isinstance(call, KernelCall):
            pending.append(call)
            continue
        if not isinstance(call, DelegateCall):
            raise OracleError(f"instruction {type(call).__name__} is not evaluated here (only kernel and delegate calls)")
        backend = plan.delegates[call.delegate_index].id
        if backend not in _TOSA_LOWERED_BACKENDS:
            raise OracleError(f"delegate {backend} has no TOSA graph; the oracle evaluates {_TOSA_LOWERED_BACKENDS}")
        if pending:
            runs.append(_cpu_run(pte, plan, pending))
            pending = []
        tensors = [planned_tensor(plan, v) for v in call.args]
        delegate = plan.delegates[call.delegate_index]
        specs = {spec.key: spec.value.decode(errors="replace") for spec in delegate.compile_specs}
        blob = pte.program.backend_delegate_data[delegate.processed.index].data
        # All tensors count as inputs until the TOSA graph says how many the delegate takes.
        runs.append(DelegateRun(delegates, backend, bytes(blob), specs, tuple(tensors)))
        delegates += 1
    if pending:
        runs.append(_cpu_run(pte, plan, pending))
    return plan, runs


class PartitionedProgramOracle:
    """Runs a .pte's ``forward``: CPU runs on ExecuTorch's host runtime, delegates on the TOSA reference model."""

    def __init__(self, pte_path: pathlib.Path, ethos_u_on_npu_model: bool = False):
        from arm.ethosu.npu_model.pte_delegates import partition_tosa_graphs

        plan, runs = split_program(pte_path.read_bytes())
        delegate_count = sum(isinstance(run, DelegateRun) for run in runs)
        self._set_up(plan, runs, partition_tosa_graphs(pte_path, delegate_count), ethos_u_on_npu_model)

    def _set_up(
        self, plan: ExecutionPlan, runs: list[CpuRun | DelegateRun], graphs: Sequence, ethos_u_on_npu_model: bool
    ) -> None:
        """Binds each delegate run to its TOSA graph (``graphs`` in delegate order): its arguments are the
        graph's inputs, then its outputs."""
        self.ethos_u_on_npu_model = ethos_u_on_npu_model
        self._npu_models: dict[str, object] = {}
        self.plan = plan
        self.graphs = list(graphs)
        self.runs: list[CpuRun | DelegateRun] = []
        for run in runs:
            if isinstance(run, DelegateRun):
                count = len(self.graphs[run.delegate].inputs)
                run = dataclasses.replace(run, inputs=run.inputs[:count], outputs=run.inputs[count:])
                if any(t is None for t in run.inputs + run.outputs):
                    raise OracleError(f"delegate {run.delegate} takes a constant or non-tensor argument")
            self.runs.append(run)
        self.inputs = [planned_tensor(self.plan, v) for v in self.plan.inputs]
        self.outputs = [planned_tensor(self.plan, v) for v in self.plan.outputs]
        if any(t is None for t in self.inputs + self.outputs):
            raise OracleError("a program input or output is not a planned tensor")
        self._runtime = None

    @property
    def cpu_run_count(self) -> int:
        return sum(isinstance(run, CpuRun) for run in self.runs)

    def run(self, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
        if len(inputs) != len(self.inputs):
            raise OracleError(f"the program takes {len(self.inputs)} inputs, {len(inputs)} given")
        image = MemoryImage(self.plan.non_const_buffer_sizes)
        for tensor, value in zip(self.inputs, inputs):
            image.write(tensor, value)
        for run in self.runs:
            if isinstance(run, CpuRun):
                self._run_on_executorch(run, image)
            elif self.ethos_u_on_npu_model and run.backend == "EthosUBackend":
                self._run_on_npu_model(run, image)
            else:
                self._run_on_reference_model(run, image)
        return [image.read(tensor) for tensor in self.outputs]

    def _run_on_executorch(self, run: CpuRun, image: MemoryImage) -> None:
        import torch

        method = self._executorch().load_program(run.program).load_method("forward")
        # Inputs are copied into planned memory in order; where two touched tensors share bytes, both carry
        # the image's same bytes, so the order does not matter.
        outputs = method.execute([_to_torch(image.read(tensor)) for tensor in run.tensors])
        # Every output reads the memory's final state, so writing them back in any order gives that state.
        for tensor, output in zip(run.tensors, outputs, strict=True):
            image.write(tensor, _to_numpy(output))

    def _run_on_reference_model(self, run: DelegateRun, image: MemoryImage) -> None:
        from arm.ethosu.npu_model.oracle import reference_outputs

        graph = self.graphs[run.delegate]
        inputs = [image.read(tensor).reshape(io.shape).astype(io.dtype) for tensor, io in zip(run.inputs, graph.inputs)]
        for tensor, output in zip(run.outputs, reference_outputs(graph, inputs), strict=True):
            image.write(tensor, output)

    def _run_on_npu_model(self, run: DelegateRun, image: MemoryImage) -> None:
        from arm.ethosu.npu_model.binding import NpuModel
        from arm.ethosu.npu_model.oracle import npu_outputs

        target = run.compile_specs.get("target")
        if not target:
            raise OracleError(f"Ethos-U delegate {run.delegate} names no target in its compile specs")
        model = self._npu_models.setdefault(target, NpuModel(target))
        graph = self.graphs[run.delegate]
        inputs = [image.read(tensor).reshape(io.shape).astype(io.dtype) for tensor, io in zip(run.inputs, graph.inputs)]
        for tensor, output in zip(run.outputs, npu_outputs(graph, run.blob, inputs, model), strict=True):
            image.write(tensor, output)

    def _executorch(self):
        if self._runtime is None:
            from executorch.runtime import Runtime

            from runtime.crosscheck.executorch_outputs import load_quantized_kernels

            self._runtime = Runtime.get()
            load_quantized_kernels()
        return self._runtime


def _to_torch(array: np.ndarray):
    """A torch tensor of the array's bytes (bfloat16 and float8 through their bits: torch.from_numpy has neither)."""
    import torch

    if array.dtype in _THROUGH_BITS:
        torch_dtype = {np.dtype(ml_dtypes.float8_e5m2): torch.float8_e5m2, np.dtype(ml_dtypes.float8_e4m3fn): torch.float8_e4m3fn}
        return torch.from_numpy(array.view(_THROUGH_BITS[array.dtype])).view(torch_dtype.get(array.dtype, torch.bfloat16))
    return torch.from_numpy(array)


def _to_numpy(tensor) -> np.ndarray:
    import torch

    if tensor.dtype == torch.bfloat16:
        return tensor.contiguous().view(torch.int16).numpy().view(_BFLOAT16)
    if tensor.dtype in (torch.float8_e5m2, torch.float8_e4m3fn):
        numpy_type = ml_dtypes.float8_e5m2 if tensor.dtype == torch.float8_e5m2 else ml_dtypes.float8_e4m3fn
        return tensor.contiguous().view(torch.uint8).numpy().view(numpy_type)
    return tensor.numpy()


def seeded_inputs(tensors: Sequence[PlannedTensor], seed: int, int_high: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    inputs = []
    for tensor in tensors:
        if np.issubdtype(tensor.dtype, np.floating) or tensor.dtype == _BFLOAT16:
            inputs.append(rng.uniform(-1, 1, tensor.sizes).astype(tensor.dtype))
        elif tensor.dtype == np.bool_:
            inputs.append(rng.integers(0, 2, tensor.sizes).astype(np.bool_))
        else:
            inputs.append(rng.integers(0, int_high, tensor.sizes).astype(tensor.dtype))
    return inputs


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pte", type=pathlib.Path, required=True, help="a .pte built by arm_pte, its .tosa files beside it")
    parser.add_argument("--output-dir", type=pathlib.Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--int-high", type=int, default=16, help="integer inputs (token ids) are drawn from [0, INT_HIGH): keep it below the vocabulary"
    )
    parser.add_argument(
        "--ethos-u-delegates",
        choices=("tosa_reference", "npu_model"),
        default="tosa_reference",
        help="what runs Ethos-U delegates: the TOSA reference model (default) or the functional NPU model",
    )
    args = parser.parse_args(argv)
    oracle = PartitionedProgramOracle(args.pte, ethos_u_on_npu_model=args.ethos_u_delegates == "npu_model")
    inputs = seeded_inputs(oracle.inputs, args.seed, args.int_high)
    args.output_dir.mkdir(parents=True, exist_ok=True)
    for index, value in enumerate(inputs):
        np.save(args.output_dir / f"input{index}.npy", value)
    for index, value in enumerate(oracle.run(inputs)):
        np.save(args.output_dir / f"expected{index}.npy", np.ascontiguousarray(value))
    delegates_on = "the NPU model" if oracle.ethos_u_on_npu_model else "the TOSA reference model"
    print(f"{args.pte.name}: {oracle.cpu_run_count} CPU runs on ExecuTorch's host runtime, {len(oracle.graphs)} delegates on {delegates_on}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
