"""Reads what a .pte runs where: delegate calls, CPU kernels, and the int8 boundary of a lone delegate.

The .pte is the product both flows ship, so partition counts and CPU operators are read from it
rather than from either flow's own report.
"""

from __future__ import annotations

import collections
import dataclasses

from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.scalar_type import ScalarType
from executorch.exir.schema import DelegateCall, ExecutionPlan, KernelCall, Tensor

_QUANTIZE = "quantized_decomposed::quantize_per_tensor"
_ID_CAST = "dim_order_ops::_to_dim_order_copy"
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
            one delegate, dequantize each output", the grids at that boundary; otherwise ``None``. An
            integer input (token ids) that goes into the delegate as it is, or through a dtype cast alone
            (int64 ids to the delegate's int32), has no grid: ``None`` in its place.
    """

    partitions: collections.Counter[str]
    cpu_ops: collections.Counter[str]
    input_quantization: tuple[Quantization | None, ...] | None
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
        instruction.instr_args
        for chain in plan.chains
        for instruction in chain.instructions
        if isinstance(instruction.instr_args, DelegateCall)
    ]
    cpu_ops = collections.Counter(name for name, _ in kernels if name not in (_QUANTIZE, _DEQUANTIZE))
    id_casts = _id_casts(plan, kernels)
    one_delegate = len(delegate_calls) == 1 and sum(cpu_ops.values()) == len(id_casts)
    boundary = _boundary(plan, kernels, delegate_calls[0], id_casts) if one_delegate else None
    return PteProgram(
        partitions=collections.Counter(plan.delegates[call.delegate_index].id for call in delegate_calls),
        cpu_ops=cpu_ops,
        input_quantization=boundary[0] if boundary else None,
        output_quantization=boundary[1] if boundary else None,
    )


def _operator_name(plan: ExecutionPlan, call: KernelCall) -> str:
    return plan.operators[call.op_index].name


_INTEGER_TYPES = (ScalarType.CHAR, ScalarType.SHORT, ScalarType.INT, ScalarType.LONG)


def _id_casts(plan: ExecutionPlan, kernels: list[tuple[str, list[int]]]) -> dict[int, int]:
    """Integer program input -> the output of the dtype cast the CPU runs on it (``_to_dim_order_copy``)."""
    # _to_dim_order_copy.out(input, non_blocking, dim_order, out)
    return {
        args[0]: args[-1]
        for name, args in kernels
        if name == _ID_CAST and args[0] in plan.inputs and _is_integer_tensor(plan, args[0])
    }


def _boundary(
    plan: ExecutionPlan, kernels: list[tuple[str, list[int]]], delegate: DelegateCall, id_casts: dict[int, int]
) -> tuple[tuple[Quantization | None, ...], tuple[Quantization, ...]] | None:
    # quantize_per_tensor.out(input, scale, zero_point, qmin, qmax, dtype, out);
    # dequantize_per_tensor.out(input, scale, zero_point, qmin, qmax, dtype, out_dtype, out).
    quantize_of = {args[0]: _grid(plan, args) for name, args in kernels if name == _QUANTIZE}
    dequantize_into = {args[-1]: _grid(plan, args) for name, args in kernels if name == _DEQUANTIZE}
    as_is = {
        i
        for i in plan.inputs
        if _is_integer_tensor(plan, i) and (i in delegate.args or id_casts.get(i) in delegate.args)
    }
    inputs_known = all(i in quantize_of or i in as_is for i in plan.inputs)
    if not inputs_known or not all(o in dequantize_into for o in plan.outputs):
        return None
    return tuple(quantize_of.get(i) for i in plan.inputs), tuple(dequantize_into[o] for o in plan.outputs)


def _is_integer_tensor(plan: ExecutionPlan, index: int) -> bool:
    value = plan.values[index].val
    return isinstance(value, Tensor) and value.scalar_type in _INTEGER_TYPES


def _grid(plan: ExecutionPlan, args: list[int]) -> Quantization:
    return Quantization(scale=float(plan.values[args[1]].val.double_val), zero_point=plan.values[args[2]].val.int_val)
