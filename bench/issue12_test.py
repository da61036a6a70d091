"""bench.issue12's goal table over stubbed measurements: no model is compiled, no QEMU or Bazel runs."""

import json
import math

import pytest

from bench import issue12
from bench.compile_time import Row
from bench.edge_cpu import EdgeCost, parse_rows
from bench.goal_table import FAIL, NOT_MEASURED, PASS, Figure, markdown
from bench.issue12 import CyclePair, compile_figures, cycle_figures, edge_figures, reusable_peer_reports


def test_a_figure_says_its_verdict_and_how_far_it_is_from_the_goal():
    missed = Figure("compile", "mv2 cold", ours=36.0, base=100.0, goal=0.25, base_source="peer")
    assert missed.ratio == pytest.approx(0.36)
    assert missed.verdict == FAIL
    assert missed.how_far == "1.44x the goal: ours must fall 31%"  # 0.25 / 0.36 = 0.69

    met = Figure("cycles", "deit", ours=40.0, base=100.0, goal=0.8, base_source="peer", unit="cycles")
    assert (met.verdict, met.how_far) == (PASS, "met with 50% to spare")
    at_the_goal = Figure("cycles", "zoo", ours=100.0, base=100.0, goal=1.0, base_source="peer", unit="cycles")
    assert at_the_goal.verdict == PASS

    for ours, base in ((None, 1.0), (1.0, None), (math.nan, 1.0), (1.0, 0.0)):
        missing = Figure("compile", "x", ours=ours, base=base, goal=0.1, base_source="peer", note="peer failed")
        assert (missing.ratio, missing.verdict, missing.how_far) == (None, NOT_MEASURED, "peer failed")


def test_the_markdown_row_carries_numbers_ratio_goal_and_verdict():
    table = markdown([Figure("edges", "mv2 int8 I/O", 37_375, 5_849_195, 0.05, "NPU cycles", unit="instructions")])
    row = table.splitlines()[2]
    assert row == ("| edges | mv2 int8 I/O | 37,375 | 5,849,195 | 0.006 | <= 0.05 | PASS | met with 87% to spare "
                   "| NPU cycles |")


_RUN_SH_OUTPUT = """pte_firmware (-c opt): 102985 B code+rodata (.text 90000, .rodata 12985), 608 B .data, 1280 B .bss; DDR region 33554432 B (.ddr_bss)

model            .pte bytes partitions    planned arena used   CPU instr.  NPU cycles (Vela 5.2.0)
tiny_conv_u55          4000          1       2560       2040         9343                     1696
mv2_u55_pte         3483872          1     752640    1510568      1098437                  5849195
mv2_u55_int8_io_pte    3485664          1     151536    1510100        37375                  5849195
"""


def test_run_sh_rows_become_the_edge_goals():
    costs = parse_rows(_RUN_SH_OUTPUT)
    assert sorted(costs) == ["mv2_u55_int8_io_pte", "mv2_u55_pte", "tiny_conv_u55"]
    assert costs["mv2_u55_pte"] == EdgeCost("mv2_u55_pte", 3483872, 1, 752640, 1510568, 1098437, 5849195)
    float_io, int8_io = edge_figures(costs)
    assert (float_io.goal, float_io.ratio, float_io.verdict) == (0.30, pytest.approx(1098437 / 5849195), PASS)
    assert (int8_io.goal, int8_io.ratio, int8_io.verdict) == (0.05, pytest.approx(37375 / 5849195), PASS)
    unmeasured = edge_figures({}, "run.sh failed: no QEMU")
    assert [(f.verdict, f.how_far) for f in unmeasured] == [(NOT_MEASURED, "run.sh failed: no QEMU")] * 2


def _row(model, target, ours_cold, peer_cold, ours_warm, ours_cpu=math.nan, peer_cpu=math.nan):
    return Row(model, target, ours_cold, peer_cold, ours_warm, load=1.0, ours_cold_cpu=ours_cpu,
               peer_cold_cpu=peer_cpu)


def test_compile_goals_read_the_main_pair_cold_and_the_warm_build_over_pairs_with_a_peer_figure():
    rows = [
        _row("mv2", "ethos-u55-128", 30.0, 100.0, 10.0, ours_cpu=12.0, peer_cpu=60.0),
        _row("llama", "ethos-u85-256", 40.0, 300.0, 20.0),
        _row("dscnn", "ethos-u55-128", 9.0, math.nan, 2.0),  # no peer figure: outside the warm build's sum
    ]
    cold_wall, cold_cpu, warm = compile_figures(rows, worker_startup=10.0)
    assert (cold_wall.ratio, cold_wall.verdict) == (pytest.approx(0.30), FAIL)
    assert (cold_cpu.ratio, cold_cpu.verdict) == (pytest.approx(0.20), PASS)
    assert warm.ours == 40.0 and warm.base == 400.0  # start-up 10 + warm 10 + 20; the peer's cold 100 + 300
    assert (warm.ratio, warm.verdict) == (pytest.approx(0.1), PASS)
    assert "2 model targets" in warm.name

    nothing = compile_figures([_row("dscnn", "ethos-u55-128", 9.0, math.nan, 2.0)], worker_startup=10.0)
    assert [figure.verdict for figure in nothing] == [NOT_MEASURED] * 3


def test_transformer_pairs_are_held_to_0_8_and_the_zoo_to_the_peer_by_its_worst_pair():
    pairs = [
        CyclePair("deit_tiny", "ethos-u85-256", 4, 20, 46, "reused from deit_u85.json (2026-11-26)"),
        CyclePair("llama", "ethos-u55-128", 4, 266, 277, "reused from run5.json (2026-11-25)"),
        CyclePair("mha_sequence", "ethos-u85-256", 4, 68, 90, "compiled in this run"),
        CyclePair("mv2", "ethos-u55-128", 16, 100, 100, "compiled in this run"),  # not a zoo model
        CyclePair("bert", "ethos-u55-128", 4, 50, None, "compiled in this run", peer_error="KeyError: x"),
    ]
    figures = cycle_figures(pairs)
    by_name = {figure.name.split(" Vela")[0]: figure for figure in figures}
    assert (by_name["deit_tiny U85-256"].goal, by_name["deit_tiny U85-256"].verdict) == (0.8, PASS)
    assert (by_name["llama U55-128"].goal, by_name["llama U55-128"].verdict) == (0.8, FAIL)  # 0.96
    assert by_name["llama U55-128"].base_source == "peer, reused from run5.json (2026-11-25)"
    assert (by_name["mha_sequence U85-256"].goal, by_name["mha_sequence U85-256"].verdict) == (1.0, PASS)
    assert by_name["bert U55-128"].verdict == NOT_MEASURED
    assert "peer failed: KeyError: x" in by_name["bert U55-128"].how_far
    zoo = figures[-1]
    assert zoo.name == ("every zoo pair at or below the peer: 0 of 3 measured above it (1 not measured); "
                        "worst: llama U55-128 Vela total cycles")
    assert (zoo.ours, zoo.base, zoo.verdict) == (266, 277, PASS)  # 0.96 misses 0.8, not the zoo's 1.0

    above = cycle_figures([*pairs, CyclePair("regnet", "ethos-u85-256", 4, 788, 746, "reused from zoo.json (x)")])[-1]
    assert above.name == ("every zoo pair at or below the peer: 1 of 4 measured above it (1 not measured); "
                          "worst: regnet U85-256 Vela total cycles")
    assert (above.ratio, above.verdict) == (pytest.approx(788 / 746), FAIL)


def _compare_json(path, vela, samples, comparisons):
    path.write_text(json.dumps({"run": {"Vela": vela, "calibration samples": str(samples), "date": "then"},
                                "comparisons": comparisons}))
    return path


def _comparison(model, target, cycles=None, error=None):
    peer = {"side": "peer", "error": error, "vela": None if cycles is None else {"total_cycles": cycles}}
    return {"model": model, "target": target, "ours": {}, "peer": peer}


def test_peer_cycles_are_reused_only_from_runs_with_the_same_vela_and_without_a_peer_error(tmp_path, capsys):
    older = _compare_json(tmp_path / "older.json", "5.2.0", 4, [_comparison("llama", "ethos-u55-128", 300)])
    other_vela = _compare_json(tmp_path / "v51.json", "5.1.0", 4, [_comparison("deit_tiny", "ethos-u85-256", 9)])
    newer = _compare_json(tmp_path / "newer.json", "5.2.0", 4, [
        _comparison("llama", "ethos-u55-128", 277),
        _comparison("bert", "ethos-u85-256", error="RuntimeError: no"),
        _comparison("conformer", "ethos-u85-256", cycles=None),  # a run cut before its Vela report
    ])
    reused = reusable_peer_reports([older, other_vela, newer], "5.2.0")
    assert list(reused) == [("llama", "ethos-u55-128")]
    assert reused[("llama", "ethos-u55-128")].report["vela"]["total_cycles"] == 277
    assert reused[("llama", "ethos-u55-128")].source == "reused from newer.json (then)"
    assert "v51.json: Vela 5.1.0, not 5.2.0" in capsys.readouterr().err


def test_a_whole_run_with_stubbed_parts_writes_json_that_renders_the_same_table(tmp_path, monkeypatch, capsys):
    peer_file = _compare_json(tmp_path / "run5.json", "5.2.0", 4, [_comparison("llama", "ethos-u85-256", 100)])
    seen = {}

    def measure(pairs, rows_file):
        seen["compile"] = [(pair.model, pair.target, pair.calibration_samples, pair.run_peer) for pair in pairs]
        return [_row("mv2", "ethos-u55-128", 20.0, 100.0, 8.0)], 2.0, None

    def cycles(pairs, reused):
        seen["cycles"] = (pairs, sorted(reused))
        return [CyclePair("llama", "ethos-u85-256", 4, 62, 100, reused[("llama", "ethos-u85-256")].source)]

    monkeypatch.setattr(issue12.compile_time, "measure", measure)
    monkeypatch.setattr(issue12, "measure_cycles", cycles)
    monkeypatch.setattr(issue12, "measure_edges", lambda flags: (parse_rows(_RUN_SH_OUTPUT), _RUN_SH_OUTPUT))
    output = tmp_path / "issue12.json"
    assert issue12.main(["--json", str(output), "--reuse-peer-cycles", str(peer_file),
                         "--compile-pairs", "mv2@ethos-u55-128", "--cycle-pairs", "llama@ethos-u85-256"]) == 0
    printed = capsys.readouterr().out

    assert seen["compile"] == [("mv2", "ethos-u55-128", 16, True)]  # compile times are always measured
    assert seen["cycles"] == ([("llama", "ethos-u85-256")], [("llama", "ethos-u85-256")])
    document = json.loads(output.read_text())
    verdicts = {figure["name"]: (figure["ratio"], figure["verdict"]) for figure in document["figures"]}
    assert verdicts["mv2 U55-128 cold compile, wall s"] == (pytest.approx(0.2), PASS)
    assert verdicts["warm build of 1 model targets (our worker: start-up + one request each), wall s"] == (
        pytest.approx(0.1), PASS)
    assert verdicts["llama U85-256 Vela total cycles"] == (pytest.approx(0.62), PASS)
    assert verdicts["mv2 U55-128 int8 I/O: CPU instructions outside the NPU / NPU cycles"][1] == PASS
    assert set(document["part_seconds"]) == {"edges", "compile", "cycles", "whole run"}

    assert issue12.main(["--render", str(output)]) == 0
    rendered = capsys.readouterr().out
    table = [line for line in printed.splitlines() if line.startswith("| ")]
    assert table == [line for line in rendered.splitlines() if line.startswith("| ")]
    assert "peer, reused from run5.json (then)" in rendered


def test_a_run_cut_during_the_compile_part_renders_the_rows_measured_so_far(tmp_path):
    """bench.compile_time appends each row beside the --json file; --render reads them back."""
    import dataclasses

    output = tmp_path / "issue12.json"
    issue12._write(issue12.Run(meta={"started": "then"}), output)
    row = _row("mv2", "ethos-u55-128", 30.0, 120.0, 10.0)
    rows_file = tmp_path / "issue12.json.compile.jsonl"
    rows_file.write_text(json.dumps({**dataclasses.asdict(row), "worker_startup": 5.0}) + "\n")
    run = issue12.read_run(output)
    assert run.worker_startup == 5.0
    cold_wall, _, warm = run.figures()
    assert (cold_wall.ratio, warm.ours, warm.base) == (pytest.approx(0.25), 15.0, 120.0)
    assert run.meta["compile part"] == "cut short: the rows issue12.json.compile.jsonl holds"
