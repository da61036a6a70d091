"""Unit tests of the comparison's side-neutral parts, on small inputs (no model is compiled)."""

import pytest
import torch
from executorch.exir.backend.backend_details import BackendDetails

from arm.flow import resolve_target, run_flow
from arm.model_spec import ModelSpec
from bench.agreement import Agreement, Agreements
from bench.analysis import SideReport, _delegated_percent
from bench.backend_isolation import backends_of
from bench.compare_saved import load_side_reports
from bench.goals import goal_verdicts
from bench.pte_program import read_pte
from bench.table import Comparison, render_block, render_summary
from bench.tosa_graph import summarize_tosa
from bench.vela_report import VelaNumbers, vela_numbers

_CSV_HEADER = "cycles_total,cycles_npu,inference_time,sram_memory_used,on_chip_flash_memory_used,off_chip_flash_memory_used,nn_macs"


def test_vela_numbers_add_up_partitions_and_keep_the_largest_sram():
    first = f"{_CSV_HEADER}\n100,80,0.001,10.0,0.0,5.0,1000\n"
    second = f"{_CSV_HEADER}\n50,40,0.0005,20.0,1.0,2.0,500\n"
    numbers = vela_numbers([first, second])
    assert numbers == VelaNumbers(150, 120, 1.5, 20.0, 8.0, 1500)
    assert vela_numbers([]) is None


def _report(side: str, *, seconds: float, cycles: int, partitions: int, top1: int) -> SideReport:
    agreement = Agreement(cosine=0.99, max_abs_error=0.1, top1=top1, samples=4)
    return SideReport(
        side=side,
        seconds=seconds,
        stage_seconds={"export": seconds},
        partitions=partitions,
        delegated_percent=100.0,
        vela=VelaNumbers(cycles, cycles, 1.0, 1.0, 1.0, 10),
        agreement=Agreements(agreement, agreement, agreement),
    )


def test_goals_judge_time_cycles_partitions_and_top1():
    comparison = Comparison(
        "mv2",
        "ethos-u55-128",
        _report("ours", seconds=20.0, cycles=90, partitions=1, top1=4),
        _report("peer", seconds=100.0, cycles=100, partitions=1, top1=3),
    )
    assert {verdict.status for verdict in goal_verdicts([comparison]).values()} == {"PASS"}

    slow = Comparison(
        "mv2",
        "ethos-u55-128",
        _report("ours", seconds=50.0, cycles=110, partitions=2, top1=3),
        _report("peer", seconds=100.0, cycles=100, partitions=1, top1=4),
    )
    assert {verdict.status for verdict in goal_verdicts([slow]).values()} == {"FAIL"}
    assert {verdict.status for verdict in goal_verdicts([]).values()} == {"NOT MEASURED"}


def test_saved_peer_reports_read_back_as_written(tmp_path):
    """--peer-from reads the JSON --json writes: every field, nested dataclasses included."""
    import dataclasses
    import json

    peer = dataclasses.replace(_report("peer", seconds=3.0, cycles=7, partitions=2, top1=1), cpu_reasons=("why",))
    failed = SideReport("peer", error="RuntimeError: no")
    comparisons = [Comparison("mv2", "ethos-u55-128", peer, peer), Comparison("llama", "ethos-u85-256", failed, failed)]
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"comparisons": [dataclasses.asdict(c) for c in comparisons]}))
    assert load_side_reports(path, "peer") == {("mv2", "ethos-u55-128"): peer, ("llama", "ethos-u85-256"): failed}


def test_a_failed_side_is_a_line_in_the_table():
    comparison = Comparison(
        "dscnn",
        "ethos-u85-256",
        _report("ours", seconds=1.0, cycles=10, partitions=1, top1=4),
        SideReport("peer", error="RuntimeError: boom"),
    )
    assert "peer FAILED: RuntimeError: boom" in render_block(comparison)
    assert "dscnn" in render_summary([comparison])


def test_backends_of_hides_same_named_backends_of_other_packages_only_inside_the_block():
    mine = type("DuplicateBackendForTest", (BackendDetails,), {"__module__": "mine.backend"})
    theirs = type("DuplicateBackendForTest", (BackendDetails,), {"__module__": "theirs.backend"})
    with backends_of("mine"):
        assert mine.__name__ == "DuplicateBackendForTest"
        assert theirs.__name__ != "DuplicateBackendForTest"
    assert theirs.__name__ == "DuplicateBackendForTest"


@pytest.fixture(scope="module")
def small_program():
    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU()).eval()
    samples = [(torch.randn(1, 3, 8, 8),) for _ in range(2)]
    return run_flow(ModelSpec(module, samples[0], samples), resolve_target("tosa-INT"), progress=False)


def test_pte_of_one_delegate_gives_its_int8_boundary(small_program):
    program = read_pte(small_program.pte)
    assert dict(program.partitions) == {"TOSABackend": 1}
    assert not program.cpu_ops
    assert program.is_one_delegate
    (grid,) = program.input_quantization
    assert grid.scale > 0 and -128 <= grid.zero_point <= 127
    assert _delegated_percent(small_program.quantized_module, cpu_op_calls=0) == 100.0


def test_tosa_summary_counts_operators_and_reads_io_shapes(small_program):
    summary = summarize_tosa(small_program.artifacts.tosa[0].flatbuffer)
    assert summary.op_counts["CONV2D"] == 1
    assert summary.input_shapes == ((1, 3, 8, 8),)
    assert summary.output_shapes == ((1, 4, 6, 6),)
