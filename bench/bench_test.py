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
from bench.compile_time import Row, goals, read_rows, table, with_derived_peer
from bench.derived_peer import PeerStartup, peer_compiles
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


def _compare_json(path, samples: int, peer_seconds: dict) -> None:
    """A bench.compare --json file holding only what the derived peer figure reads."""
    import json

    comparisons = [
        {"model": model, "target": target,
         "peer": {"seconds": seconds, "cpu_seconds": seconds * 0.6, "load_average": 3.0, "error": None}}
        for (model, target), seconds in peer_seconds.items()
    ]
    comparisons.append({"model": "yolov8n", "target": "ethos-u55-128", "peer": {"error": "RuntimeError: no"}})
    path.write_text(json.dumps({"run": {"calibration samples": str(samples)}, "comparisons": comparisons}))


def test_compile_time_derives_the_peer_cold_figure_from_a_compare_run(tmp_path):
    """Derived peer cold = start-up + the model's load + the compare run's in-process compile seconds."""
    import math

    _compare_json(tmp_path / "zoo.json", 4, {("bert", "ethos-u55-128"): 100.0, ("mv2", "ethos-u55-128"): 50.0})
    compiles = peer_compiles([tmp_path / "zoo.json"])
    assert set(compiles) == {("bert", "ethos-u55-128"), ("mv2", "ethos-u55-128")}  # the failed peer is no figure
    startup = PeerStartup(20.0, 5.0, {"bert": 2.0, "mv2": 1.0}, {"bert": 1.0, "mv2": 0.5}, 1.0)
    rows = [
        Row("bert", "ethos-u55-128", 30.6, math.nan, 12.2, 2.0, calibration_samples=4, peer_source=""),
        # Compiled here with 16 samples, the peer there with 4: not comparable, so no figure.
        Row("mv2", "ethos-u55-128", 30.0, math.nan, 10.0, 2.0, calibration_samples=16, peer_source=""),
    ]
    bert, mv2 = with_derived_peer(rows, startup, compiles)
    assert bert.peer_cold == 122.0 and bert.peer_source == "derived (zoo.json)" and bert.peer_load == 3.0
    assert bert.peer_cold_cpu == 5.0 + 1.0 + 60.0  # start-up, bert's load, the compile: CPU seconds alike
    assert math.isnan(mv2.peer_cold) and mv2.peer_source == ""
    rendered = table([bert, mv2], startup=0.0)
    assert "| bert | ethos-u55-128 | 4 | 30.6 | 122.0 | derived (zoo.json) | 0.25 | 12.2 | 0.10 PASS |" in rendered
    assert "| mv2 | ethos-u55-128 | 16 | 30.0 | - | none | - |" in rendered
    verdicts = goals([bert, mv2], startup=0.0)
    assert "mv2 ethos-u55-128 cold <= 0.25x the peer: NOT MEASURED" in verdicts
    assert "warm build of 1 model targets <= 0.1x the peer's cold builds: PASS, 0.10x" in verdicts


def test_compile_time_rows_read_back_with_their_peer_startup(tmp_path):
    import dataclasses
    import json

    startup = PeerStartup(20.0, 5.0, {"bert": 2.0}, {"bert": 1.0}, 1.0)
    row = Row("bert", "ethos-u55-128", 30.0, 90.0, 12.0, 2.0, 25.0, 80.0, 10.0, 4, "measured", 2.5)
    records = [{"peer_startup": dataclasses.asdict(startup)}, {**dataclasses.asdict(row), "worker_startup": 7.0}]
    path = tmp_path / "rows.jsonl"
    path.write_text("".join(json.dumps(record) + "\n" for record in records))
    assert read_rows([path]) == ([row], 7.0, startup)


def test_per_layer_diff_sums_cycles_by_operator_kind_over_partitions(tmp_path):
    import collections

    from bench.per_layer_diff import Kind, cycles_by_kind, per_layer_files, render

    header = "Original Operator,NNG Operator,Op Cycles,Name\n"
    (tmp_path / "m_t_ours_0_per_layer.csv").write_text(header + "Slice,MemoryCopy,300,a\nConv2D,Conv2D,1000,b\n")
    (tmp_path / "m_t_ours_1_per_layer.csv").write_text(header + "Conv2D,Conv2D,500,c\n")
    (tmp_path / "m_t_peer_0_per_layer.csv").write_text(header + "Conv2D,Conv2D,1400,d\n")
    ours = cycles_by_kind(per_layer_files(tmp_path, "m", "t", "ours"))
    peer = cycles_by_kind(per_layer_files(tmp_path, "m", "t", "peer"))
    assert (ours[("Conv2D", "Conv2D")].layers, ours[("Conv2D", "Conv2D")].cycles) == (2, 1500)
    rendered = render(collections.defaultdict(Kind, ours), collections.defaultdict(Kind, peer)).splitlines()
    assert rendered[1].startswith("Slice / MemoryCopy") and rendered[1].endswith("+300")  # largest difference first
    assert rendered[-1].split()[-1] == "+400"


def test_markdown_rows_give_a_failed_side_its_own_row(tmp_path):
    import dataclasses
    import json

    from bench.markdown_rows import rows

    ours = _report("ours", seconds=20.0, cycles=90, partitions=1, top1=4)
    failed = SideReport("peer", error="RuntimeError: no TOSA for this op")
    comparisons = [Comparison("regnet", "ethos-u55-128", ours, failed)]
    path = tmp_path / "run.json"
    path.write_text(json.dumps({"comparisons": [dataclasses.asdict(c) for c in comparisons]}))
    (line,) = rows([path])
    assert line.startswith("| regnet | U55-128 | ok / FAILED (RuntimeError: no TOSA for this op) | 1 / - |")
    assert "| 90 / - |" in line and "| cos 0.9900, 0.1, 4/4 / - |" in line


def test_integer_ids_going_into_the_delegate_as_they_are_still_give_the_error_measure():
    """A token-id model whose ids enter the delegate unquantized (no grid) is still one delegate whose
    TOSA graph the reference model runs: the bench measures it against its quantized torch model."""
    from bench.agreement import measure_agreement

    torch.manual_seed(0)
    module = torch.nn.Sequential(torch.nn.Embedding(16, 8), torch.nn.Linear(8, 4)).eval()
    samples = [(torch.randint(0, 16, (1, 6)),) for _ in range(2)]
    result = run_flow(ModelSpec(module, samples[0], samples), resolve_target("tosa-INT"), progress=False)
    program = read_pte(result.pte)
    assert program.is_one_delegate and program.input_quantization == (None,)
    (tosa,) = [artifact.flatbuffer for artifact in result.artifacts.tosa]
    agreement = measure_agreement(
        tosa, program.input_quantization, program.output_quantization, module, result.quantized_module, samples
    )
    assert agreement.vs_quantized.samples == 2
    assert agreement.vs_quantized.cosine > 0.999  # an embedding row and one linear layer: a step or so apart
