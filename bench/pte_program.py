"""Reads what a .pte runs where: delegate calls, CPU kernels, and the int8 boundary of a lone delegate.

The .pte is the product both flows ship, so partition counts and CPU operators are read from it
rather than from either flow's own report.
"""

from __future__ import annotations

import collections
import dataclasses

from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.schema import DelegateCall, ExecutionPlan, KernelCall

_QUANTIZE = "quantized_decomposed::quantize_per_tensor"
_DEQUANTIZE = "quantized_decomposed::dequantize_per_tensor"


@dataclasses.dataclass(frozen=True)
class Quantization:
    """An int8 grid: real = scale * (q - zero_point)."""

    scale: float
    zero_point: int


@dataclasses.dataclass(frozen=True)
class PteProgram:
    """The ``forward`` plan of a .pte, as far as the comparison needs it.

    Attributes:
        partitions: delegate calls, by backend id.
        cpu_ops: kernels the CPU runs besides quantize/dequantize, with how often each is called.
        input_quantization, output_quantization: when the plan is exactly "quantize each input, call
            one delegate, dequantize each output", the grids at that boundary; otherwise ``None``.
    """

    partitions: collections.Counter[str]
    cpu_ops: collections.Counter[str]
    input_quantization: tuple[Quantization, ...] | None
    output_quantization: tuple[Quantization, ...] | None

    @property
    def is_one_delegate(self) -> bool:
        return self.input_quantization is not None


def read_pte(pte: bytes) -> PteProgram:
    plan = deserialize_pte_binary(pte).program.execution_plan[0]
    kernels = [
        (_operator_name(plan, instruction.instr_args), instruction.instr_args.args)
        for chain in plan.chains
        for instruction in chain.instructions
        if isinstance(instruction.instr_args, KernelCall)
    ]
    delegate_calls = [
        plan.delegates[instruction.instr_args.delegate_index].id
        for chain in plan.chains
        for instruction in chain.instructions
        if isinstance(instruction.instr_args, DelegateCall)
    ]
    cpu_ops = collections.Counter(name for name, _ in kernels if name not in (_QUANTIZE, _DEQUANTIZE))
    boundary = None if cpu_ops or len(delegate_calls) != 1 else _boundary(plan, kernels)
    return PteProgram(
        partitions=collections.Counter(delegate_calls),
        cpu_ops=cpu_ops,
        input_quantization=boundary[0] if boundary else None,
        output_quantization=boundary[1] if boundary else None,
    )


def _operator_name(plan: ExecutionPlan, call: KernelCall) -> str:
    return plan.operators[call.op_index].name


def _boundary(
    plan: ExecutionPlan, kernels: list[tuple[str, list[int]]]
) -> tuple[tuple[Quantization, ...], tuple[Quantization, ...]] | None:
    # quantize_per_tensor.out(input, scale, zero_point, qmin, qmax, dtype, out);
    # dequantize_per_tensor.out(input, scale, zero_point, qmin, qmax, dtype, out_dtype, out).
    quantize_of = {args[0]: _grid(plan, args) for name, args in kernels if name == _QUANTIZE}
    dequantize_into = {args[-1]: _grid(plan, args) for name, args in kernels if name == _DEQUANTIZE}
    if not all(i in quantize_of for i in plan.inputs) or not all(o in dequantize_into for o in plan.outputs):
        return None
    return tuple(quantize_of[i] for i in plan.inputs), tuple(dequantize_into[o] for o in plan.outputs)


def _grid(plan: ExecutionPlan, args: list[int]) -> Quantization:
    return Quantization(scale=float(plan.values[args[1]].val.double_val), zero_point=plan.values[args[2]].val.int_val)
