"""bench.warm_build's sums and peer figures, and issue 12's every-target row, on hand-made numbers."""

import json

import pytest

from bench import issue12, warm_build
from bench.goal_table import FAIL, PASS
from bench.warm_build import PeerFigure, WarmBuild, WarmRequest


def _build() -> WarmBuild:
    requests = [
        WarmRequest("yolov8n", "ethos-u85-256", 4, seconds=30.0, cpu_seconds=9.0, load=3.0),
        WarmRequest("regnet", "ethos-u55-128", 4, seconds=100.0, cpu_seconds=12.0, load=3.0),
        WarmRequest("dscnn", "ethos-u55-128", 16, seconds=5.0, cpu_seconds=1.0, load=3.0),  # no peer figure
    ]
    peer = {
        "yolov8n@ethos-u85-256": PeerFigure(50.0, 40.0, 4, "in-process compile", "zoo4.json (date)", 1.0),
        "regnet@ethos-u55-128": PeerFigure(1500.0, None, 4, "in-process compile", "zoo.json (date)", 17.0),
    }
    return WarmBuild(startup_seconds=20.0, startup_cpu_seconds=6.0, requests=requests,
                     peer={key: figure.__dict__ for key, figure in peer.items()})


def test_cpu_seconds_sum_only_pairs_whose_peer_figure_has_them_and_wall_sums_every_paired_one():
    cpu, wall = warm_build.totals(_build())
    assert (cpu.unit, cpu.pairs, cpu.ours, cpu.peer) == ("CPU s", 1, 6.0 + 9.0, 40.0)  # start-up counted once
    assert (wall.unit, wall.pairs, wall.ours, wall.peer) == ("wall s", 2, 20.0 + 30.0 + 100.0, 1550.0)


def test_issue12_reads_the_warm_build_as_figures_against_the_0_1_goal():
    record = json.loads(json.dumps(issue12.dataclasses.asdict(_build())))  # as the --json file holds it
    cpu, wall = issue12.every_target_figures(warm_build.from_json(record))
    assert (cpu.ratio, cpu.verdict) == (pytest.approx(15.0 / 40.0), FAIL)
    assert (wall.ratio, wall.verdict) == (pytest.approx(150.0 / 1550.0), PASS)
    assert "1 pairs" in cpu.name and "CPU s" in cpu.name


def test_peer_figures_prefer_cpu_seconds_and_read_both_kinds_of_run(tmp_path):
    compare = tmp_path / "compare.json"
    compare.write_text(json.dumps({
        "run": {"calibration samples": 4, "date": "d1"},
        "comparisons": [
            {"model": "llama", "target": "ethos-u55-128", "peer": {"seconds": 200.0, "cpu_seconds": 90.0}},
            {"model": "bert", "target": "ethos-u85-256", "peer": {"error": "VelaCompileError"}},
        ],
    }))
    wall_only = tmp_path / "later.json"
    wall_only.write_text(json.dumps({
        "run": {"calibration samples": 4, "date": "d2"},
        "comparisons": [{"model": "llama", "target": "ethos-u55-128", "peer": {"seconds": 300.0}}],
    }))
    cold = tmp_path / "issue12.json"
    cold.write_text(json.dumps({"meta": {"started": "d3"}, "compile_rows": [
        {"model": "mv2", "target": "ethos-u55-128", "peer_cold": 40.0, "peer_cold_cpu": 38.0,
         "calibration_samples": 16, "peer_source": "measured", "load": 3.0},
    ]}))
    figures = warm_build.peer_figures([compare, wall_only, cold])
    assert set(figures) == {("llama", "ethos-u55-128"), ("mv2", "ethos-u55-128")}  # the failed peer is left out
    assert figures[("llama", "ethos-u55-128")].cpu_seconds == 90.0  # a later wall-only figure does not replace it
    assert figures[("mv2", "ethos-u55-128")].kind == "cold process"
