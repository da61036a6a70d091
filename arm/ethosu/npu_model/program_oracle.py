"""Inputs and expected outputs for a whole delegated .pte, computed on the host without our runtime.

    python -m arm.ethosu.npu_model.program_oracle --pte tiny_conv_u55.pte --output-dir out/

writes ``out/input<i>.npy`` (seeded uniform floats in [-1, 1)) and ``out/expected<i>.npy``: the program
run instruction by instruction, its CPU ops (quantize/dequantize) in numpy with the float32 arithmetic of
ExecuTorch's portable kernels (a float32 inverse scale, ties to even), and each delegate (Ethos-U, VGF or
TOSA) with the TOSA reference model on the partition's TOSA graph (arm_pte writes it beside the .pte).
Firmware that runs the program with the NPU model, and the host runtime with Ethos-U delegates on the NPU
model or VGF delegates on lavapipe, must reproduce these outputs exactly (runtime/firmware,
runtime/runner, arm/run.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Callable

import numpy as np
from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.schema import Bool, DelegateCall, Double, ExecutionPlan, Int, KernelCall, Null, ScalarType, Tensor

from arm.compile_spec import EthosUCompileSpec, TosaCompileSpec, VgfCompileSpec
from arm.ethosu.npu_model.oracle import reference_outputs
from arm.ethosu.npu_model.pte_delegates import partition_tosa_graphs

_NUMPY_TYPES = {ScalarType.CHAR: np.int8, ScalarType.SHORT: np.int16, ScalarType.INT: np.int32, ScalarType.BYTE: np.uint8}

# An out-variant kernel's leading arguments (a .pte's KernelCall ends with the out tensor and the
# returned value, which is the same tensor) -> its result.
CpuKernel = Callable[[list[object]], np.ndarray]


def _quantize(args: list[object]) -> np.ndarray:
    value, scale, zero_point, quant_min, quant_max, dtype = args[:6]
    inverse_scale = np.float32(1) / np.float32(scale)
    rounded = np.rint((np.asarray(value, np.float32) * inverse_scale).astype(np.float32)).astype(np.int64)
    return np.clip(rounded + zero_point, quant_min, quant_max).astype(_NUMPY_TYPES[ScalarType(dtype)])


def _dequantize(args: list[object]) -> np.ndarray:
    value, scale, zero_point = args[:3]
    return ((np.asarray(value).astype(np.int32) - zero_point).astype(np.float32) * np.float32(scale)).astype(np.float32)


# Every one of these delegates is a partition lowered to TOSA, whose graph arm_pte writes beside the .pte.
_TOSA_LOWERED_BACKENDS = {EthosUCompileSpec.backend_id, VgfCompileSpec.backend_id, TosaCompileSpec.backend_id}

CPU_KERNELS: dict[str, CpuKernel] = {
    "quantized_decomposed::quantize_per_tensor.out": _quantize,
    "quantized_decomposed::dequantize_per_tensor.out": _dequantize,
}


class ProgramOracle:
    """Runs the ``forward`` plan of a .pte whose CPU ops are all in CPU_KERNELS."""

    def __init__(self, pte_path: Path):
        self.plan: ExecutionPlan = deserialize_pte_binary(pte_path.read_bytes()).program.execution_plan[0]
        ids = [delegate.id for delegate in self.plan.delegates]
        if any(backend not in _TOSA_LOWERED_BACKENDS for backend in ids):
            raise ValueError(f"{pte_path.name}: only {sorted(_TOSA_LOWERED_BACKENDS)} delegates can be evaluated, got {ids}")
        self.graphs = partition_tosa_graphs(pte_path, len(ids))

    def input_shapes(self) -> list[tuple[int, ...]]:
        return [tuple(self.plan.values[index].val.sizes) for index in self.plan.inputs]

    def run(self, inputs: list[np.ndarray]) -> list[np.ndarray]:
        values: dict[int, object] = dict(zip(self.plan.inputs, inputs, strict=True))
        delegate_number = 0
        for instruction in self.plan.chains[0].instructions:
            call = instruction.instr_args
            if isinstance(call, KernelCall):
                operator = self.plan.operators[call.op_index]
                name = f"{operator.name}.{operator.overload}"
                if name not in CPU_KERNELS:
                    raise NotImplementedError(f"CPU op {name} has no host kernel here; add it to CPU_KERNELS")
                args = [self._value(values, index) for index in call.args[:-2]]
                values[call.args[-1]] = CPU_KERNELS[name](args)
            elif isinstance(call, DelegateCall):
                graph = self.graphs[delegate_number]
                delegate_number += 1
                count = len(graph.inputs)
                tosa_inputs = [np.asarray(values[index]).reshape(io.shape) for index, io in zip(call.args[:count], graph.inputs)]
                for index, output in zip(call.args[count:], reference_outputs(graph, tosa_inputs), strict=True):
                    values[index] = np.ascontiguousarray(output).reshape(self.plan.values[index].val.sizes)
            else:
                raise NotImplementedError(f"instruction {type(call).__name__} is not evaluated here")
        return [np.asarray(values[index]) for index in self.plan.outputs]

    def _value(self, values: dict[int, object], index: int) -> object:
        if index in values:
            return values[index]
        value = self.plan.values[index].val
        if isinstance(value, Int):  # also the dtype arguments, ScalarTypes stored as Ints
            return value.int_val
        if isinstance(value, Double):
            return value.double_val
        if isinstance(value, Bool):
            return value.bool_val
        if isinstance(value, Null):
            return None
        kind = "a tensor no instruction has written yet" if isinstance(value, Tensor) else type(value).__name__
        raise NotImplementedError(f"value {index} is {kind}; the oracle evaluates no such argument")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pte", type=Path, required=True, help="a .pte built by arm_pte, its .tosa beside it")
    parser.add_argument("--output-dir", type=Path, required=True)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    oracle = ProgramOracle(args.pte)
    rng = np.random.default_rng(args.seed)
    inputs = [rng.uniform(-1, 1, shape).astype(np.float32) for shape in oracle.input_shapes()]
    args.output_dir.mkdir(parents=True, exist_ok=True)
    for index, value in enumerate(inputs):
        np.save(args.output_dir / f"input{index}.npy", value)
    for index, value in enumerate(oracle.run(inputs)):
        np.save(args.output_dir / f"expected{index}.npy", np.ascontiguousarray(value))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
