"""look_up_quantized_rows: an embedding the CPU runs reads its int8 table, and gives what the quantized
torch model gives, on ExecuTorch's host runtime (its portable embedding kernel on int8 rows)."""

import numpy as np
import pytest
import torch
from executorch.exir._serialize._program import deserialize_pte_binary
from executorch.exir.schema import KernelCall, ScalarType, Tensor
from executorch.runtime import Runtime

from arm.flow import EthosUOptions, FlowResult, resolve_target, run_flow
from arm.model_spec import ModelSpec

torch.set_num_threads(1)

# A table the U55's one-hot lookup would stream whole from flash for more cycles than the CPU's copy of
# 12 rows costs (arm/ops/embedding.py _LookupCosts), so the lookup stays on the CPU.
_ROWS, _WIDTH, _IDS = 256, 16, 12


class _Lookup(torch.nn.Module):
    """An embedding alone: on the U55 nothing is delegated, so the host runtime runs all of it."""

    def __init__(self) -> None:
        super().__init__()
        self.table = torch.nn.Embedding(_ROWS, _WIDTH)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.table(ids)


def _samples() -> list[tuple[torch.Tensor]]:
    generator = torch.Generator().manual_seed(0)
    return [(torch.randint(0, _ROWS, (1, _IDS), generator=generator, dtype=torch.int32),) for _ in range(3)]


@pytest.fixture(scope="module")
def result() -> FlowResult:
    torch.manual_seed(0)
    samples = _samples()
    return run_flow(ModelSpec(_Lookup().eval(), samples[0], samples), resolve_target("ethos-u55-128"), progress=False)


def _kernel_calls(pte: bytes) -> list[tuple[str, list[Tensor]]]:
    plan = deserialize_pte_binary(pte).program.execution_plan[0]
    calls = []
    for chain in plan.chains:
        for instruction in chain.instructions:
            if isinstance(instruction.instr_args, KernelCall):
                operator = plan.operators[instruction.instr_args.op_index].name
                tensors = [plan.values[i].val for i in instruction.instr_args.args]
                calls.append((operator, [value for value in tensors if isinstance(value, Tensor)]))
    return calls


def test_the_lookup_reads_the_int8_table_and_nothing_dequantizes_it(result: FlowResult) -> None:
    calls = _kernel_calls(result.pte)
    assert [operator for operator, _ in calls] == ["aten::embedding", "quantized_decomposed::dequantize_per_tensor"]
    table, rows = calls[0][1][0], calls[0][1][-1]  # weight first, out last
    assert (table.scalar_type, list(table.sizes)) == (ScalarType.CHAR, [_ROWS, _WIDTH])
    assert (rows.scalar_type, list(rows.sizes)) == (ScalarType.CHAR, [1, _IDS, _WIDTH])


def test_the_program_gives_the_quantized_models_rows(result: FlowResult) -> None:
    method = Runtime.get().load_program(result.pte).load_method("forward")
    for (ids,) in _samples():
        (rows,) = method.execute([ids])
        with torch.no_grad():
            expected = result.quantized_module(ids)
        np.testing.assert_array_equal(rows.numpy(), expected.numpy())


def test_lookups_npu_puts_the_same_lookup_on_the_npu() -> None:
    """``lookups="npu"`` (arm.compile --lookups npu) overrides the cost rule: one delegate, no CPU kernel."""
    samples = _samples()
    torch.manual_seed(0)
    target = resolve_target("ethos-u55-128", EthosUOptions(lookups="npu"))
    assert target.compile_spec.tosa_spec.npu_lookups
    result = run_flow(ModelSpec(_Lookup().eval(), samples[0], samples), target, progress=False)
    assert [name for name, _ in result.rejected if "embedding" in name] == []
    assert "aten::embedding" not in [operator for operator, _ in _kernel_calls(result.pte)]
    assert result.delegate_ids == ("EthosUBackend",)
