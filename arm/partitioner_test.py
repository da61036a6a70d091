"""Partition boundaries: int8 at every edge in the INT profile, reasons for every node left on the CPU."""

import pytest
import torch
from executorch.exir import to_edge_transform_and_lower
from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

from arm.artifacts import collect_artifacts
from arm.compile_spec import TosaCompileSpec
from arm.partitioner import TOSAPartitioner
from arm.quantizer import TOSAQuantizer, get_symmetric_quantization_config

torch.set_num_threads(1)


class _ConvSigmoidConv(torch.nn.Module):
    """Two delegable convolutions around an trunc, which has no Arm lowering."""

    def __init__(self) -> None:
        super().__init__()
        self.first = torch.nn.Conv2d(3, 8, 3, padding=1)
        self.second = torch.nn.Conv2d(8, 8, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.second(torch.trunc(torch.relu(self.first(x))))


def _partition(profile: str) -> tuple[TOSAPartitioner, int]:
    torch.manual_seed(0)
    module, inputs = _ConvSigmoidConv().eval(), (torch.randn(1, 3, 8, 8),)
    spec = TosaCompileSpec(f"TOSA-1.0+{profile}")
    exported = torch.export.export(module, inputs)
    if profile == "INT":
        quantizer = TOSAQuantizer(spec).set_global(get_symmetric_quantization_config())
        prepared = prepare_pt2e(exported.module(check_guards=False), quantizer)
        prepared(*inputs)
        exported = torch.export.export(convert_pt2e(prepared), inputs)
    partitioner = TOSAPartitioner(spec)
    with collect_artifacts() as artifacts:
        to_edge_transform_and_lower(exported, partitioner=[partitioner])
    return partitioner, len(artifacts.tosa)


@pytest.mark.parametrize("profile", ["FP", "INT"])
def test_unsupported_op_splits_the_graph_and_says_why(profile: str) -> None:
    partitioner, partitions = _partition(profile)
    reasons = dict(partitioner.rejected)
    assert partitions == 2
    assert "no Arm TOSA lowering" in reasons["aten_trunc_default"]


def test_int_partitions_start_and_end_on_int8() -> None:
    partitioner, _ = _partition("INT")
    reasons = [reason for _, reason in partitioner.rejected]
    # The first quantize and the last dequantize stay on the CPU, as do the q/dq around trunc.
    assert sum("its int8 result enters the partition" in reason for reason in reasons) == 2
    assert sum("its int8 input leaves it" in reason for reason in reasons) == 2


def test_int_profile_rejects_a_float_model() -> None:
    module, inputs = torch.nn.Conv2d(3, 4, 1).eval(), (torch.randn(1, 3, 4, 4),)
    partitioner = TOSAPartitioner(TosaCompileSpec("TOSA-1.0+INT"))
    with collect_artifacts() as artifacts:
        to_edge_transform_and_lower(torch.export.export(module, inputs), partitioner=[partitioner])
    assert artifacts.tosa == []
    ((name, reason),) = partitioner.rejected
    assert "not quantized" in reason and name in reason


def test_a_linear_left_on_the_cpu_is_decomposed_for_its_kernels() -> None:
    # linear is kept whole for the delegate; when rejected, executorch must decompose it again.
    module, inputs = torch.nn.Linear(8, 4).eval(), (torch.randn(2, 8),)
    partitioner = TOSAPartitioner(TosaCompileSpec("TOSA-1.0+INT"))
    edge = to_edge_transform_and_lower(torch.export.export(module, inputs), partitioner=[partitioner])
    targets = {str(node.target) for node in edge.exported_program().graph.nodes if node.op == "call_function"}
    assert not any("linear" in target for target in targets)
    edge.to_executorch()


class _ShiftedIds(torch.nn.Module):
    """Token ids shifted right (BART's decoder ids), their -100s replaced, then (``with_reals``) looked up
    and projected: the projection reads what the CPU's comparison and where made of the shift."""

    def __init__(self, with_reals: bool) -> None:
        super().__init__()
        self.with_reals = with_reals
        self.embedding = torch.nn.Embedding(64, 8)
        self.projection = torch.nn.Linear(8, 4)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        shifted = torch.zeros_like(ids)
        shifted[:, 1:] = ids[:, :-1]
        padded = torch.where(shifted == -100, 0, shifted)
        return torch.relu(self.projection(self.embedding(padded))) if self.with_reals else padded


def _partition_on_u55(module: torch.nn.Module) -> tuple[TOSAPartitioner, int]:
    # The U55 has no EQUAL or SELECT: the comparison and where stay on the CPU, after the shift.
    torch.manual_seed(0)
    ids = torch.randint(0, 50, (2, 8), dtype=torch.int32)
    ids[0, 3] = -100
    inputs = (ids,)
    spec = TosaCompileSpec("TOSA-1.0+INT+int16+u55")
    quantizer = TOSAQuantizer(spec).set_global(get_symmetric_quantization_config())
    prepared = prepare_pt2e(torch.export.export(module.eval(), inputs).module(check_guards=False), quantizer)
    prepared(*inputs)
    partitioner = TOSAPartitioner(spec)
    with collect_artifacts() as artifacts:
        to_edge_transform_and_lower(torch.export.export(convert_pt2e(prepared), inputs), partitioner=[partitioner])
    return partitioner, len(artifacts.tosa)


def test_integer_bookkeeping_beside_the_model_stays_on_the_cpu() -> None:
    partitioner, partitions = _partition_on_u55(_ShiftedIds(with_reals=True))
    assert partitions == 1  # the projection's; the shift's SLICE/CONCAT partition is not worth a call
    reasons = dict(partitioner.rejected)
    assert "only move or compare integers" in reasons["aten_slice_scatter_default"]


def test_a_program_of_integer_data_alone_keeps_its_delegate() -> None:
    partitioner, partitions = _partition_on_u55(_ShiftedIds(with_reals=False))
    assert partitions == 1
    assert not any("only move or compare integers" in reason for _, reason in partitioner.rejected)
