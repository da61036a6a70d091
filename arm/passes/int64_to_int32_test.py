"""narrow_int64 on small edge programs: what it narrows, what it keeps, and that results do not change;
and token ids through the whole flow: only their int64 -> int32 cast stays on the CPU."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from executorch.exir import to_edge
from torch.export import ExportedProgram
from torch.fx import Node

from arm.flow import resolve_target, run_flow
from arm.model_spec import ModelSpec
from arm.passes.int64_to_int32 import narrow_int64
from runtime.crosscheck.partitioned_program_oracle import PartitionedProgramOracle

torch.set_num_threads(1)


class _Indexing(torch.nn.Module):
    """Every int64 source the pass handles: an input, a buffer, arange, and an int64 result."""

    def __init__(self, offsets: torch.Tensor):
        super().__init__()
        self.register_buffer("offsets", offsets)
        self.embedding = torch.nn.Embedding(10, 4)

    def forward(self, x: torch.Tensor, indices: torch.Tensor) -> tuple[torch.Tensor, ...]:
        gathered = self.embedding(indices) + x[self.offsets].sum() + x[torch.arange(2)].sum()
        return gathered, indices.argmax(), self.offsets * 2


def _edge(offsets: torch.Tensor) -> tuple[ExportedProgram, tuple[torch.Tensor, ...]]:
    with torch.random.fork_rng():
        torch.manual_seed(0)
        module = _Indexing(offsets).eval()
    inputs = (torch.randn(3, 4), torch.tensor([[1, 2], [3, 9]]))
    return to_edge(torch.export.export(module, inputs)).exported_program(), inputs


def _is_arm_op(node: Node) -> bool:
    """Stands in for the registry: pretend embedding, index, argmax and the float adds are delegated."""
    return any(name in str(node.target) for name in ("embedding", "index.Tensor", "argmax", "add.Tensor"))


def _dtypes(program: ExportedProgram, predicate) -> set[torch.dtype]:
    return {
        arg.meta["val"].dtype
        for node in program.graph.nodes
        if node.op == "call_function" and predicate(node)
        for arg in node.all_input_nodes + [node]
        if isinstance(arg.meta.get("val"), torch.Tensor) and not arg.meta["val"].is_floating_point()
    }


def test_narrows_inputs_constants_arange_and_results_without_changing_outputs() -> None:
    program, inputs = _edge(torch.tensor([0, 2, 1]))
    expected = program.module()(*inputs)

    report = narrow_int64(program, _is_arm_op)

    assert report.kept == []
    assert {"indices", "b_offsets"} <= set(report.narrowed)
    assert _dtypes(program, _is_arm_op) == {torch.int32}
    # The buffer's CPU reader (offsets * 2) still sees the int64 original.
    assert program.state_dict["offsets"].dtype == torch.int64
    assert not any(node.op == "call_function" and "arange" in str(node.target) for node in program.graph.nodes)
    for got, want in zip(program.module()(*inputs), expected, strict=True):
        assert got.dtype == want.dtype
        torch.testing.assert_close(got, want)


def test_constant_beyond_int32_stays_int64_with_a_reason() -> None:
    program, _ = _edge(torch.tensor([0, 2, 1 << 40]))
    report = narrow_int64(program, _is_arm_op)
    ((name, reason),) = report.kept
    assert name == "b_offsets"
    assert "does not fit TOSA's int32" in reason and "aten_index_tensor" in reason


def test_without_consumers_nothing_changes() -> None:
    program, _ = _edge(torch.tensor([0, 2, 1]))
    before = str(program.graph)
    assert narrow_int64(program, lambda node: False).narrowed == []
    assert str(program.graph) == before


class _ArgmaxAsInt32(torch.nn.Module):
    def forward(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        index = x.argmax(dim=1)
        return index.to(torch.int32), index * 2


def test_a_cast_of_the_narrowed_result_to_int32_goes() -> None:
    """argmax(x).to(int32): the narrowed argmax is the program's int32 output itself, with no cast
    through int64 and back; the other reader still gets the int64 result."""
    inputs = (torch.tensor([[0.5, 3.0, -1.0], [2.0, 0.0, 7.0]]),)
    program = to_edge(torch.export.export(_ArgmaxAsInt32(), inputs)).exported_program()
    expected = program.module()(*inputs)

    narrow_int64(program, lambda node: "argmax" in str(node.target))

    casts = [node for node in program.graph.nodes if "_to_dim_order_copy" in str(node.target)]
    assert [node.meta["val"].dtype for node in casts] == [torch.int64]  # the one back to int64, for the mul
    (argmax,) = [node for node in program.graph.nodes if "argmax" in str(node.target)]
    (output,) = program.graph.find_nodes(op="output")
    assert output.args[0][0] is argmax and argmax.meta["val"].dtype == torch.int32
    # Run eagerly, the edge argmax still returns int64 (the delegate's lowering writes the int32 its
    # value now says): the values are compared.
    for got, want in zip(program.module()(*inputs), expected, strict=True):
        torch.testing.assert_close(got.to(want.dtype), want)


class _PositionsWidened(torch.nn.Module):
    """RoBERTa's last step: int32 positions made int64 (``.long()``) and offset by the padding id."""

    def forward(self, positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        wide = positions.long()
        return wide + 2, wide * 3


def test_consumers_of_a_widening_cast_read_its_int32_input() -> None:
    inputs = (torch.tensor([[1, 2, 0, 3]], dtype=torch.int32),)
    program = to_edge(torch.export.export(_PositionsWidened(), inputs)).exported_program()
    expected = program.module()(*inputs)

    narrow_int64(program, lambda node: "add.Tensor" in str(node.target))

    (add,) = [node for node in program.graph.nodes if "add.Tensor" in str(node.target)]
    assert {arg.meta["val"].dtype for arg in add.all_input_nodes} == {torch.int32}
    assert add.args[0].op == "placeholder"  # the cast's input itself, no cast between
    (mul,) = [node for node in program.graph.nodes if "mul.Tensor" in str(node.target)]
    assert mul.args[0].meta["val"].dtype == torch.int64  # a CPU reader still gets the int64 cast
    for got, want in zip(program.module()(*inputs), expected, strict=True):
        torch.testing.assert_close(got.to(want.dtype), want)


class _TokenModel(torch.nn.Module):
    """GPT-2's way in: the int64 ids viewed as [batch, tokens], looked up, then a projection."""

    def __init__(self) -> None:
        super().__init__()
        self.table = torch.nn.Embedding(32, 16)
        self.head = torch.nn.Linear(16, 8)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        return self.head(self.table(ids.view(-1, ids.shape[-1])))


# What stays on the CPU per target: the ids' cast. The U55 and U85 look the 32x16 table up with their
# one-hot convolutions (no GATHER on either), cheaper than the CPU's copy of the rows.
_TOKEN_MODEL_CPU_NODES = {
    "tosa-INT": {"ids_int32"},
    "ethos-u85-256": {"ids_int32"},
    "ethos-u55-128": {"ids_int32"},
}


@pytest.mark.parametrize("target", list(_TOKEN_MODEL_CPU_NODES))
def test_token_ids_reach_the_partition_as_int32(target: str, tmp_path: Path) -> None:
    # The view read the int64 cast back and the embedding its int64 output, and the partition refused an
    # int32 tensor from the CPU as if it were a float: view and lookup stayed on the CPU (GPT-2). Now only
    # the ids' int64 -> int32 cast runs there; on the U55 and U85 the lookup is the one-hot convolution.
    with torch.random.fork_rng():
        torch.manual_seed(0)
        module = _TokenModel().eval()
    generator = torch.Generator().manual_seed(0)
    samples = [(torch.randint(0, 32, (1, 6), generator=generator),) for _ in range(4)]
    result = run_flow(ModelSpec(module, samples[0], samples), resolve_target(target), progress=False)

    assert result.delegate_ids == (result.target.compile_spec.backend_id,)
    assert set(result.cpu_compute_nodes) == _TOKEN_MODEL_CPU_NODES[target], result.rejected
    assert all(vela.cpu_ops == () for vela in result.artifacts.vela)
    # The whole program (the cast on ExecuTorch's host runtime, the delegate on the TOSA reference model
    # or, for the U85, Vela's command stream on the NPU model) computes what the quantized module does.
    (tmp_path / "m.pte").write_bytes(result.pte)
    (tmp_path / "m.tosa").write_bytes(result.artifacts.tosa[0].flatbuffer)
    program = PartitionedProgramOracle(tmp_path / "m.pte", ethos_u_on_npu_model=result.target.is_ethos_u)
    for (ids,) in samples:
        (logits,) = program.run([ids.numpy()])
        with torch.no_grad():
            expected = result.quantized_module(ids).numpy()
        np.testing.assert_array_equal(np.asarray(logits), expected)
